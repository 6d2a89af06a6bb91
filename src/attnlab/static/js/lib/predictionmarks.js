// FIG 2, left panel overlay: what both models answer for the display scene, and where the
// attention model looked. Fetch: dashed circle = truth, thick ✚ = attention, thin ✕ = MLP.
// Vector (p_A − p_B, drawn from B): dashed arrow = truth, thick arrow with ✚ tip = attention,
// thin arrow with ✕ tip = MLP. Rings around each block: one per head, bigger and thicker with
// that head's weight, with the weights written beside the block in head order.

import { HEAD_DASH, PALETTE } from "./colours.js";
import { weight } from "./format.js";
import { hl } from "./highlight.js";
import { arrow, attentionRings, glyph, truthCircle } from "./marks.js";
import { clear, el } from "./svg.js";
import { HEAD_COLOURS } from "./trainheads.js";

const VIEW_CM = [-6, 86]; // predictions outside the table are pinned to its margin

function pin(p) {
  return p.map((v) => Math.min(Math.max(v, VIEW_CM[0]), VIEW_CM[1]));
}

function finitePair(p) {
  return Array.isArray(p) && p.length === 2 && p.every(Number.isFinite);
}

/** Rings and per-head weight labels for every block (weights: [head][object]). */
function drawRings(scene, positions, weights) {
  const layer = hl(el("g", { class: "attention-rings" }, scene.under), "alpha");
  const labels = el("g", { class: "ring-labels" }, scene.over);
  positions.forEach((pos, i) => {
    const w = weights.map((head) => Number(head?.[i]) || 0);
    const cx = scene.x(pos[0]);
    const cy = scene.y(pos[1]);
    attentionRings(layer, [cx, cy], w, { base: scene.half * 1.45 + 1, colours: HEAD_COLOURS });
    w.forEach((wh, h) => {
      el("text", { x: cx + scene.half + 5, y: cy - scene.half + 8 + 11 * h, class: `ring-label head-${h + 1}`,
        text: weight(wh) }, labels);
    });
  });
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
    // truth last: a thin dashed line stays visible even where an answer lies right on it
    if (finitePair(mlp)) {
      arrow(marks, px(from), tipOf(mlp), { colour: PALETTE.mlp, width: 1.4, tip: "cross", className: "mlp-arrow" });
    }
    if (finitePair(attn)) {
      arrow(marks, px(from), tipOf(attn), { colour: PALETTE.attention, width: 3.5, tip: "plus", className: "attn-arrow" });
    }
    if (finitePair(truth)) {
      arrow(marks, px(from), tipOf(truth), { colour: PALETTE.ink, width: 1.4, dash: "5 4", className: "truth-arrow",
        halo: false });
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
