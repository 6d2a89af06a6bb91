// FIG 4 (§4 part 2): position encodings, and what happens with none (attnlab.figures.position).
// Top left: the sinusoidal table PE (positions across, dimensions down) with a box at position p.
// Top right: PE(p)·PE(p′)/(d/2) against p′. Bottom left: one RoPE pair; the dashed q and k are
// draggable, the solid q_m and k_n are rotated to positions m and n. Bottom right: a 6-waypoint
// reach through one random self-attention layer, mean-pooled; amber for the original order,
// purple outlines for the reversed order, drawn in the same slots so that equal means "coincide".

import { barChart } from "../lib/bars.js";
import { lineChart, onRescale } from "../lib/chart.js";
import { PALETTE } from "../lib/colours.js";
import { button, segmented, stepper } from "../lib/controls.js";
import { clamp, fixed, num } from "../lib/format.js";
import { heatmap, heatmapKey } from "../lib/heatmap.js";
import { arrow } from "../lib/marks.js";
import { readoutList } from "../lib/readouts.js";
import { axis, clear, draggable, el, fontGrowth, html, linear, localPoint } from "../lib/svg.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("position");

const ROPE_BOUND = 2.2; // the RoPE plot shows [−2.2, 2.2]²; q and k live in [−2, 2]²
const VEC_STEP = 0.05; // arrow keys move a RoPE handle this far (Shift: ten times)
const Q_COLOUR = PALETTE.query;
const K_COLOUR = PALETTE.key;

/** Top left: the PE heatmap and the box at p (drag it, click a column, or use ←/→ on it). */
function tablePanel(parent, { t, ctx, setP }) {
  const { n_positions: N_POS, d_pe: D_PE } = ctx.constants; // attnlab.figures.position
  const svg = el("svg", { class: "pe-table", viewBox: "0 0 480 262", role: "group",
    "aria-label": t("va.ps.table.aria") }, parent);
  const box = { x: 52, y: 8, width: 418, height: 192 };
  const map = heatmap(svg, { ...box, rows: D_PE, cols: N_POS });
  ctx.hl(map.g, "pe");
  const cw = map.cellWidth;
  // cell centres sit on the integers: position p is the column [p − ½, p + ½]
  const px = linear([-0.5, N_POS - 0.5], [box.x, box.x + box.width]);
  const py = linear([-0.5, D_PE - 0.5], [box.y, box.y + box.height]);
  const axes = el("g", {}, svg);
  const drawAxes = () => { // the titles clear the tick labels as drawn (they grow on a phone)
    const em = fontGrowth(svg);
    clear(axes);
    axis(axes, px, { orient: "bottom", at: box.y + box.height, ticks: [0, 16, 32, 48, 63], em,
      label: t("va.ps.table.x") });
    axis(axes, py, { orient: "left", at: box.x, ticks: [0, 8, 16, 24, 31], em, label: t("va.ps.table.y") });
  };
  drawAxes();
  onRescale(svg, drawAxes);
  heatmapKey(svg, { x: box.x + box.width - 130, y: 238, width: 130 });

  const handle = el("g", { class: "p-handle" }, svg);
  const tall = { y: box.y - 3, height: box.height + 6, width: cw + 4 };
  const halo = el("rect", { ...tall, class: "p-box-halo" }, handle);
  const frame = el("rect", { ...tall, class: "p-box" }, handle);
  const label = (p) => t("va.ps.p.aria", { p });
  const toP = (x) => clamp(Math.round(px.invert(x)), 0, N_POS - 1);
  function place(p) {
    for (const r of [halo, frame]) r.setAttribute("x", (px(p) - cw / 2 - 2).toFixed(1));
    handle.setAttribute("aria-label", label(p));
  }
  draggable(handle, { axis: "x", step: cw, label: label(ctx.settings.p),
    get: () => [px(ctx.settings.p), 0], set: ([x]) => setP(toP(x)) });
  map.g.addEventListener("pointerdown", (event) => {
    event.preventDefault(); // keep the focus on the box we are about to focus
    setP(toP(localPoint(map.g.firstChild, event)[0]));
    handle.focus({ preventScroll: true });
  });
  let filled = false;
  return {
    place,
    update(data) {
      if (filled) return; // the table never changes: colour its 2048 cells once
      filled = true;
      map.set(Array.from({ length: D_PE }, (_, j) => data.pe_table.map((row) => row[j])));
    },
  };
}

/** Top right: similarity of PE(p) to every PE(p′); the marker follows p at once. */
function similarityPanel(parent, { t, ctx }) {
  const N_POS = ctx.constants.n_positions;
  const svg = el("svg", { class: "pe-similarity", role: "img" }, parent);
  const chart = lineChart(svg, { width: 480, height: 262, margin: { top: 14, right: 14, bottom: 44, left: 48 },
    x: { domain: [0, N_POS - 1], label: t("va.ps.sim.x") }, y: { domain: [0, 1.05], label: t("va.ps.sim.y") } });
  ctx.hl(chart.series("similarity", { colour: PALETTE.value, width: 2.2 }), "pe");
  const marker = el("g", { class: "p-marker" }, svg);
  chart.draw();
  chart.onRedraw(() => place(ctx.settings.p));
  function place(p) {
    clear(marker);
    const s = chart.scales();
    el("line", { x1: s.x(p), x2: s.x(p), y1: s.y(0), y2: s.y(1.05), class: "dk-marker" }, marker);
    el("circle", { cx: s.x(p), cy: s.y(1), r: 4.5, fill: PALETTE.ink, class: "dk-dot" }, marker);
    el("text", { x: s.x(p) + (p > 48 ? -6 : 6), y: s.y(1.05) + 12, "text-anchor": p > 48 ? "end" : "start",
      class: "dk-label", text: `p = ${p}` }, marker);
  }
  return {
    place,
    update(data) {
      chart.setPoints("similarity", data.similarity.map((v, i) => [i, v]));
      chart.draw();
      place(ctx.settings.p); // where the reader has put p by now, not where it was asked
      svg.setAttribute("aria-label", t("va.ps.sim.aria", { p: ctx.settings.p }));
    },
  };
}

/** The RoPE plane, [−2.2, 2.2]² with the unit circle; scales, and arcs for the angles. */
function ropePlane(parent, { t }) {
  const S = 300;
  const svg = el("svg", { class: "rope", viewBox: `0 0 ${S} ${S}`, role: "group", "aria-label": t("va.ps.rope.aria") }, parent);
  const sx = linear([-ROPE_BOUND, ROPE_BOUND], [10, S - 10]);
  const sy = linear([-ROPE_BOUND, ROPE_BOUND], [S - 10, 10]);
  const unit = sx(1) - sx(0);
  axis(svg, sx, { orient: "bottom", at: sy(0), ticks: [-2, -1, 1, 2] });
  axis(svg, sy, { orient: "left", at: sx(0), ticks: [-2, -1, 1, 2] });
  el("circle", { cx: sx(0), cy: sy(0), r: unit, class: "rope-circle" }, svg);
  const lim = ROPE_BOUND - 0.2;
  const pt = (a, r) => [sx(0) + r * Math.cos(a), sy(0) - r * Math.sin(a)];
  return {
    svg,
    unit,
    toPx: ([a, b]) => [sx(a), sy(b)],
    fromPx: ([x, y]) => [+clamp(sx.invert(x), -lim, lim).toFixed(2), +clamp(sy.invert(y), -lim, lim).toFixed(2)],
    /** An arc at radius r turning counter-clockwise from the angle of `from` to that of `to`. */
    arc(layer, from, to, r, colour, text) {
      const a0 = Math.atan2(from[1], from[0]);
      let a1 = Math.atan2(to[1], to[0]);
      while (a1 < a0) a1 += 2 * Math.PI;
      const [[x0, y0], [x1, y1], [lx, ly]] = [pt(a0, r), pt(a1, r), pt((a0 + a1) / 2, r + 11)];
      el("path", { d: `M${x0.toFixed(1)} ${y0.toFixed(1)}A${r} ${r} 0 ${a1 - a0 > Math.PI ? 1 : 0} 0 ${x1.toFixed(1)} ${y1.toFixed(1)}`,
        class: "rope-arc", stroke: colour }, layer);
      el("text", { x: lx, y: ly, dy: "0.35em", "text-anchor": "middle", class: "rope-angle", fill: colour, text }, layer);
    },
  };
}

/** An arrow from the origin to `vec` with its name (and an optional subscript) at the tip. */
function namedArrow(plane, layer, vec, { colour, name, sub = "", width, dash = "" }) {
  const tip = plane.toPx(vec);
  arrow(layer, plane.toPx([0, 0]), tip, { colour, width, dash });
  const label = el("text", { x: tip[0] + 8, y: tip[1] + (sub ? -6 : 4), class: "vec-label", fill: colour, text: name }, layer);
  if (sub) el("tspan", { "baseline-shift": "sub", "font-size": "9.5px", text: sub }, label);
}

/** Bottom left: q and k (dashed, draggable) and q_m, k_n rotated by mω and nω (solid). */
function ropePanel(parent, { t, ctx }) {
  const plane = ropePlane(parent, { t });
  const originals = el("g", { class: "rope-originals" }, plane.svg);
  const rotated = ctx.hl(el("g", { class: "rope-rotated" }, plane.svg), "rope");
  const VECS = [["q", Q_COLOUR, "m"], ["k", K_COLOUR, "n"]];
  const handles = VECS.map(([name]) => {
    const g = el("g", { class: `rope-handle rope-handle-${name}` }, plane.svg);
    el("circle", { r: 13, class: "hit" }, g);
    el("circle", { r: 9, class: "focus-ring" }, g);
    const label = () => t(`va.ps.${name}.aria`, { x: fixed(ctx.settings[name][0], 2), y: fixed(ctx.settings[name][1], 2) });
    draggable(g, { get: () => plane.toPx(ctx.settings[name]), step: VEC_STEP * plane.unit, label: label(),
      set: (p) => {
        ctx.set({ [name]: plane.fromPx(p), shift: 0 });
        place(); // the dashed arrow follows now; the rotated one when the answer comes
      },
      onEnd: () => g.setAttribute("aria-label", label()) });
    return g;
  });
  function place() {
    clear(originals);
    VECS.forEach(([name, colour], i) => {
      namedArrow(plane, originals, ctx.settings[name], { colour, name, width: 1.5, dash: "5 4" });
      const [x, y] = plane.toPx(ctx.settings[name]);
      handles[i].setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
    });
  }
  return {
    place,
    update(data) {
      clear(rotated);
      const { q, k, m, n } = data.settings;
      plane.arc(rotated, q, data.rope_q_m, plane.unit * 0.4, Q_COLOUR, `${m}ω`);
      plane.arc(rotated, k, data.rope_k_n, plane.unit * 0.75, K_COLOUR, `${n}ω`);
      namedArrow(plane, rotated, data.rope_q_m, { colour: Q_COLOUR, name: "q", sub: "m", width: 3 });
      namedArrow(plane, rotated, data.rope_k_n, { colour: K_COLOUR, name: "k", sub: "n", width: 3 });
    },
  };
}

/** Under the RoPE plot: m and n steppers and "m, n + 1"; returns {shift, sync(m, n)}. */
function ropeControls(parent, { t, ctx, onShift }) {
  const N_POS = ctx.constants.n_positions;
  const bar = html("div", { class: "toolbar" }, parent);
  const mCtl = stepper(bar, { name: "ps-m", label: "m", value: ctx.settings.m, min: 0, max: N_POS - 1, onChange: (m) => ctx.set({ m, shift: 0 }) });
  const nCtl = stepper(bar, { name: "ps-n", label: "n", value: ctx.settings.n, min: 0, max: N_POS - 1, onChange: (n) => ctx.set({ n, shift: 0 }) });
  const shift = button(bar, { label: t("va.ps.shift"), onClick: () => {
    const { m, n } = ctx.settings;
    if (Math.max(m, n) >= N_POS - 1) return;
    ctx.set({ m: m + 1, n: n + 1, shift: (ctx.settings.shift ?? 0) + 1 }); // q and k stay; only both positions move
    mCtl.set(m + 1);
    nCtl.set(n + 1);
    onShift();
  } });
  shift.dataset.role = "shift";
  return { sync: (m, n) => { shift.disabled = Math.max(m, n) >= N_POS - 1; } };
}

/** Bottom right: the reach (small, numbered in input order) and the pooled outputs as bars. */
function poolPanel(parent, { t }) {
  const svg = el("svg", { class: "pooled", role: "img" }, parent);
  // the inset's 142 units stay; the bars' own margins grow with their labels on a small screen
  const bars = barChart(svg, { width: 480, height: 262, count: 8, domain: [-2.5, 2.5],
    margin: { top: 30, right: 8, bottom: 44, left: 44 }, fixed: { left: 142 },
    categories: (i) => String(i + 1), xLabel: t("va.ps.pool.x"), yLabel: t("va.ps.pool.y"),
    yTicks: [-2, -1, 0, 1, 2] });
  bars.addSeries("original", { className: "pooled-original", widthFraction: 0.62 });
  bars.addSeries("reversed", { className: "pooled-reversed", widthFraction: 0.62 });
  // the inset's title above everything, where it has the drawing's whole width
  el("text", { x: 4, y: 16, class: "axis-label", text: t("va.ps.pool.reach") }, svg);
  const inset = el("g", { class: "trajectory", transform: "translate(4 44)" }, svg);
  const s = linear([0, 80], [0, 128]);
  const sy = linear([0, 80], [128, 0]);
  el("rect", { width: 128, height: 128, rx: 4, class: "table-top" }, inset);
  const path = el("g", {}, inset);

  function drawPath(waypoints, reversed) {
    clear(path);
    const pts = waypoints.map(([a, b]) => [s(a), sy(b)]);
    el("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: "trajectory-path" }, path);
    const order = reversed ? [...pts].reverse() : pts;
    const colour = reversed ? K_COLOUR : Q_COLOUR;
    arrow(path, order[order.length - 2], order[order.length - 1], { colour, width: 2.2 });
    order.forEach(([x, y], i) => {
      el("circle", { cx: x, cy: y, r: 6.5, fill: colour, class: "waypoint" }, path);
      el("text", { x, y, dy: "0.35em", "text-anchor": "middle", class: "waypoint-label", fill: "#fff", text: i + 1 }, path);
    });
  }
  return (data, reversed) => {
    // a fixed ±2.5 keeps the PE modes comparable; it only widens if a bar would not fit
    const top = Math.ceil(Math.max(2.5, ...data.pooled_original.map(Math.abs), ...data.pooled_reversed.map(Math.abs)) * 2) / 2;
    if (top !== bars.y.domain[1]) bars.setDomain([-top, top]);
    bars.set("original", data.pooled_original);
    bars.set("reversed", data.pooled_reversed);
    bars.show("reversed", reversed);
    drawPath(data.waypoints, reversed);
    svg.setAttribute("aria-label", t(reversed ? "va.ps.pool.aria.both" : "va.ps.pool.aria", { d: num(data.pooled_diff_max_abs, 2) }));
  };
}

/** Bottom right's controls and drawing: PE switch, "reverse" toggle, bars; returns show(data). */
function poolControls(parent, { t, ctx, readouts }) {
  let last = null; // the latest answer, redrawn when the toggle flips
  const bar = html("div", { class: "toolbar" }, parent);
  segmented(bar, { name: "ps-pe", label: t("va.ps.pe"), value: ctx.settings.pe,
    options: ["none", "sinusoidal", "rope"].map((v) => ({ value: v, label: t(`va.ps.pe.${v}`) })),
    onChange: (pe) => ctx.set({ pe }) });
  const reverse = button(bar, { label: t("va.ps.reverse"), onClick: () => {
    ctx.set({ reversed: !ctx.settings.reversed });
    show(last, { say: true });
  } });
  reverse.dataset.role = "reverse";
  const drawPool = poolPanel(parent, { t });
  /** The bars (the reversed order's only when the toggle is on) and the difference readout. */
  function show(data, { say = false } = {}) {
    last = data;
    const on = Boolean(ctx.settings.reversed);
    reverse.setAttribute("aria-pressed", String(on));
    if (!data) return;
    drawPool(data, on);
    const vars = { pe: t(`va.ps.pe.${data.settings.pe}`), abs: num(data.pooled_diff_max_abs, 2),
      rel: num(data.pooled_diff_relative, 2) };
    readouts.set("diff", on ? t("va.ps.ro.diff.value", vars) : t("va.ps.ro.diff.hidden"), on ? data.pooled_diff_relative : "");
    if (say && on) ctx.announce(t("va.ps.announce.diff", vars));
  }
  return show;
}

/** The RoPE score readout: q_m·k_n, with m, n, n − m and the unrotated q·k beside it. */
function scoreText(t, data) {
  const { m, n } = data.settings;
  return t("va.ps.ro.score.value", { s: fixed(data.rope_score, 3), m, n, d: num(n - m),
    raw: fixed(data.rope_score_unrotated, 3) });
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  const view = { announceScore: false }; // say the score once the answer to "m, n + 1" comes
  root.classList.add("fig-position");
  const panels = html("div", { class: "panels" }, root);
  const panel = (key) => {
    const div = html("div", { class: `panel panel-${key}` }, panels);
    html("h3", { class: "panel-title", text: t(`va.ps.panel.${key}`) }, div);
    return div;
  };
  const setP = (p) => {
    if (ctx.set({ p }).length) placeP(); // the box and the marker move now, the curve follows
  };
  const table = tablePanel(panel("table"), { t, ctx, setP });
  const similarity = similarityPanel(panel("similarity"), { t, ctx });
  const placeP = () => {
    table.place(ctx.settings.p);
    similarity.place(ctx.settings.p);
  };
  const ropeDiv = panel("rope");
  const rope = ropePanel(ropeDiv, { t, ctx });
  const ropeCtl = ropeControls(ropeDiv, { t, ctx, onShift: () => { view.announceScore = true; } });
  const poolDiv = panel("pool");
  const readouts = readoutList(root, [
    { key: "score", label: t("va.ps.ro.score"), hl: "rope" },
    { key: "diff", label: t("va.ps.ro.diff") },
  ]);
  const showPool = poolControls(poolDiv, { t, ctx, readouts });
  placeP();
  rope.place();
  showPool(null);

  return {
    update(data) {
      table.update(data);
      similarity.update(data);
      rope.update(data);
      readouts.set("score", scoreText(t, data), data.rope_score);
      ropeCtl.sync(data.settings.m, data.settings.n);
      if (view.announceScore) ctx.announce(scoreText(t, data));
      view.announceScore = false;
      showPool(data);
    },
  };
}
