// FIG 6 (§4 part 4): the mask decides who may look at whom, the KV cache what each step costs.
// Left: the n × n attention matrix of a robot policy's sequence (the engine's constants.tokens:
// I1–I4, P, T, then a1–a8 generated one at a time), pass by pass. Right: the running dot-product
// count, the totals for the chosen mask with and without the cache, and the check on a real small
// model that cached generation gives what full recomputation gives. Data: GET /api/figures/kv-cache
// (attnlab.figures.kv_cache); the view only draws it and moves the `step` setting.

import { cellGrid, STATE_FILL, tokenLabel } from "../lib/cellgrid.js";
import { button, segmented } from "../lib/controls.js";
import { count, num } from "../lib/format.js";
import { el, html } from "../lib/svg.js";
import { settledAnnouncer } from "../lib/settledannounce.js";
import { stepPlayer } from "../lib/stepplayer.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("kv-cache");

const PLAY_MS = 900; // one pass per beat: slow enough to read the counter
const ANNOUNCE_MS = 350;
const CELL = 26;
const GRID = { x: 40, y: 34 };

/** The legend: one swatch per cell state, in the order the caption explains them. */
function legend(parent, t) {
  const ul = html("ul", { class: "legend kv-legend" }, parent);
  const items = ["computed", "cached", "stale", "masked", "future"].map((state) => {
    const li = html("li", { "data-state": state }, ul);
    const sw = el("svg", { width: 14, height: 14, viewBox: "0 0 14 14", "aria-hidden": "true" }, li);
    if (STATE_FILL[state]) el("rect", { x: 0.5, y: 0.5, width: 13, height: 13, rx: 2, fill: STATE_FILL[state] }, sw);
    else el("rect", { x: 0.5, y: 0.5, width: 13, height: 13, rx: 2, class: "swatch-empty" }, sw);
    if (state === "masked") el("path", { d: "M4 4L10 10M4 10L10 4", class: "cell-cross" }, sw);
    if (state === "stale") {
      el("text", { x: 7, y: 7, dy: "0.36em", "text-anchor": "middle", class: "cell-bang", text: "!" }, sw);
    }
    return { state, span: html("span", { text: t(`kv.state.${state}`) }, li) };
  });
  return { relabel: () => items.forEach((it) => { it.span.textContent = t(`kv.state.${it.state}`); }) };
}

/** Two bars for the whole generation, with and without the cache; the active one fills up. */
function totalsBars(parent, t) {
  const wrap = html("div", { class: "kv-totals" }, parent);
  const title = html("p", { class: "panel-title" }, wrap);
  const rows = ["cached", "uncached"].map((key) => {
    const row = html("div", { class: "kv-bar-row", "data-key": key }, wrap);
    const label = html("span", { class: "kv-bar-label" }, row);
    const track = html("span", { class: "kv-bar-track" }, row);
    const fill = html("span", { class: "kv-bar-fill" }, track);
    const done = html("span", { class: "kv-bar-done" }, track);
    const value = html("span", { class: "kv-bar-value" }, row);
    return { key, row, label, fill, done, value };
  });
  return {
    update(d) {
      const totals = d.totals[d.settings.mask];
      const max = Math.max(totals.cached, totals.uncached);
      title.textContent = t("kv.totals", { mask: t(`kv.mask.${d.settings.mask}`) });
      for (const r of rows) {
        const active = (r.key === "cached") === d.settings.cache;
        r.label.textContent = t(`kv.totals.${r.key}`);
        r.fill.style.width = `${(100 * totals[r.key]) / max}%`;
        r.done.style.width = active ? `${(100 * d.count_so_far) / max}%` : "0";
        r.value.textContent = count(totals[r.key]);
        r.value.setAttribute("data-value", String(totals[r.key]));
        r.row.classList.toggle("is-active", active);
      }
    },
  };
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  const s = () => ctx.settings;
  const masks = ctx.params.find((p) => p.name === "mask").choices; // the server's
  const lastStep = ctx.params.find((p) => p.name === "step").max; // the last generation pass
  let data = null;
  const speak = settledAnnouncer(ctx.announce, { delay: ANNOUNCE_MS });
  root.classList.add("fig-kv");

  // ---- controls ------------------------------------------------------------------------------
  const bar = html("div", { class: "toolbar" }, root);
  const maskCtl = segmented(bar, { name: "kv-mask", label: t("kv.mask"), value: s().mask,
    options: masks.map((m) => ({ value: m, label: t(`kv.mask.${m}`) })), onChange: (v) => change({ mask: v }) });
  const cacheCtl = segmented(bar, { name: "kv-cache", label: t("kv.cache"), value: s().cache,
    options: [{ value: true, label: t("kv.on") }, { value: false, label: t("kv.off") }],
    onChange: (v) => change({ cache: v }) });
  const actions = html("div", { class: "actions kv-steps" }, bar);
  const player = stepPlayer(actions, { at: () => s().step, last: () => lastStep, go,
    label: (key) => t(`kv.${key}`), beatMs: PLAY_MS });
  const resetBtn = button(actions, { label: t("kv.reset"), onClick: () => { player.stop(); change({ step: 0 }); } });

  // ---- the matrix (left) and the counters (right) --------------------------------------------
  const panels = html("div", { class: "panels" }, root);
  const left = html("div", { class: "panel grid-panel" }, panels);
  const passTitle = html("p", { class: "panel-title kv-pass", "aria-live": "off" }, left);
  const size = ctx.constants.tokens.length * CELL; // the engine's sequence (constants.tokens)
  const svg = el("svg", { class: "kv-grid", viewBox: `0 0 ${GRID.x + size + 8} ${GRID.y + size + 26}`, role: "img" }, left);
  let grid = null;
  const keysLabel = el("text", { x: GRID.x + size / 2, y: GRID.y + size + 20, "text-anchor": "middle",
    class: "axis-label" }, svg);
  const queriesLabel = el("text", { class: "axis-label", "text-anchor": "middle",
    transform: `translate(4 ${GRID.y + size / 2}) rotate(90)` }, svg);
  const keyLegend = legend(left, t);

  const right = html("div", { class: "panel count-panel" }, panels);
  const counter = html("div", { class: "kv-counter" }, right);
  const soFarLabel = html("p", { class: "panel-title" }, counter);
  const soFar = html("p", { class: "kv-big", "data-key": "so-far" }, counter);
  const nowLine = html("p", { class: "kv-now", "data-key": "now" }, counter);
  const staleLine = html("p", { class: "kv-stale", "data-key": "stale" }, counter);
  const totals = totalsBars(right, t);
  const check = html("div", { class: "kv-check", "data-key": "check" }, right);
  const checkTitle = html("p", { class: "panel-title" }, check);
  const checkVerdict = html("p", { class: "kv-verdict" }, check);
  const checkLayers = html("p", { class: "hint" }, check);

  // ---- reacting to the reader ----------------------------------------------------------------
  function change(partial) {
    speak.arm();
    ctx.set(partial);
    syncControls();
  }

  function go(step) {
    if (step < 0 || step > lastStep) return;
    change({ step });
  }

  function syncControls() {
    maskCtl.set(s().mask);
    cacheCtl.set(s().cache);
    player.sync();
  }

  // ---- drawing ---------------------------------------------------------------------------------
  function passName(d) {
    const step = d.settings.step;
    return step === 0 ? t("kv.pass.prefill", { n: d.n_prefix })
      : t("kv.pass.step", { step, n: d.n_new, token: tokenLabel(d.tokens[d.n_prefix + step - 1]) });
  }

  function drawCheck(d) {
    const m = d.model;
    const mask = d.settings.mask;
    checkTitle.textContent = t("kv.check", { layers: m.layers, d: m.d, heads: m.n_heads });
    checkVerdict.textContent = t(m.exact[mask] ? "kv.check.same" : "kv.check.differs",
      { diff: num(m.max_abs_diff[mask], 2), scale: num(m.output_scale[mask], 3) });
    check.classList.toggle("is-wrong", !m.exact[mask]);
    check.setAttribute("data-value", String(m.max_abs_diff[mask]));
    checkLayers.textContent = t("kv.check.layers", {
      list: m.kv_diff_by_layer[mask].map((v, i) => t("kv.check.layer", { i: i + 1, v: num(v, 2) })).join(" · ") });
  }

  function draw(d) {
    grid ??= cellGrid(svg, { tokens: ctx.constants.tokens, x: GRID.x, y: GRID.y, cell: CELL,
      split: ctx.constants.n_prefix });
    grid.update(d.cells, d.rows_computed);
    passTitle.textContent = passName(d);
    keysLabel.textContent = t("kv.keys");
    queriesLabel.textContent = t("kv.queries");
    soFarLabel.textContent = t("kv.soFar");
    soFar.textContent = count(d.count_so_far);
    soFar.setAttribute("data-value", String(d.count_so_far));
    soFar.setAttribute("data-total", String(d.count_total));
    nowLine.textContent = t("kv.now", { n: count(d.count_now) });
    nowLine.setAttribute("data-value", String(d.count_now));
    staleLine.textContent = d.stale_now > 0 ? t("kv.stale", { n: d.stale_now }) : "";
    staleLine.setAttribute("data-value", String(d.stale_now));
    totals.update(d);
    drawCheck(d);
    svg.setAttribute("aria-label", t("kv.grid.aria", { pass: passName(d), now: d.count_now }));
    speak.say(() => t("kv.announce", { pass: passName(d), now: count(d.count_now),
      sofar: count(d.count_so_far), total: count(d.count_total) }));
  }

  syncControls();

  return {
    update(d) {
      data = d;
      draw(d);
    },
    relabel() {
      maskCtl.relabel(t("kv.mask"), masks.map((m) => t(`kv.mask.${m}`)));
      cacheCtl.relabel(t("kv.cache"), [t("kv.on"), t("kv.off")]);
      resetBtn.textContent = t("kv.reset");
      keyLegend.relabel();
      syncControls();
      if (data) draw(data);
    },
    destroy() {
      player.destroy();
      speak.cancel();
    },
  };
}
