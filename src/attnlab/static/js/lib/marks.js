// Marks drawn over the tabletop: prediction glyphs (thick ✚ attention, thin ✕ MLP, dashed circle
// truth), arrows with a glyph at the tip (FIG 2's vector task), and attention rings whose size and
// width grow with the weight (one ring per head, head styles from colours.HEAD_DASH).
// All take px coordinates; each glyph gets a white halo so it reads over any block colour.

import { HEAD_DASH, PALETTE } from "./colours.js";
import { el } from "./svg.js";

const PLUS = (r) => `M${-r} 0H${r}M0 ${-r}V${r}`;
const CROSS = (r) => `M${-r} ${-r}L${r} ${r}M${-r} ${r}L${r} ${-r}`;

/** A glyph ("plus" | "cross") centred at [x, y] with a halo; returns its <g>. */
export function glyph(parent, kind, [x, y], { colour, size = 8, width = 2, className = "" } = {}) {
  const g = el("g", { class: `glyph ${className}`, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` }, parent);
  const d = kind === "plus" ? PLUS(size) : CROSS(size * 0.8);
  el("path", { d, class: "halo", "stroke-width": width + 3.5 }, g);
  el("path", { d, stroke: colour, "stroke-width": width, "stroke-linecap": "round", fill: "none" }, g);
  return g;
}

/** The dashed circle that marks the true answer. */
export function truthCircle(parent, [x, y], { r = 11, className = "" } = {}) {
  const g = el("g", { class: `truth ${className}` }, parent);
  el("circle", { cx: x, cy: y, r, class: "halo", fill: "none", "stroke-width": 4 }, g);
  el("circle", { cx: x, cy: y, r, fill: "none", stroke: PALETTE.ink, "stroke-width": 1.6,
    "stroke-dasharray": "4 3" }, g);
  return g;
}

/**
 * An arrow from `from` to `to` (px). tip: "head" (a filled arrowhead), "plus" or "cross" (the
 * prediction glyph at the tip). dash: a stroke-dasharray for the shaft (truth is dashed).
 */
export function arrow(parent, from, to, { colour, width = 2, tip = "head", dash = "", className = "",
  halo = true } = {}) {
  const g = el("g", { class: `arrow ${className}` }, parent);
  const [x0, y0] = from;
  const [x1, y1] = to;
  const len = Math.hypot(x1 - x0, y1 - y0);
  const shaft = { x1: x0, y1: y0, x2: x1, y2: y1, "stroke-linecap": "round" };
  if (halo) el("line", { ...shaft, class: "halo", "stroke-width": width + 3 }, g);
  el("line", { ...shaft, stroke: colour, "stroke-width": width, "stroke-dasharray": dash || null }, g);
  if (tip === "head" && len > 1) {
    const ux = (x1 - x0) / len;
    const uy = (y1 - y0) / len;
    const s = 6 + width;
    const pts = [[x1, y1], [x1 - ux * s - uy * s * 0.5, y1 - uy * s + ux * s * 0.5],
      [x1 - ux * s + uy * s * 0.5, y1 - uy * s - ux * s * 0.5]];
    el("polygon", { points: pts.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" "), fill: colour }, g);
  } else if (tip === "plus" || tip === "cross") {
    glyph(g, tip, to, { colour, width, size: tip === "plus" ? 8 : 7 });
  }
  return g;
}

/**
 * Attention rings around one object at [x, y] (px): one ring per head, head h drawn with
 * HEAD_DASH[h]; the radius and the stroke width grow with that head's weight w ∈ [0, 1].
 * base: the radius of a zero-weight ring (just outside the block); colours: one per head (else
 * `colour` for all). Returns the <g>.
 */
export function attentionRings(parent, [x, y], weights, { base = 16, colour = PALETTE.attention, colours = [] } = {}) {
  const g = el("g", { class: "rings" }, parent);
  weights.forEach((w, h) => {
    const { r, width, wc } = ringOf(base, h, w);
    el("circle", {
      cx: x, cy: y, r: r.toFixed(1), fill: "none", stroke: colours[h] ?? colour,
      "stroke-width": width.toFixed(2), "stroke-dasharray": HEAD_DASH[h % HEAD_DASH.length] || null,
      "stroke-opacity": (0.35 + 0.65 * wc).toFixed(2), class: `ring head-${h + 1}`,
    }, g);
  });
  return g;
}

/** Head h's ring for weight w: its radius, stroke width and the weight clamped to [0, 1]. */
function ringOf(base, h, w) {
  const wc = Math.min(Math.max(Number(w) || 0, 0), 1);
  return { r: base + 3 * h + 10 * wc, width: 0.6 + 3.4 * wc, wc };
}

/** How far from the centre the outermost of these rings reaches, its stroke included. */
export function ringsReach(base, weights) {
  return Math.max(base, ...weights.map((w, h) => {
    const { r, width } = ringOf(base, h, w);
    return r + width / 2;
  }));
}
