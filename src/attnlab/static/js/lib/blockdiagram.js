// FIG 5, top: the wiring of one Transformer block (§4 part 3), redrawn from the switches.
//   X ─┬─[LN]─[multi-head attention]─(+)─[LN]─┬─[LN]─[MLP]─(+)─[LN]─ X″
//      └───────── residual ───────────┘        └──── residual ───┘
// Both LayerNorm positions are drawn: the ones on the branch (inside the skip) are Pre-LN, the
// ones after the (+) are Post-LN; the position not in use fades, as does every part that is
// switched off. With the residual off the skip wire turns dashed and carries a ✕.
// The skip wires carry data-hl="res" and the LN boxes data-hl="ln" (formula ↔ figure link).

import { hl } from "./highlight.js";
import { attrs, el } from "./svg.js";

const W = 850;
const H = 150;
const MAIN_Y = 92; // the main line
const SKIP_Y = 34; // the residual wires
const BOX_H = 34;
// Narrower than FOLD_PX on screen, the MLP half moves under the attention half (a second row,
// ROW below and SHIFT to the left), so the labels keep a legible size instead of shrinking.
const FOLD_PX = 600;
const ROW = 140;

// x positions of every part, left to right
const X = { in: 20, split1: 60, pre1: 106, attn: 234, add1: 350, post1: 402,
  split2: 452, pre2: 498, mlp: 600, add2: 694, post2: 746, out: 804 };
const SHIFT = X.split2 - X.split1;
const NARROW_W = X.out + 32 - SHIFT;

function box(parent, cx, width, text, className) {
  const g = el("g", { class: `part ${className}` }, parent);
  el("rect", { x: cx - width / 2, y: MAIN_Y - BOX_H / 2, width, height: BOX_H, rx: 6, class: "part-box" }, g);
  const label = el("text", { x: cx, y: MAIN_Y, dy: "0.35em", "text-anchor": "middle", class: "part-label",
    text }, g);
  return { g, label, cx, width };
}

const PAD = 8; // drawing units between a label and its box's edge

/**
 * Set a box's label so that it stays inside the box: on one line if it fits, else on two lines
 * split at the space nearest the middle, else (no space: Chinese) squeezed to the box's width.
 * Labels grow on a small screen (figures.css keeps them ≥ 10 px), so this runs on every resize.
 */
function fitLabel(part, text) {
  const { label, cx, width } = part;
  label.replaceChildren(text);
  label.removeAttribute("textLength");
  label.setAttribute("dy", "0.35em");
  const room = width - 2 * PAD;
  if (!label.getComputedTextLength || label.getComputedTextLength() <= room) return;
  const spaces = [...text.matchAll(/ /g)].map((m) => m.index);
  let lines = [label];
  if (spaces.length) {
    const cut = spaces.reduce((a, b) => (Math.abs(b - text.length / 2) < Math.abs(a - text.length / 2) ? b : a));
    label.replaceChildren();
    label.setAttribute("dy", "-0.25em");
    lines = [el("tspan", { x: cx, text: text.slice(0, cut) }, label),
      el("tspan", { x: cx, dy: "1.1em", text: text.slice(cut + 1) }, label)];
  }
  for (const line of lines) {
    if (line.getComputedTextLength() > room) attrs(line, { textLength: room, lengthAdjust: "spacingAndGlyphs" });
  }
}

function lnBox(parent, cx, where) {
  const part = box(parent, cx, 40, "LN", `ln ln-${where}`);
  hl(part.g, "ln");
  part.tag = el("text", { x: cx, y: MAIN_Y + BOX_H / 2 + 14, "text-anchor": "middle",
    class: "part-tag" }, part.g);
  return part;
}

function addNode(parent, cx) {
  const g = el("g", { class: "part add" }, parent);
  el("circle", { cx, cy: MAIN_Y, r: 10, class: "part-box" }, g);
  el("path", { d: `M${cx - 5} ${MAIN_Y}H${cx + 5}M${cx} ${MAIN_Y - 5}V${MAIN_Y + 5}`, class: "add-sign" }, g);
  return g;
}

function skipWire(parent, from, to) {
  const g = hl(el("g", { class: "skip" }, parent), "res");
  const d = `M${from} ${MAIN_Y}V${SKIP_Y}H${to}V${MAIN_Y - 10}`;
  el("path", { d, class: "skip-hit" }, g); // a wide transparent stroke: easy to hover
  const wire = el("path", { d, class: "skip-wire" }, g);
  el("circle", { cx: from, cy: MAIN_Y, r: 3, class: "skip-dot" }, g);
  const mid = (from + to) / 2;
  const [x0, x1, y0, y1] = [mid - 6, mid + 6, SKIP_Y - 6, SKIP_Y + 6];
  const cross = el("path", { d: `M${x0} ${y0}L${x1} ${y1}M${x0} ${y1}L${x1} ${y0}`, class: "skip-cross" }, g);
  const label = el("text", { x: mid, y: SKIP_Y - 8, "text-anchor": "middle", class: "part-tag" }, g);
  return { g, wire, cross, label };
}

/**
 * Draw the diagram into `svg`. Returns {update(parts, depth), relabel(t)} where parts is the
 * API's {residual, pre_ln, post_ln, mlp} and depth the number of stacked blocks.
 */
export function blockDiagram(svg, t) {
  attrs(svg, { viewBox: `0 0 ${W} ${H}` });
  const g = el("g", { class: "block-diagram" }, svg);
  const wire1 = el("line", { x1: X.in + 12, x2: X.split2, y1: MAIN_Y, y2: MAIN_Y, class: "main-wire" }, g);
  const fold = el("path", { d: `M${X.post1 + 34} ${MAIN_Y}V${MAIN_Y + 46}H${X.in + 12}V${MAIN_Y + ROW}`
    + `H${X.split1}`, class: "main-wire fold-wire", fill: "none" }, g);
  el("text", { x: X.in, y: MAIN_Y, dy: "0.35em", "text-anchor": "middle", class: "part-io", text: "X" }, g);
  const row2 = el("g", { class: "row-2" }, g);
  el("line", { x1: X.split2, x2: X.out - 12, y1: MAIN_Y, y2: MAIN_Y, class: "main-wire" }, row2);
  const tip = X.out - 4;
  el("path", { d: `M${tip - 8} ${MAIN_Y - 5}L${tip} ${MAIN_Y}L${tip - 8} ${MAIN_Y + 5}Z`, class: "arrow-head" }, row2);
  el("text", { x: X.out + 16, y: MAIN_Y, dy: "0.35em", "text-anchor": "middle", class: "part-io", text: "X″" }, row2);

  const skips = [skipWire(g, X.split1, X.add1), skipWire(row2, X.split2, X.add2)];
  const sub1 = el("g", { class: "sublayer sublayer-attn" }, g);
  const sub2 = el("g", { class: "sublayer sublayer-mlp" }, row2);
  const parts = {
    pre1: lnBox(sub1, X.pre1, "pre"),
    attn: box(sub1, X.attn, 172, "", "attn"),
    add1: addNode(sub1, X.add1),
    post1: lnBox(sub1, X.post1, "post"),
    pre2: lnBox(sub2, X.pre2, "pre"),
    mlp: box(sub2, X.mlp, 122, "", "mlp"),
    add2: addNode(sub2, X.add2),
    post2: lnBox(sub2, X.post2, "post"),
  };
  const bracket = el("path", { class: "depth-bracket" }, g);
  const depthLabel = el("text", { "text-anchor": "middle", class: "part-tag depth-label" }, g);
  let last = { parts: null, depth: 0 };

  /** One row (wide) or two (narrow): the viewBox, the MLP half's place, the bracket. */
  function layout(narrow) {
    const [width, height, right] = narrow ? [NARROW_W, H + ROW, X.post2 - SHIFT] : [W, H, X.post2];
    attrs(svg, { viewBox: `0 0 ${width} ${height}` });
    attrs(row2, { transform: narrow ? `translate(${-SHIFT} ${ROW})` : null });
    attrs(wire1, { x2: narrow ? X.post1 + 34 : X.split2 });
    fold.style.display = narrow ? "" : "none";
    attrs(bracket, { d: `M${X.split1 - 20} ${height - 22}v6H${right + 24}v-6` });
    attrs(depthLabel, { x: (X.split1 + right) / 2, y: height - 2 });
  }
  layout(false);
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(([entry]) => {
      if (entry.contentRect.width > 0) layout(entry.contentRect.width < FOLD_PX);
      requestAnimationFrame(labels); // after svg.js has set the drawing's scale: the labels' size
    }).observe(svg.parentNode ?? svg);
  }

  const off = (node, isOff) => node.classList.toggle("is-off", Boolean(isOff));

  function labels() {
    fitLabel(parts.attn, t("dp.diag.attn"));
    fitLabel(parts.mlp, t("dp.diag.mlp"));
    for (const key of ["pre1", "pre2"]) parts[key].tag.textContent = t("dp.diag.pre");
    for (const key of ["post1", "post2"]) parts[key].tag.textContent = t("dp.diag.post");
    bracket.setAttribute("aria-hidden", "true");
  }

  function update(p, depth) {
    last = { parts: p, depth };
    const residual = Boolean(p?.residual);
    const mlp = Boolean(p?.mlp);
    skips.forEach((s, i) => {
      off(s.g, i === 1 && !mlp);
      s.g.classList.toggle("is-cut", !residual);
      s.cross.style.display = residual ? "none" : "";
      s.label.textContent = residual ? t("dp.diag.residual") : t("dp.diag.noResidual");
    });
    off(parts.add1, !residual);
    off(parts.pre1.g, !p?.pre_ln);
    off(parts.post1.g, !p?.post_ln);
    off(sub2, !mlp);
    off(parts.add2, !residual);
    off(parts.pre2.g, !p?.pre_ln);
    off(parts.post2.g, !p?.post_ln);
    depthLabel.textContent = t("dp.diag.depth", { n: depth });
    svg.setAttribute("aria-label", t("dp.diag.aria", {
      residual: t(residual ? "dp.on" : "dp.off"),
      norm: t(p?.pre_ln ? "dp.norm.pre" : p?.post_ln ? "dp.norm.post" : "dp.norm.none"),
      mlp: t(mlp ? "dp.on" : "dp.off"), n: depth }));
  }

  labels();
  return {
    update,
    relabel(tNew) {
      t = tNew;
      labels();
      if (last.parts) update(last.parts, last.depth);
    },
  };
}
