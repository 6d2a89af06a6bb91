// FIG 1 (§2): attention as a soft dictionary lookup. Left, key space (d = 2): the amber query
// arrow q (drag its tip) and the five keys k_i (draggable) with their scores s_i. Middle, the
// table: the values v_i are block positions (draggable), the output ŷ is an amber ring, and a
// line from ŷ to each block is as thick as that block's weight. Right, the weights α_i.
// The API (attnlab.figures.lookup) computes every number; this view draws handles where the
// reader puts them at once and the numbers when the answer comes.

import { barChart } from "../lib/bars.js";
import { letterInk, objectColour, PALETTE } from "../lib/colours.js";
import { segmented } from "../lib/controls.js";
import { clamp, fixed, num, weight } from "../lib/format.js";
import { arrow } from "../lib/marks.js";
import { readoutList } from "../lib/readouts.js";
import { attrs, axis, clear, draggable, el, html, linear } from "../lib/svg.js";
import { tableScene } from "../lib/table.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("lookup");

const KEY_STEP = 0.1; // arrow keys move q or a key by 0.1 (Shift: 1)
const SIZE = 340; // key space and table are drawn in the same px size, side by side
const VIEW_BOUND = 5; // the key space's usual half-width (see mount)

const pairs = (flat) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);
const flatten = (list) => list.flatMap(([a, b]) => [+a.toFixed(2), +b.toFixed(2)]);

/** The key plane: grid, axes through the origin, the default keys' circle; scales both ways. */
function keyPlane(panel, { t, bound, radius }) {
  const svg = el("svg", { class: "key-space", viewBox: `0 0 ${SIZE} ${SIZE}`, role: "group",
    "aria-label": t("va.lk.keys.aria") }, panel);
  const pad = 22;
  const sx = linear([-bound, bound], [pad, SIZE - pad]);
  const sy = linear([-bound, bound], [SIZE - pad, pad]);
  const grid = el("g", { class: "key-grid" }, svg);
  for (let v = -Math.floor(bound); v <= bound; v += 1) {
    el("line", { x1: sx(v), x2: sx(v), y1: sy(-bound), y2: sy(bound), class: "grid-line" }, grid);
    el("line", { x1: sx(-bound), x2: sx(bound), y1: sy(v), y2: sy(v), class: "grid-line" }, grid);
  }
  const ticks = [-8, -6, -4, -2, 2, 4, 6, 8].filter((v) => Math.abs(v) <= bound);
  axis(grid, sx, { orient: "bottom", at: sy(0), ticks });
  axis(grid, sy, { orient: "left", at: sx(0), ticks });
  const unit = sx(1) - sx(0);
  el("circle", { cx: sx(0), cy: sy(0), r: radius * unit, class: "unit-circle" }, grid);
  return {
    svg,
    unit,
    toPx: ([a, b]) => [sx(a), sy(b)],
    fromPx: ([px, py]) => [clamp(sx.invert(px), -bound, bound), clamp(sy.invert(py), -bound, bound)],
  };
}

const translate = (g, [x, y]) => g.setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);

/** The query arrow (in `layer`) and the handle at its tip (on top); returns draw(q). */
function queryArrow(plane, layer, { t, ctx, onEnd }) {
  const handle = el("g", { class: "q-handle" }, plane.svg);
  el("circle", { r: 15, class: "hit" }, handle);
  el("circle", { r: 11, class: "focus-ring" }, handle);
  const label = (q) => t("va.lk.q.aria", { x: fixed(q[0], 1), y: fixed(q[1], 1) });
  function draw(q) {
    clear(layer);
    const tip = plane.toPx(q);
    arrow(layer, plane.toPx([0, 0]), tip, { colour: PALETTE.query, width: 3 });
    el("text", { x: tip[0] + 10, y: tip[1] - 10, class: "vec-label q-label", text: "q" }, layer);
    translate(handle, tip);
  }
  draggable(handle, { get: () => plane.toPx(ctx.settings.q), step: KEY_STEP * plane.unit, label: label(ctx.settings.q),
    set: (p) => {
      const q = flatten([plane.fromPx(p)]);
      draw(q); // the arrow follows the pointer now; the numbers follow when the answer comes
      ctx.set({ q });
    },
    onEnd: () => {
      handle.setAttribute("aria-label", label(ctx.settings.q));
      onEnd();
    } });
  return draw;
}

const KEY_R = 8; // a key dot's radius (drawing units)

/** The five key dots (draggable, lettered); returns draw() placing them from the settings. */
function keyDots(plane, layer, { t, ctx, onEnd }) {
  const keyAt = (i) => pairs(ctx.settings.keys)[i];
  const handles = ctx.constants.colours.map((name, i) => {
    const g = el("g", { class: "key-handle" }, layer);
    el("circle", { r: 11, class: "focus-ring" }, g);
    el("circle", { r: KEY_R, fill: objectColour(name), class: "key-dot" }, g);
    el("text", { dy: "0.35em", "text-anchor": "middle", class: "key-letter", "aria-hidden": "true",
      fill: letterInk(name), text: t(`colour.${name}.letter`) }, g);
    const label = () => t("va.lk.key.aria", { colour: t(`colour.${name}`), x: fixed(keyAt(i)[0], 1), y: fixed(keyAt(i)[1], 1) });
    draggable(g, { get: () => plane.toPx(keyAt(i)), step: KEY_STEP * plane.unit, label: label(),
      set: (p) => {
        const list = pairs(ctx.settings.keys);
        list[i] = plane.fromPx(p);
        ctx.set({ keys: flatten(list) });
        draw();
      },
      onEnd: () => {
        g.setAttribute("aria-label", label());
        onEnd();
      } });
    return g;
  });
  function draw() {
    handles.forEach((g, i) => translate(g, plane.toPx(keyAt(i))));
  }
  return draw;
}

/**
 * Each key's score beside it, pushed outwards from the origin so it clears the arrow, and far
 * enough that its box, measured as drawn (labels grow on a phone), clears the key's dot.
 */
function drawScores(plane, layer, keys, scores) {
  clear(layer);
  pairs(keys).forEach((k, i) => {
    const len = Math.hypot(k[0], k[1]);
    const [ux, uy] = len > 0.05 ? [k[0] / len, k[1] / len] : [1, 0];
    const [px, py] = plane.toPx(k);
    const label = el("text", { x: px, y: py, dy: "0.35em", "text-anchor": "middle",
      class: "score-label", "data-key": i, text: fixed(scores[i], 2) }, layer);
    const box = label.getBBox?.() ?? { width: 0, height: 0 };
    const reach = Math.max(22, KEY_R + 3 + (Math.abs(ux) * box.width + Math.abs(uy) * box.height) / 2);
    attrs(label, { x: (px + ux * reach).toFixed(1), y: (py - uy * reach).toFixed(1) });
  });
}

/** Left: key space. Keys under the arrow (it lets pointer events through, css/figures/lookup.css), the
 * scores and the arrow's handle on top. */
function keySpace(panel, { t, ctx, bound, onEnd }) {
  // the circle the default keys lie on (attnlab.figures.lookup.KEY_RADIUS), from the API's default
  const k0 = ctx.params.find((p) => p.name === "keys").default; // always described: no second default here
  const plane = keyPlane(panel, { t, bound, radius: Math.hypot(k0[0], k0[1]) });
  const keys = ctx.hl(el("g", { class: "keys" }, plane.svg), "k");
  const query = ctx.hl(el("g", { class: "query" }, plane.svg), "q");
  const scores = el("g", { class: "scores" }, plane.svg);
  const drawKeys = keyDots(plane, keys, { t, ctx, onEnd });
  const drawQuery = queryArrow(plane, query, { t, ctx, onEnd });
  drawKeys();
  drawQuery(ctx.settings.q);
  let last = null; // the scores drawn, placed again when the labels grow or shrink
  plane.svg.addEventListener("svgscale", () => last && drawScores(plane, scores, ctx.settings.keys, last));
  return { drawScores: (values) => drawScores(plane, scores, ctx.settings.keys, (last = values)) };
}

/** The table's overlay: the hull, lines ŷ → v_i (width ∝ α_i), ŷ itself and the values' mean. */
function drawOutput(scene, ctx, data) {
  const { x, y } = scene;
  clear(scene.under);
  clear(scene.over);
  const hull = data.hull.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(" ");
  el(data.hull.length > 2 ? "polygon" : "polyline", { points: hull, class: "hull" }, scene.under);
  const [ox, oy] = [x(data.output[0]), y(data.output[1])];
  const lines = ctx.hl(el("g", { class: "weight-lines" }, scene.under), "alpha");
  scene.positions().forEach(([a, b], i) => {
    const w = data.weights[i];
    if (w < 0.005) return; // thinner than a hairline: leave it out rather than draw noise
    el("line", { x1: ox, y1: oy, x2: x(a), y2: y(b), "stroke-width": (0.6 + 9 * w).toFixed(2),
      "stroke-opacity": (0.35 + 0.55 * w).toFixed(2), class: "weight-line" }, lines);
  });
  const [mx, my] = [x(data.values_mean[0]), y(data.values_mean[1])];
  const cross = `M${mx - 5} ${my}H${mx + 5}M${mx} ${my - 5}V${my + 5}`;
  el("path", { d: cross, class: "halo", "stroke-width": 4 }, scene.over);
  el("path", { d: cross, class: "values-mean" }, scene.over);
  el("circle", { cx: ox, cy: oy, r: 9, class: "halo output-halo" }, scene.over);
  el("circle", { cx: ox, cy: oy, r: 9, class: "output-ring" }, scene.over);
}

/** The table's legend: a small drawn sample of each mark, then its name. */
function legend(parent, t) {
  const ul = html("ul", { class: "legend" }, parent);
  const samples = [
    ["va.lk.legend.output", (g) => el("circle", { cx: 11, cy: 6, r: 5, class: "output-ring" }, g)],
    ["va.lk.legend.lines", (g) => el("line", { x1: 2, y1: 6, x2: 20, y2: 6, class: "weight-line", "stroke-width": 4 }, g)],
    ["va.lk.legend.mean", (g) => el("path", { d: "M6 6H16M11 1V11", class: "values-mean" }, g)],
    ["va.lk.legend.hull", (g) => el("rect", { x: 2, y: 2, width: 18, height: 8, class: "hull" }, g)],
  ];
  for (const [key, draw] of samples) {
    const li = html("li", {}, ul);
    draw(el("svg", { width: 22, height: 12, "aria-hidden": "true" }, li));
    html("span", { text: t(key) }, li);
  }
}

/** Middle: the table with draggable value blocks; draw(data) adds ŷ, the lines and the hull. */
function tablePanel(panel, { t, ctx, onEnd }) {
  // below the table: its ticks and "cm" (tableScene), with room for them to grow on a phone
  const svg = el("svg", { class: "scene", viewBox: `0 0 ${SIZE + 40} ${SIZE + 54}`, role: "group",
    "aria-label": t("va.lk.table.aria") }, panel);
  const scene = tableScene(svg, { x: 32, y: 8, size: SIZE, tableCm: ctx.constants.table_cm });
  ctx.hl(scene.blocks, "v");
  legend(panel, t);
  const state = { last: null };
  const blockLabel = (i, [a, b]) => t("va.lk.value.aria", { colour: t(`colour.${ctx.constants.colours[i]}`), x: Math.round(a), y: Math.round(b) });
  scene.setBlocks(pairs(ctx.settings.values).map((pos, i) => ({ pos, colour: objectColour(ctx.constants.colours[i]),
    label: blockLabel(i, pos), letter: t(`colour.${ctx.constants.colours[i]}.letter`),
    ink: letterInk(ctx.constants.colours[i]) })), {
    onMove: () => {
      ctx.set({ values: flatten(scene.positions()) });
      if (state.last) drawOutput(scene, ctx, state.last); // lines follow the block at once
    },
    onDrop: (i, pos) => {
      scene.handle(i)?.setAttribute("aria-label", blockLabel(i, pos));
      onEnd();
    },
  });
  return (data) => {
    state.last = data;
    drawOutput(scene, ctx, data);
  };
}

// The weights beside the two planes are as tall as they are; once the panels stack (a phone, a
// tablet) the weights have a row of their own and lie across it instead of standing 2:1 tall.
const WEIGHTS_BESIDE = { width: 200, height: SIZE };
const WEIGHTS_ACROSS = { width: 340, height: 190 };

/** Right: the five weights as bars in the objects' colours, each with its value on top. */
function weightsPanel(panel, { t, ctx, summary }) {
  const svg = el("svg", { class: "weights", role: "img" }, panel);
  const bars = barChart(svg, { ...WEIGHTS_BESIDE, count: ctx.constants.colours.length, domain: [0, 1],
    margin: { top: 16, right: 6, bottom: 30, left: 52 },
    categories: (i) => t(`colour.${ctx.constants.colours[i]}.letter`), yLabel: "α", yFormat: (v) => String(v) });
  ctx.hl(bars.addSeries("alpha", { widthFraction: 0.62 }), "alpha");
  bars.rects("alpha").forEach((r, i) => r.setAttribute("fill", objectColour(ctx.constants.colours[i])));
  const values = el("g", { class: "bar-values" }, svg);
  let last = [];
  const label = () => {
    clear(values);
    last.forEach((v, i) => {
      el("text", { x: bars.x(i) + bars.band / 2, y: bars.y(v) - 5, "text-anchor": "middle",
        class: "bar-value", "data-key": i, text: weight(v) }, values);
    });
  };
  bars.onRedraw(label);
  const table = panel.parentNode.querySelector(".panel-table");
  new ResizeObserver(() => {
    const across = panel.offsetTop > table.offsetTop; // not on the table's row any more
    if (across === svg.classList.contains("is-across")) return;
    svg.classList.toggle("is-across", across);
    bars.resize(across ? WEIGHTS_ACROSS : WEIGHTS_BESIDE);
  }).observe(panel.parentNode);
  return (w) => {
    last = w;
    bars.set("alpha", w);
    label();
    svg.setAttribute("aria-label", t("va.lk.weights.aria", { list: summary(w) }));
  };
}

function showReadouts(readouts, t, data) {
  const hard = data.settings.mode === "hard";
  readouts.set("grad", t(hard ? "va.lk.ro.grad.hard" : "va.lk.ro.grad", { g: num(data.grad_norm) }), data.grad_norm);
  readouts.set("output", t("va.lk.ro.output.value", { x: fixed(data.output[0]), y: fixed(data.output[1]) }),
    data.output.join(","));
  readouts.set("hull", t(data.in_hull ? "va.lk.ro.hull.yes" : "va.lk.ro.hull.no"), data.in_hull);
  const top = data.weights.indexOf(Math.max(...data.weights));
  readouts.set("max", `${weight(data.weights[top])} (${t(`colour.${data.colours[top]}`)})`, data.weights[top]);
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  // The key space shows ±5: room enough to point q at a key and make it long (weight > 0.9
  // from |q| ≈ 3), and the keys (radius 2) stay far enough apart to take with a finger. A link
  // holding larger numbers (the API allows ±8) widens it to the full range, so nothing is ever
  // drawn off the plot.
  const limit = ctx.params.find((p) => p.name === "q").max;
  const { q, keys } = ctx.settings;
  const bound = [...q, ...keys].some((v) => Math.abs(v) > VIEW_BOUND) ? limit : VIEW_BOUND;
  const view = { announce: false }; // say the new weights once the answer to a finished move comes
  const onEnd = () => { view.announce = true; };
  const summary = (w) => w.map((v, i) => `${t(`colour.${ctx.constants.colours[i]}`)} ${weight(v)}`).join(", ");
  root.classList.add("fig-lookup");

  const bar = html("div", { class: "toolbar" }, root);
  segmented(bar, { name: "lk-mode", label: t("va.lk.mode"), value: ctx.settings.mode,
    options: [{ value: "softmax", label: t("va.lk.softmax") }, { value: "hard", label: t("va.lk.hard") }],
    onChange: (mode) => ctx.set({ mode }) });
  const panels = html("div", { class: "panels" }, root);
  const panel = (key) => {
    const div = html("div", { class: `panel panel-${key}` }, panels);
    html("h3", { class: "panel-title", text: t(`va.lk.panel.${key}`) }, div);
    return div;
  };
  const space = keySpace(panel("keys"), { t, ctx, bound, onEnd });
  const drawTable = tablePanel(panel("table"), { t, ctx, onEnd });
  const drawWeights = weightsPanel(panel("weights"), { t, ctx, summary });
  const readouts = readoutList(root, [
    { key: "grad", label: "‖∂ŷ/∂q‖" },
    { key: "output", label: t("va.lk.ro.output") },
    { key: "hull", label: t("va.lk.ro.hull") },
    { key: "max", label: t("va.lk.ro.max"), hl: "alpha" },
  ]);
  html("p", { class: "hint", text: t("va.lk.hint") }, root);

  return {
    update(data) {
      space.drawScores(data.scores);
      drawTable(data);
      drawWeights(data.weights);
      showReadouts(readouts, t, data);
      root.dataset.mode = data.settings.mode;
      if (view.announce) {
        view.announce = false;
        ctx.announce(t("va.lk.announce", { list: summary(data.weights), g: num(data.grad_norm) }));
      }
    },
  };
}
