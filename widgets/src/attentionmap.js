// The learner's own attention weights (attnlab.widgets.attention_map): an (n_q, n_k) matrix
// drawn as the lesson draws attention, amber for weight (0 = the paper, 1 = full amber), one row
// per query, one column per key, the weight written in each cell big enough to hold it. The
// kernel checks the rows are distributions; this view only draws them. Not a page figure: it
// has the page's mount(root, ctx) → {update} shape and the same adapter.

import { heatmap } from "../../src/attnlab/static/js/lib/heatmap.js";
import { weight } from "../../src/attnlab/static/js/lib/format.js";
import { el, html } from "../../src/attnlab/static/js/lib/svg.js";
import { loadViewStrings, viewTranslator } from "./strings.js";

const STRINGS = await loadViewStrings("notebook");
const CELL_MAX = 44; // px per cell at most; a large matrix shrinks to fit WIDTH
const WIDTH = 640;
const MARGIN = { top: 64, left: 96 }; // room for the key and query labels
const CHAR_PX = 7; // a tick label's character at most (11 px type)

function draw(svg, data, t) {
  svg.replaceChildren();
  const w = data.weights;
  const rows = w.length;
  const cols = w[0].length;
  const cell = Math.min(CELL_MAX, (WIDTH - MARGIN.left) / cols);
  const [width, height] = [cols * cell, rows * cell];
  const [w0, h0] = [MARGIN.left + width + 8, MARGIN.top + height + 8];
  svg.setAttribute("viewBox", `0 0 ${w0} ${h0}`);
  svg.setAttribute("width", w0); // its own size (at most the cell's width), not the cell's
  svg.setAttribute("aria-label", t("nb.map.aria", { rows, cols }));
  const map = heatmap(svg, { x: MARGIN.left, y: MARGIN.top, width, height, rows, cols, className: "attention-map" });
  map.set(w);
  // labels that fit over their column stand upright (a slanted "x" reads as "+"); longer ones slant
  const upright = Math.max(...data.keys.map((label) => label.length)) * CHAR_PX <= cell;
  data.keys.forEach((label, c) => {
    const [x, y] = [MARGIN.left + (c + 0.5) * cell, MARGIN.top - 6];
    const placed = upright ? { "text-anchor": "middle" } : { transform: `rotate(-45 ${x} ${y})` };
    el("text", { x, y, ...placed, class: "tick-label", text: label }, svg);
  });
  data.queries.forEach((label, r) => {
    el("text", { x: MARGIN.left - 6, y: MARGIN.top + (r + 0.5) * cell, dy: "0.35em", "text-anchor": "end",
      class: "tick-label", text: label }, svg);
  });
  el("text", { x: MARGIN.left, y: 14, class: "axis-label", text: t("nb.map.keys") }, svg);
  el("text", { x: 0, y: MARGIN.top - 6, class: "axis-label", text: t("nb.map.queries") }, svg);
  if (cell < 26) return; // too small to hold a number: the colour says it
  w.forEach((row, r) => row.forEach((v, c) => {
    el("text", { x: MARGIN.left + (c + 0.5) * cell, y: MARGIN.top + (r + 0.5) * cell, dy: "0.35em",
      "text-anchor": "middle", class: "bar-value", "data-row": r, "data-col": c, text: weight(v) }, svg);
  }));
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  root.classList.add("fig-attention-map");
  const svg = el("svg", { class: "attention-map", role: "img" }, root);
  const hint = html("p", { class: "hint" }, root);
  let last = null;
  return {
    update(data) {
      last = data;
      draw(svg, data, t);
      hint.textContent = t("nb.map.hint", { rows: data.weights.length, cols: data.weights[0].length });
    },
    relabel() {
      if (last) this.update(last);
    },
  };
}
