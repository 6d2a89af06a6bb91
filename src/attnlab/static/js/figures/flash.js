// FIG 8 (§5, compute and memory): FlashAttention's idea, the softmax one tile of keys at a time.
// Left: the n × n scores cut into tiles, the tile being read now amber, earlier ones dropped (only
// m, ℓ and O remember them), blocks above the diagonal skipped under the causal mask; one query
// row outlined. Right, for that row: the running maximum m, running sum ℓ, the factor that
// rescaled the old sums, the partial output O/ℓ against full attention's output, m and ℓ tile by
// tile; then the scores held against n × n, and the finished output against full softmax.
// Data: GET /api/figures/flash (attnlab.figures.flash); the view draws it and moves settings.

import { lineChart } from "../lib/chart.js";
import { PALETTE } from "../lib/colours.js";
import { button, segmented } from "../lib/controls.js";
import { count, num } from "../lib/format.js";
import { readoutList } from "../lib/readouts.js";
import { settledAnnouncer } from "../lib/settledannounce.js";
import { slider } from "../lib/slider.js";
import { stepPlayer } from "../lib/stepplayer.js";
import { attrs, clear, el, html } from "../lib/svg.js";
import { FILL, STATES_SHOWN, tileGrid } from "../lib/tilegrid.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("flash");
const PLAY_MS = 800; // one tile per beat: time to read m and ℓ change
const ANNOUNCE_MS = 350;
const ROWS = ["m", "l", "rescale", "o"];

/** A legend of the cell states, as the grid draws them. */
function legend(parent, t) {
  const ul = html("ul", { class: "legend fl-legend" }, parent);
  const items = STATES_SHOWN.map((state) => {
    const li = html("li", { "data-state": state }, ul);
    const sw = el("svg", { width: 14, height: 14, viewBox: "0 0 14 14", "aria-hidden": "true" }, li);
    el("rect", { x: 0.5, y: 0.5, width: 13, height: 13, rx: 2, class: "fl-cell", "data-state": state, fill: FILL[state] ?? "none" }, sw);
    if (state === "masked") el("path", { d: "M4 4L10 10M4 10L10 4", class: "fl-cross" }, sw);
    return { state, span: html("span", { text: t(`fl.state.${state}`) }, li) };
  });
  return { relabel: () => items.forEach((it) => { it.span.textContent = t(`fl.state.${it.state}`); }) };
}

/** One bar per output component: the partial output O/ℓ (amber) and full attention's (a tick). */
function outputBars(parent) {
  const svg = el("svg", { class: "fl-out", viewBox: "0 0 300 78", "aria-hidden": "true" }, parent);
  const mid = 150;
  const scale = 55; // drawing units per unit of output
  return {
    update(partial, full) {
      clear(svg);
      el("line", { x1: mid, x2: mid, y1: 0, y2: 78, class: "fl-axis" }, svg);
      full.forEach((f, c) => {
        const y = 6 + c * 24;
        const p = partial?.[c] ?? 0;
        el("rect", { x: Math.min(mid, mid + p * scale), y, width: Math.abs(p) * scale, height: 14, rx: 2,
          fill: PALETTE.attention, class: "fl-bar" }, svg);
        el("line", { x1: mid + f * scale, x2: mid + f * scale, y1: y - 3, y2: y + 17, class: "fl-full" }, svg);
        el("text", { x: 4, y: y + 11, class: "fl-comp", text: `o${"₁₂₃₄"[c] ?? c + 1}` }, svg);
      });
    },
  };
}

/** m and ℓ of the followed row after each tile read so far. */
function historyChart(parent, { colour, key }) {
  const svg = el("svg", { class: `fl-history fl-history-${key}`, role: "img" }, parent);
  const chart = lineChart(svg, { width: 300, height: 128, margin: { top: 10, right: 12, bottom: 42, left: 58 },
    x: { domain: [0.5, 1.5], format: (v) => (Number.isInteger(v) ? String(v) : "") } });
  chart.series(key, { colour });
  const dots = el("g", { class: "fl-dots" }, svg);
  let last = { points: [], grew: [] };
  function place() {
    const s = chart.scales();
    clear(dots);
    last.points.forEach(([x, y], i) => {
      el("circle", { cx: s.x(x), cy: s.y(y), r: 3.2, fill: colour }, dots);
      if (last.grew[i]) el("circle", { cx: s.x(x), cy: s.y(y), r: 6.5, class: "fl-grew" }, dots);
    });
  }
  chart.onRedraw(place);
  return {
    svg,
    update(values, grew, tiles, label) {
      const points = values.map((v, i) => [i + 1, v]).filter(([, v]) => v !== null);
      const ys = points.map(([, y]) => y);
      const lo = ys.length ? Math.min(...ys) : 0;
      const hi = ys.length ? Math.max(...ys) : 1;
      const pad = Math.max((hi - lo) * 0.15, 0.1);
      chart.setDomain("x", [0.5, tiles + 0.5]);
      chart.setDomain("y", [lo - pad, hi + pad]);
      chart.setLabels({ x: label.x, y: label.y });
      chart.setPoints(key, points);
      last = { points, grew: grew.map((g, i) => g && i > 0) };
      chart.draw();
      place();
      svg.setAttribute("aria-label", label.aria);
    },
  };
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  const s = () => ctx.settings;
  // the step asked for, as drawn: a link's step past the last tile means the last tile
  const at = () => Math.min(s().step, data?.n_tiles ?? s().step);
  let data = null;
  let waiting = false; // a new n or tile sent, answer not back: the tile count is not known yet
  const speak = settledAnnouncer(ctx.announce, { delay: ANNOUNCE_MS });
  const lim = Object.fromEntries(ctx.params.map((p) => [p.name, p]));
  root.classList.add("fig-flash");

  // ---- controls ------------------------------------------------------------------------------
  const bar = html("div", { class: "toolbar" }, root);
  const nCtl = slider(bar, { label: t("fl.n"), name: "fl-n", value: s().n, min: lim.n.min, max: lim.n.max,
    onChange: (n) => change({ n, tile: Math.min(s().tile, n), row: Math.min(s().row, n - 1), step: 1 }) });
  const tileCtl = slider(bar, { label: t("fl.tile"), name: "fl-tile", value: s().tile, min: lim.tile.min,
    max: s().n, onChange: (tile) => change({ tile, step: 1 }) });
  const causalCtl = segmented(bar, { name: "fl-causal", label: t("fl.causal"), value: s().causal,
    options: [{ value: false, label: t("fl.off") }, { value: true, label: t("fl.on") }],
    onChange: (causal) => change({ causal }) });
  const bar2 = html("div", { class: "toolbar" }, root);
  const actions = html("div", { class: "actions fl-steps" }, bar2);
  const player = stepPlayer(actions, { at, last: () => data?.n_tiles ?? null, go, busy: () => waiting,
    label: (key) => t(`fl.${key}`), beatMs: PLAY_MS });
  const resetBtn = button(actions, { label: t("fl.reset"), onClick: () => { player.stop(); change({ step: 0 }); } });
  const rowCtl = slider(bar2, { label: t("fl.row"), name: "fl-row", value: s().row, min: 0, max: s().n - 1,
    onChange: (row) => change({ row }) });

  // ---- the tiles (left) and the followed row (right) -----------------------------------------
  const panels = html("div", { class: "panels" }, root);
  const left = html("div", { class: "panel" }, panels);
  const stepTitle = html("p", { class: "panel-title fl-step" }, left);
  const grid = tileGrid(el("svg", {}, left), { onRow: (row) => change({ row }), label: gridLabel });
  const keyLegend = legend(left, t);
  const gridHint = html("p", { class: "hint" }, left);

  const right = html("div", { class: "panel fl-right" }, panels);
  const rowTitle = html("p", { class: "panel-title" }, right);
  const readouts = readoutList(right, ROWS.map((key) => ({ key, label: t(`fl.r.${key}`) })), { className: "fl-readouts" });
  const bars = outputBars(right);
  const barsHint = html("p", { class: "hint" }, right);
  const mChart = historyChart(right, { colour: PALETTE.attention, key: "m" });
  const lChart = historyChart(right, { colour: PALETTE.value, key: "l" });
  const memory = html("div", { class: "fl-memory", "data-key": "memory" }, right);
  const memTitle = html("p", { class: "panel-title" }, memory);
  const memRows = ["held", "full"].map((key) => {
    const row = html("div", { class: "fl-mem-row", "data-key": key }, memory);
    const label = html("span", { class: "fl-mem-label" }, row);
    const track = html("span", { class: "fl-mem-track" }, row);
    const fill = html("span", { class: "fl-mem-fill" }, track);
    const value = html("span", { class: "fl-mem-value" }, row);
    return { key, label, fill, value };
  });
  const memNote = html("p", { class: "hint" }, memory);
  const check = html("div", { class: "fl-check", "data-key": "check" }, right);
  const checkTitle = html("p", { class: "panel-title" }, check);
  const checkVerdict = html("p", { class: "fl-verdict" }, check);

  // ---- reacting to the reader ----------------------------------------------------------------
  function change(partial) {
    speak.arm();
    const changed = ctx.set(partial) ?? [];
    if (changed.includes("n") || changed.includes("tile")) {
      waiting = true;
      player.stop(); // a new tiling starts over: the reader steps it anew
    }
    syncControls();
  }

  function go(step) {
    if (!data || waiting || step < 0 || step > data.n_tiles) return;
    change({ step });
  }

  function syncControls() {
    nCtl.set(s().n);
    tileCtl.setRange(lim.tile.min, s().n);
    tileCtl.set(s().tile);
    rowCtl.setRange(0, s().n - 1);
    rowCtl.set(s().row);
    causalCtl.set(s().causal);
    player.sync();
  }

  // ---- drawing ---------------------------------------------------------------------------------
  function stepName(d) {
    const step = d.shown.step;
    if (step === 0) return t("fl.step.none", { n: d.n_tiles });
    const [a, b] = d.tiles[step - 1].keys;
    return t(b - a === 1 ? "fl.step.one" : "fl.step.now", { step, n: d.n_tiles, first: a, last: b - 1 });
  }

  function gridLabel(d) {
    return t("fl.grid.aria", { step: stepName(d), row: d.shown.row, held: d.memory.held_now, full: d.memory.full });
  }

  function drawRow(d) {
    const { row, step } = d.shown;
    const now = d.now;
    rowTitle.textContent = t("fl.rowTitle", { row });
    readouts.set("m", now ? num(now.m, 4) : "—", now?.m ?? "");
    readouts.set("l", now ? num(now.l, 4) : "—", now?.l ?? "");
    let rescale = "—";
    if (now && !now.read) rescale = t("fl.rescale.skipped");
    else if (now && step === 1) rescale = t("fl.rescale.first");
    else if (now) rescale = t(now.grew ? "fl.rescale.grew" : "fl.rescale.same", { f: num(now.rescale, 3) });
    readouts.set("rescale", rescale, now?.rescale ?? "");
    readouts.set("o", now ? `(${now.o.map((x) => num(x, 3)).join(", ")})` : "—", now ? now.o.join(",") : "");
    bars.update(now?.o ?? null, d.final.full);
    barsHint.textContent = t("fl.bars.hint");
    const grew = d.trace.grew.slice(0, step);
    const labels = (key, values) => ({ x: t("fl.chart.x"), y: t(`fl.chart.${key}`),
      aria: t("fl.chart.aria", { what: t(`fl.chart.${key}`), row, values: values.map((v) => num(v, 3)).join(", ") || "—" }) });
    const ms = d.trace.m.slice(0, step);
    const ls = d.trace.l.slice(0, step);
    mChart.update(ms, grew, d.n_tiles, labels("m", ms));
    lChart.update(ls, grew, d.n_tiles, labels("l", ls));
  }

  function drawMemory(d) {
    const m = d.memory;
    memTitle.textContent = t("fl.mem.title");
    for (const r of memRows) {
      const v = r.key === "held" ? m.held_now : m.full;
      r.label.textContent = t(`fl.mem.${r.key}`);
      r.fill.style.width = `${(100 * v) / m.full}%`;
      r.value.textContent = count(v);
      r.value.setAttribute("data-value", String(v));
    }
    memNote.textContent = t("fl.mem.note", { peak: count(m.peak), state: count(m.state),
      so: count(d.blocks.so_far), done: count(d.blocks.computed), total: count(d.blocks.total) });
  }

  function drawCheck(d) {
    const diff = d.final.max_abs_diff;
    checkTitle.textContent = t("fl.check.title", { n: d.n });
    checkVerdict.textContent = t("fl.check.verdict", { diff: num(diff, 2), row: d.shown.row,
      tiled: d.final.tiled.map((x) => num(x, 6)).join(", "), full: d.final.full.map((x) => num(x, 6)).join(", ") });
    check.setAttribute("data-value", String(diff));
  }

  function draw(d) {
    grid.update(d);
    stepTitle.textContent = stepName(d);
    attrs(stepTitle, { "data-step": d.shown.step, "data-tiles": d.n_tiles });
    gridHint.textContent = t("fl.grid.hint");
    drawRow(d);
    drawMemory(d);
    drawCheck(d);
    speak.say(() => t("fl.announce", { step: stepName(d), row: d.shown.row,
      m: num(d.now?.m, 3), l: num(d.now?.l, 3), held: count(d.memory.held_now) }));
  }

  syncControls();

  return {
    update(d) {
      data = d;
      waiting = false;
      draw(d);
      syncControls();
    },
    relabel() {
      nCtl.relabel(t("fl.n"));
      tileCtl.relabel(t("fl.tile"));
      rowCtl.relabel(t("fl.row"));
      causalCtl.relabel(t("fl.causal"), [t("fl.off"), t("fl.on")]);
      resetBtn.textContent = t("fl.reset");
      keyLegend.relabel();
      readouts.relabel(ROWS.map((key) => ({ key, label: t(`fl.r.${key}`) })));
      syncControls();
      if (data) draw(data);
    },
    destroy() {
      player.destroy();
      speak.cancel();
    },
  };
}
