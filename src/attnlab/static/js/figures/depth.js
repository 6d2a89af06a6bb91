// FIG 5 (§4 part 3): 24 random, untrained Transformer blocks with their parts switched off.
// Top: the block's wiring, following the switches. Bottom: token diversity per layer (blue) and
// the residual stream's RMS per layer (amber), both on log axes with a line at the chosen layer,
// and the 8 × 8 cosine similarities of the tokens at that layer. The numbers come from
// GET /api/figures/depth (attnlab.figures.depth); this view only draws them.

import { blockDiagram } from "../lib/blockdiagram.js";
import { lineChart } from "../lib/chart.js";
import { PALETTE } from "../lib/colours.js";
import { button, segmented } from "../lib/controls.js";
import { fixed, num } from "../lib/format.js";
import { heatmap, heatmapKey } from "../lib/heatmap.js";
import { everyNthPower, scientific } from "../lib/powers.js";
import { readoutList } from "../lib/readouts.js";
import { settledAnnouncer } from "../lib/settledannounce.js";
import { slider } from "../lib/slider.js";
import { el, html } from "../lib/svg.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("depth");

// Fixed axes, so that switching a part off moves the curve instead of rescaling the chart:
// diversity reaches rounding error (~1e−16) when the tokens collapse; the RMS reaches ~1e9.
const DIVERSITY_DOMAIN = [1e-17, 1];
const RMS_DOMAIN = [1e-2, 1e9];
const CHART = { width: 330, height: 250, margin: { top: 12, right: 12, bottom: 44, left: 52 } };
const ANNOUNCE_MS = 500; // a drag changes the layer many times a second; say only where it stops

/** A log-y chart of one per-layer series with a vertical marker and a dot at the chosen layer. */
function layerChart(parent, { colour, domain, every, ariaKey, t, maxDepth }) {
  const svg = el("svg", { class: "chart layer-chart", role: "img" }, parent);
  const chart = lineChart(svg, { ...CHART, x: { domain: [0, maxDepth], label: t("dp.x") },
    y: { domain, log: true, label: "", format: everyNthPower(every) } });
  chart.series("v", { colour, width: 2.5 });
  const marker = el("g", { class: "layer-marker" }, svg);
  const line = el("line", { class: "layer-line" }, marker);
  const dot = el("circle", { r: 4.5, fill: colour, class: "layer-dot" }, marker);
  let last = null; // the marker's arguments, to re-place it when the chart re-fits its margins
  chart.onRedraw(() => last && view.draw(...last));
  const view = {
    svg,
    draw(values, layer, depth) {
      last = [values, layer, depth];
      chart.setDomain("x", [0, Math.max(depth, 1)]);
      chart.setLabels({ x: t("dp.x") });
      chart.setPoints("v", values.map((v, i) => [i, Math.max(v, domain[0])]));
      chart.draw();
      const s = chart.scales();
      const x = s.x(layer);
      line.setAttribute("x1", x);
      line.setAttribute("x2", x);
      line.setAttribute("y1", chart.box().top);
      line.setAttribute("y2", chart.box().bottom);
      dot.setAttribute("cx", x);
      dot.setAttribute("cy", s.y(Math.max(values[layer] ?? domain[0], domain[0])));
      svg.setAttribute("aria-label", t(ariaKey, { layer, value: num(values[layer], 2), depth }));
    },
  };
  return view;
}

function panel(parent, title) {
  const box = html("div", { class: "panel" }, parent);
  const heading = html("p", { class: "panel-title", text: title }, box);
  return { box, heading };
}

/** The 8 × 8 cosine similarities at one layer (lib/heatmap.js), labelled, with its colour key. */
function cosineMatrix(parent, t) {
  const N = 8;
  const [x, y, size] = [30, 24, 208];
  const svg = el("svg", { class: "cosine", viewBox: "0 0 260 290", role: "img" }, parent);
  for (let i = 0; i < N; i += 1) {
    const at = (i + 0.5) * (size / N);
    el("text", { x: x - 6, y: y + at, dy: "0.35em", "text-anchor": "end", class: "tick-label", text: i + 1 }, svg);
    el("text", { x: x + at, y: y - 6, "text-anchor": "middle", class: "tick-label", text: i + 1 }, svg);
  }
  const map = heatmap(svg, { x, y, width: size, height: size, rows: N, cols: N, className: "cosine-map" });
  el("rect", { x, y, width: size, height: size, class: "heat-frame" }, svg);
  const titles = [...map.g.children].map((cell) => el("title", {}, cell));
  heatmapKey(svg, { x, y: y + size + 16, width: size });
  const keyLabel = el("text", { x: x + size / 2, y: y + size + 54, "text-anchor": "middle", class: "axis-label" }, svg);
  return {
    svg,
    draw(matrix, layer, minCos) {
      map.set(matrix);
      titles.forEach((title, k) => {
        const [i, j] = [Math.floor(k / N), k % N];
        title.textContent = t("dp.cos.cell", { i: i + 1, j: j + 1, v: fixed(matrix[i][j], 3) });
      });
      svg.setAttribute("data-layer", String(layer));
      svg.setAttribute("aria-label", t("dp.cos.aria", { layer, min: fixed(minCos, 2) }));
      keyLabel.textContent = t("dp.cos.bar");
    },
    relabel() {
      keyLabel.textContent = t("dp.cos.bar");
    },
  };
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx); // reads ctx.lang at each call: always current
  const s = () => ctx.settings;
  const spec = (name) => ctx.params.find((p) => p.name === name); // ranges and choices: the server's
  let data = null;
  const speak = settledAnnouncer(ctx.announce, { delay: ANNOUNCE_MS });
  root.classList.add("fig-depth");

  // ---- controls ------------------------------------------------------------------------------
  const bar = html("div", { class: "toolbar" }, root);
  const onOff = () => [{ value: true, label: t("dp.on") }, { value: false, label: t("dp.off") }];
  const residualCtl = segmented(bar, { name: "dp-res", label: t("dp.residual"), value: s().residual,
    options: onOff(), onChange: (v) => change({ residual: v }) });
  const normCtl = segmented(bar, { name: "dp-norm", label: t("dp.norm"), value: s().norm,
    options: spec("norm").choices.map((v) => ({ value: v, label: t(`dp.norm.${v}`) })),
    onChange: (v) => change({ norm: v }) });
  const mlpCtl = segmented(bar, { name: "dp-mlp", label: t("dp.mlp"), value: s().mlp,
    options: onOff(), onChange: (v) => change({ mlp: v }) });
  const bar2 = html("div", { class: "toolbar" }, root);
  const depthCtl = slider(bar2, { name: "dp-depth", label: t("dp.depth"), value: s().depth, min: 1,
    max: spec("depth").max, onChange: setDepth });
  const layerCtl = slider(bar2, { name: "dp-layer", label: t("dp.layer"), value: Math.min(s().layer, s().depth),
    min: 0, max: s().depth, onChange: (v) => change({ layer: v }) });
  const actions = html("div", { class: "actions" }, bar2);
  const reseedBtn = button(actions, { label: t("dp.reseed"), onClick: reseed });

  // ---- drawing ---------------------------------------------------------------------------------
  const diagramSvg = el("svg", { class: "block-diagram-svg", role: "img" }, html("div", { class: "diagram" }, root));
  const diagram = blockDiagram(diagramSvg, t);
  const panels = html("div", { class: "panels" }, root);
  const divPanel = panel(panels, t("dp.diversity"));
  const diversity = layerChart(divPanel.box, { colour: PALETTE.value, domain: DIVERSITY_DOMAIN, every: 4, maxDepth: spec("depth").max,
    ariaKey: "dp.diversity.aria", t });
  const rmsPanel = panel(panels, t("dp.rms"));
  const rmsChart = layerChart(rmsPanel.box, { colour: PALETTE.attention, domain: RMS_DOMAIN, every: 2, maxDepth: spec("depth").max,
    ariaKey: "dp.rms.aria", t });
  const cosPanel = panel(panels, "");
  const cosine = cosineMatrix(cosPanel.box, t);
  const READOUTS = ["layer", "diversity", "rms", "cos"];
  const readouts = readoutList(root, READOUTS.map((key) => ({ key, label: t(`dp.ro.${key}`) })),
    { className: "depth-readouts" });

  // ---- reacting to the reader ------------------------------------------------------------------
  function change(partial) {
    speak.arm();
    ctx.set(partial);
    drawLocal();
  }

  function setDepth(depth) {
    // The layer follows the last block when it showed the last one, and never exceeds the depth.
    const { layer, depth: old } = s();
    const partial = { depth };
    if (layer >= old || layer > depth) partial.layer = depth;
    change(partial);
  }

  function reseed() {
    let seed = s().seed;
    while (seed === s().seed) seed = Math.floor(Math.random() * (spec("seed").max + 1));
    change({ seed });
  }

  // The layer can be redrawn from the last answer at once (it holds every layer's matrix); the
  // API's own answer for the new layer follows within a frame or two.
  function drawLocal() {
    syncControls();
    if (data && s().depth === data.layers.length - 1) draw(data, Math.min(s().layer, s().depth));
  }

  function syncControls() {
    const { residual, norm, mlp, depth, layer } = s();
    residualCtl.set(residual);
    normCtl.set(norm);
    mlpCtl.set(mlp);
    depthCtl.set(depth);
    layerCtl.setRange(0, depth);
    layerCtl.set(Math.min(layer, depth));
  }

  function value(key, text, v) {
    readouts.set(key, text);
    readouts.el.querySelector(`[data-readout="${key}"]`).setAttribute("data-value", String(v));
  }

  function draw(d, layer) {
    const depth = d.layers.length - 1;
    diagram.update(d.parts, depth);
    diversity.draw(d.diversity, layer, depth);
    rmsChart.draw(d.rms, layer, depth);
    const cos = d.cosine_all?.[layer] ?? d.cosine;
    const minCos = Math.min(...cos.flat());
    cosine.draw(cos, layer, minCos);
    cosPanel.heading.textContent = t("dp.cos", { layer });
    value("layer", t("dp.ro.layer.value", { layer, depth }), layer);
    value("diversity", scientific(d.diversity[layer], 2), d.diversity[layer]);
    value("rms", scientific(d.rms[layer], 3), d.rms[layer]);
    value("cos", fixed(minCos, 2), minCos);
    speak.say(() => t("dp.announce", { layer, depth, diversity: num(d.diversity[layer], 2),
      rms: num(d.rms[layer], 2), min: fixed(minCos, 2) }));
  }

  function relabel() {
    residualCtl.relabel(t("dp.residual"), [t("dp.on"), t("dp.off")]);
    normCtl.relabel(t("dp.norm"), spec("norm").choices.map((v) => t(`dp.norm.${v}`)));
    mlpCtl.relabel(t("dp.mlp"), [t("dp.on"), t("dp.off")]);
    depthCtl.relabel(t("dp.depth"));
    layerCtl.relabel(t("dp.layer"));
    reseedBtn.textContent = t("dp.reseed");
    divPanel.heading.textContent = t("dp.diversity");
    rmsPanel.heading.textContent = t("dp.rms");
    cosine.relabel();
    readouts.relabel(READOUTS.map((key) => ({ key, label: t(`dp.ro.${key}`) })));
    diagram.relabel(t);
    if (data) draw(data, data.layer_shown);
  }

  syncControls();

  return {
    update(d) {
      data = d;
      draw(d, d.layer_shown);
    },
    relabel,
    destroy() {
      speak.cancel();
    },
  };
}
