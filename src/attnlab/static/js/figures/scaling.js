// FIG 3 (§4 part 1): without the 1/√d_k, softmax saturates as the dimension grows. 200 draws of
// one query and 16 keys with standard-normal components (attnlab.figures.scaling). Left: the
// scores, red unscaled q·k, amber scaled q·k/√d_k, on a fixed ±40 axis whose end bins hold the
// overflow. Middle: one draw's 16 weights, scaled or not as switched. Right: mean largest weight
// (solid) and mean Jacobian norm (dashed) against d_k on a log axis, with the current d_k marked.

import { barChart } from "../lib/bars.js";
import { lineChart, onRescale, plotBox } from "../lib/chart.js";
import { PALETTE } from "../lib/colours.js";
import { button, segmented } from "../lib/controls.js";
import { num, weight } from "../lib/format.js";
import { readoutList } from "../lib/readouts.js";
import { slider } from "../lib/slider.js";
import { axis, clear, el, html, linear } from "../lib/svg.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("scaling");

const W = 360; // px size of the side panels' drawings; the middle one is narrower
const H = 250;
const MODES = ["unscaled", "scaled"];
const COLOUR = { unscaled: PALETTE.red, scaled: PALETTE.attention };

/** The d_k slider's stops: 2^i and 1.5 · 2^i in [lo, hi] (1, 2, 3, 4, 6, 8, 12, … 1024), a log scale. */
function dkStops(lo, hi) {
  const out = [];
  for (let p = 1; p <= hi; p *= 2) {
    if (p >= lo) out.push(p);
    if (p > 1 && 1.5 * p >= lo && 1.5 * p <= hi) out.push(1.5 * p);
  }
  return out;
}

/** The stop nearest to v on the log scale (a link may hold a d_k between stops). */
function nearestStop(stops, v) {
  const gap = (i) => Math.abs(Math.log(stops[i] / v));
  return stops.reduce((best, _, i) => (gap(i) < gap(best) ? i : best), 0);
}

function niceMax(x) {
  const mag = 10 ** Math.floor(Math.log10(Math.max(x, 1)));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * mag).find((v) => v >= x);
}

const HIST_M = { top: 22, right: 12, bottom: 40, left: 48 }; // the histogram's margins (px)

/** A closed step outline of a histogram: counts over bins [edges[i], edges[i + 1]). */
function stepPath(counts, edges, x, y) {
  let d = `M${x(edges[0]).toFixed(1)} ${y(0).toFixed(1)}`;
  counts.forEach((c, i) => {
    d += `V${y(c).toFixed(1)}H${x(edges[i + 1]).toFixed(1)}`;
  });
  return `${d}V${y(0).toFixed(1)}Z`;
}

/** A dashed box over each end bin that holds scores, and how many, in the series' colour. */
function markOverflow(layer, data, { x, y, t }) {
  clear(layer);
  const last = data.hist_edges.length - 2;
  [[0, "start", "va.sc.overflow.low"], [last, "end", "va.sc.overflow.high"]].forEach(([bin, anchor, key]) => {
    MODES.forEach((mode, k) => {
      const c = data[`hist_${mode}`][bin];
      if (!c) return;
      const [x0, x1] = [x(data.hist_edges[bin]), x(data.hist_edges[bin + 1])];
      el("rect", { x: x0 - 1, y: y(c) - 1, width: x1 - x0 + 2, height: y(0) - y(c) + 1, class: "overflow-bin" }, layer);
      el("text", { x: bin === 0 ? x0 : x1, y: HIST_M.top - 8 + 11 * k, "text-anchor": anchor, class: "overflow-label",
        fill: COLOUR[mode], text: t(key, { n: c }) }, layer);
    });
  });
}

/** Left: both histograms as step areas, the switched-on one in front; returns draw(data). */
function histogramPanel(parent, { t, ctx }) {
  const svg = el("svg", { class: "histogram", role: "img", viewBox: `0 0 ${W} ${H}` }, parent);
  const axes = el("g", {}, svg);
  const layers = Object.fromEntries(MODES.map((mode) => {
    const g = el("g", { class: `hist-series hist-${mode}` }, svg);
    if (mode === "scaled") ctx.hl(g, "sqrtd");
    return [mode, g];
  }));
  const marks = el("g", { class: "overflow" }, svg);
  let last = null;
  const draw = (data) => {
    last = data;
    const b = plotBox(svg, { width: W, height: H, margin: HIST_M }); // grows with the labels
    const x = linear([-40, 40], [b.left, b.right]);
    const y = linear([0, niceMax(Math.max(...data.hist_unscaled, ...data.hist_scaled))], [b.bottom, b.top]);
    clear(axes);
    axis(axes, x, { orient: "bottom", at: b.bottom, ticks: [-40, -20, 0, 20, 40], em: b.em, label: t("va.sc.hist.x") });
    axis(axes, y, { orient: "left", at: b.left, ticks: y.ticks(4), em: b.em, label: t("va.sc.hist.y"), grid: b.right - b.left });
    for (const mode of MODES) {
      clear(layers[mode]);
      el("path", { d: stepPath(data[`hist_${mode}`], data.hist_edges, x, y) }, layers[mode]);
      layers[mode].classList.toggle("is-faded", (mode === "scaled") !== data.settings.scaled);
    }
    svg.appendChild(layers[data.settings.scaled ? "scaled" : "unscaled"]);
    svg.appendChild(marks);
    markOverflow(marks, data, { x, y, t });
    svg.setAttribute("aria-label", t("va.sc.hist.aria", { raw: num(data.score_std_unscaled), scaled: num(data.score_std_scaled) }));
  };
  onRescale(svg, () => last && draw(last));
  return draw;
}

/** Right: the four curves over d_k = 1 … 1024 and the current-d_k marker with its two dots. */
function curvesPanel(parent, { t, ctx }) {
  const svg = el("svg", { class: "curves", role: "img" }, parent);
  const chart = lineChart(svg, { width: W, height: H, margin: { top: 22, right: 14, bottom: 40, left: 48 },
    x: { domain: [1, 1024], log: true, label: "dₖ" }, y: { domain: [0, 1], label: t("va.sc.curves.y") } });
  for (const mode of MODES) {
    for (const [kind, dash] of [["max_weight", ""], ["jacobian_norm", "6 4"]]) {
      const path = chart.series(`${kind}_${mode}`, { colour: COLOUR[mode], dash, width: 2.2 });
      if (mode === "scaled") ctx.hl(path, "sqrtd");
    }
  }
  const marker = el("g", { class: "dk-marker-group" }, svg);
  const state = { data: null };
  chart.onRedraw(() => drawMarker());

  function drawMarker() {
    clear(marker);
    const s = chart.scales();
    const px = s.x(ctx.settings.d_k);
    el("line", { x1: px, x2: px, y1: s.y(0), y2: s.y(1), class: "dk-marker" }, marker);
    el("text", { x: px + (px > W * 0.75 ? -5 : 5), y: s.y(1) - 6, "text-anchor": px > W * 0.75 ? "end" : "start",
      class: "dk-label", text: `dₖ = ${ctx.settings.d_k}` }, marker);
    const d = state.data;
    if (!d || d.settings.d_k !== ctx.settings.d_k) return; // the dots wait for this d_k's numbers
    const mode = d.settings.scaled ? "scaled" : "unscaled";
    for (const kind of ["max_weight", "jacobian_norm"]) {
      el("circle", { cx: px, cy: s.y(d[`${kind}_${mode}`]), r: 4.5, fill: COLOUR[mode], class: `dk-dot dot-${kind}` }, marker);
    }
  }

  return {
    drawMarker,
    update(data) {
      state.data = data;
      for (const mode of MODES) {
        for (const kind of ["max_weight", "jacobian_norm"]) {
          chart.setPoints(`${kind}_${mode}`, data.grid_d_k.map((dk, i) => [dk, data[`curve_${kind}_${mode}`][i]]));
        }
      }
      chart.draw();
      drawMarker();
      svg.setAttribute("aria-label", t("va.sc.curves.aria", { dk: ctx.settings.d_k }));
    },
  };
}

function legend(parent, t, items) {
  const ul = html("ul", { class: "legend" }, parent);
  for (const { key, colour, dash = "", fill = null } of items) {
    const li = html("li", {}, ul);
    const sample = el("svg", { width: 24, height: 12, "aria-hidden": "true" }, li);
    if (fill) el("rect", { x: 3, y: 1, width: 18, height: 10, fill, stroke: colour }, sample);
    else el("line", { x1: 1, x2: 23, y1: 6, y2: 6, stroke: colour, "stroke-width": 2.2, "stroke-dasharray": dash || null }, sample);
    html("span", { text: t(key) }, li);
  }
}

/** The controls: d_k slider (log stops), scaling on/off, reseed. Returns the reseed button. */
function toolbar(root, { t, ctx, onDk }) {
  const dk = ctx.params.find((p) => p.name === "d_k");
  const seedMax = ctx.params.find((p) => p.name === "seed").max;
  const bar = html("div", { class: "toolbar" }, root);
  const stops = dkStops(dk.min, dk.max);
  // The slider moves over stop indices; its label shows d_k itself (a linked d_k between stops
  // sits at the nearest stop but keeps its own value until the slider moves).
  slider(bar, { name: "sc-dk", label: "dₖ", min: 0, max: stops.length - 1, value: nearestStop(stops, ctx.settings.d_k),
    format: (i) => String(i === nearestStop(stops, ctx.settings.d_k) ? ctx.settings.d_k : stops[i]),
    onChange: (i) => {
      ctx.set({ d_k: stops[i] });
      onDk();
    } });
  const scaledCtl = segmented(bar, { name: "sc-scaled", label: t("va.sc.scaling"), value: ctx.settings.scaled,
    options: [{ value: true, label: t("va.sc.on") }, { value: false, label: t("va.sc.off") }],
    onChange: (v) => ctx.set({ scaled: v === true || v === "true" }) });
  ctx.hl(scaledCtl.el, "sqrtd");
  const actions = html("div", { class: "actions" }, bar);
  const reseed = button(actions, { label: t("va.sc.reseed", { seed: ctx.settings.seed }),
    onClick: () => ctx.set({ seed: (ctx.settings.seed + 1) % (seedMax + 1) }) });
  reseed.dataset.role = "reseed";
  return reseed;
}

/** Middle: one draw's 16 weights, red or amber as the scaling switch says; returns draw(data). */
function weightsPanel(parent, title, { t }) {
  const svg = el("svg", { class: "weights", role: "img" }, parent);
  const bars = barChart(svg, { width: 240, height: H, count: 16, domain: [0, 1],
    margin: { top: 22, right: 6, bottom: 40, left: 50 }, xLabel: t("va.sc.weights.x"),
    categories: (i) => ([0, 3, 7, 11, 15].includes(i) ? String(i + 1) : null), yLabel: "α", yFormat: String });
  bars.addSeries("alpha", { widthFraction: 0.72 });
  return (data) => {
    const mode = data.settings.scaled ? "scaled" : "unscaled";
    bars.set("alpha", data.weights_one_draw);
    bars.rects("alpha").forEach((r) => r.setAttribute("fill", COLOUR[mode]));
    title.textContent = t(`va.sc.panel.weights.${mode}`);
    svg.setAttribute("aria-label", t("va.sc.weights.aria", { max: weight(Math.max(...data.weights_one_draw)) }));
  };
}

/** The readouts: measured against theory for the spread, both modes for the saturation. */
function showReadouts(readouts, t, data) {
  const { d_k: d, scaled, seed } = data.settings;
  const mode = scaled ? "scaled" : "unscaled";
  readouts.set("std", t("va.sc.ro.std.value", { raw: num(data.score_std_unscaled), theory: num(data.score_std_theory),
    d, scaled: num(data.score_std_scaled) }), data.score_std_unscaled);
  readouts.set("maxw", t("va.sc.ro.pair", { raw: weight(data.max_weight_unscaled), scaled: weight(data.max_weight_scaled) }),
    data[`max_weight_${mode}`]);
  readouts.set("jac", t("va.sc.ro.jac.value", { raw: num(data.jacobian_norm_unscaled), scaled: num(data.jacobian_norm_scaled),
    ratio: num(data.jacobian_ratio, 2) }), data[`jacobian_norm_${mode}`]);
  readouts.set("draws", t("va.sc.ro.draws.value", { n: data.n_draws, keys: data.n_keys, seed }), seed);
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  root.classList.add("fig-scaling");
  const reseed = toolbar(root, { t, ctx, onDk: () => curves.drawMarker() }); // the marker moves at once
  const panels = html("div", { class: "panels" }, root);
  const panel = (key) => {
    const div = html("div", { class: `panel panel-${key}` }, panels);
    return [div, html("h3", { class: "panel-title", text: t(`va.sc.panel.${key}`) }, div)];
  };
  const [histDiv] = panel("hist");
  const drawHistogram = histogramPanel(histDiv, { t, ctx });
  legend(histDiv, t, [
    { key: "va.sc.legend.unscaled", colour: PALETTE.red, fill: "rgb(213 94 0 / 0.3)" },
    { key: "va.sc.legend.scaled", colour: PALETTE.attention, fill: "rgb(230 159 0 / 0.38)" },
  ]);
  const drawWeights = weightsPanel(...panel("weights"), { t });
  const [curvesDiv] = panel("curves");
  const curves = curvesPanel(curvesDiv, { t, ctx });
  legend(curvesDiv, t, [
    { key: "va.sc.legend.maxw", colour: PALETTE.ink },
    { key: "va.sc.legend.jac", colour: PALETTE.ink, dash: "6 4" },
  ]);
  const readouts = readoutList(root, ["std", "maxw", "jac", "draws"].map((key) => ({ key, label: t(`va.sc.ro.${key}`) })));

  return {
    update(data) {
      drawHistogram(data);
      drawWeights(data);
      curves.update(data);
      reseed.textContent = t("va.sc.reseed", { seed: data.settings.seed });
      showReadouts(readouts, t, data);
      root.dataset.scaled = String(data.settings.scaled);
    },
  };
}
