// FIG 2, left panel overlay: what both models answer for the display scene, and where the
// attention model looked. Fetch: dashed circle = truth, thick ✚ = attention, thin ✕ = MLP.
// Vector (p_A − p_B, drawn from B): dashed arrow = truth, thick arrow with ✚ tip = attention,
// thin arrow with ✕ tip = MLP. Rings around each block: one per head, bigger and thicker with
// that head's weight, with the weights written beside the block in head order.

import { HEAD_DASH, PALETTE } from "./colours.js";
import { weight } from "./format.js";
import { hl } from "./highlight.js";
import { arrow, attentionRings, glyph, ringsReach, truthCircle } from "./marks.js";
import { attrs, clear, el, fontGrowth } from "./svg.js";
import { HEAD_COLOURS } from "./trainheads.js";

const VIEW_CM = [-6, 86]; // predictions outside the table are pinned to its margin

function pin(p) {
  return p.map((v) => Math.min(Math.max(v, VIEW_CM[0]), VIEW_CM[1]));
}

function finitePair(p) {
  return Array.isArray(p) && p.length === 2 && p.every(Number.isFinite);
}

const RING_LABEL_FS = 10.5; // .ring-label's nominal size (figures.css); it grows on a small screen
const GAP = 3; // drawing units between the outermost ring and its weights

/** Rings and per-head weight labels for every block (weights: [head][object]). */
function drawRings(scene, positions, weights) {
  const layer = hl(el("g", { class: "attention-rings" }, scene.under), "alpha");
  const labels = el("g", { class: "ring-labels" }, scene.over);
  const base = scene.half * 1.45 + 1;
  positions.forEach((pos, i) => {
    const w = weights.map((head) => Number(head?.[i]) || 0);
    const centre = [scene.x(pos[0]), scene.y(pos[1])];
    attentionRings(layer, centre, w, { base, colours: HEAD_COLOURS });
    const column = el("g", { class: "ring-weights" }, labels);
    w.forEach((wh, h) => el("text", { class: `ring-label head-${h + 1}`, text: weight(wh) }, column));
    placeWeights(scene, column, centre, ringsReach(base, w));
  });
}

/**
 * The weights of one block in a column beside its rings, never over them: on the right, or on
 * the left where the drawing ends first; centred on the block but inside the table's height.
 */
function placeWeights(scene, column, [cx, cy], reach) {
  const lines = [...column.children];
  const svg = scene.over.ownerSVGElement;
  const lead = 1.1 * RING_LABEL_FS * fontGrowth(svg, RING_LABEL_FS); // line to line, as drawn
  const wide = Math.max(0, ...lines.map((t) => t.getComputedTextLength?.() ?? 0));
  const right = cx + reach + GAP;
  const onLeft = right + wide > svg.viewBox.baseVal.width;
  const [top, bottom] = [scene.y.range[1], scene.y.range[0]];
  const first = Math.min(Math.max(cy - (lead * (lines.length - 1)) / 2, top + lead / 2),
    bottom - lead / 2 - lead * (lines.length - 1));
  lines.forEach((text, h) => attrs(text, { x: (onLeft ? cx - reach - GAP : right).toFixed(1),
    y: (first + lead * h).toFixed(1), dy: "0.35em", "text-anchor": onLeft ? "end" : "start" }));
}

/**
 * Where a line from the centre `c` of a square block toward `to` leaves the square of half-side
 * `half` (px); `c` itself when `to` lies inside it.
 */
function edgeToward(c, to, half) {
  const [dx, dy] = [to[0] - c[0], to[1] - c[1]];
  const k = half / Math.max(Math.abs(dx), Math.abs(dy), 1e-9); // fraction of the way to the edge
  return k >= 1 ? c : [c[0] + k * dx, c[1] + k * dy];
}

/**
 * Draw the prediction for the display scene on `scene` (a tableScene).
 * task: "fetch" | "vector"; positions: [[x, y] cm] in scene order; secondIndex: index of block B
 * (vector task); prediction: {attn, mlp, truth, weights} in cm as the socket sends it.
 */
export function drawPrediction(scene, { task, positions, secondIndex, prediction }) {
  clear(scene.under);
  clear(scene.over);
  if (!prediction) return;
  const weights = Array.isArray(prediction.weights) ? prediction.weights : [];
  drawRings(scene, positions, weights);
  const marks = el("g", { class: "prediction" }, scene.over);
  const px = (p) => [scene.x(p[0]), scene.y(p[1])];
  const { attn, mlp, truth } = prediction;
  if (task === "vector") {
    const from = positions[secondIndex];
    if (!from) return;
    const tipOf = (d) => px(pin([from[0] + d[0], from[1] + d[1]]));
    // Every arrow leaves B from its edge, so B's letter stays readable; truth last: a thin dashed
    // line stays visible even where an answer lies right on it. Its tip is A itself: it stops at
    // A's edge, so A's letter stays readable too.
    const margin = scene.half + 2;
    const fromB = (tip) => [edgeToward(px(from), tip, margin), tip];
    if (finitePair(mlp)) {
      arrow(marks, ...fromB(tipOf(mlp)), { colour: PALETTE.mlp, width: 1.4, tip: "cross", className: "mlp-arrow" });
    }
    if (finitePair(attn)) {
      arrow(marks, ...fromB(tipOf(attn)), { colour: PALETTE.attention, width: 3.5, tip: "plus", className: "attn-arrow" });
    }
    if (finitePair(truth)) {
      const [start, tip] = fromB(tipOf(truth));
      arrow(marks, start, edgeToward(tip, start, margin), { colour: PALETTE.ink, width: 1.4, dash: "5 4",
        className: "truth-arrow", halo: false });
    }
    return;
  }
  if (finitePair(truth)) truthCircle(marks, px(truth), { r: scene.half + 5 });
  if (finitePair(mlp)) glyph(marks, "cross", px(pin(mlp)), { colour: PALETTE.mlp, width: 1.5, size: 9, className: "mlp-mark" });
  if (finitePair(attn)) glyph(marks, "plus", px(pin(attn)), { colour: PALETTE.attention, width: 4, size: 9, className: "attn-mark" });
}

/** The key under the scene: truth, ✚ attention, ✕ MLP, and the ring style of each head. */
export function sceneLegend(parent, t) {
  const list = parent.appendChild(document.createElement("ul"));
  list.className = "legend scene-legend";
  function item(draw, text) {
    const li = list.appendChild(document.createElement("li"));
    const svg = el("svg", { width: 24, height: 24, viewBox: "-12 -12 24 24", "aria-hidden": "true" }, li);
    draw(svg);
    li.appendChild(document.createElement("span")).textContent = text;
  }
  return {
    update(task, heads) {
      list.replaceChildren();
      item((svg) => (task === "vector"
        ? arrow(svg, [-10, 6], [9, -6], { colour: PALETTE.ink, width: 1.4, dash: "4 3" })
        : truthCircle(svg, [0, 0], { r: 8 })), t("tr.legend.truth"));
      item((svg) => glyph(svg, "plus", [0, 0], { colour: PALETTE.attention, width: 3.5, size: 7 }), t("tr.legend.attn"));
      item((svg) => glyph(svg, "cross", [0, 0], { colour: PALETTE.mlp, width: 1.5, size: 8 }), t("tr.legend.mlp"));
      for (let h = 0; heads > 1 && h < heads; h += 1) {
        item((svg) => el("circle", { r: 8, fill: "none", stroke: HEAD_COLOURS[h], "stroke-width": 2,
          "stroke-dasharray": HEAD_DASH[h] || null, class: "ring" }, svg), t("tr.legend.head", { h: h + 1 }));
      }
    },
  };
}
