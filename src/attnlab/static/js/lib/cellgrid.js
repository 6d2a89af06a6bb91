// FIG 6's attention matrix as a grid of cell states: rows are queries, columns keys. Each cell is
// one dot product q_i · k_j during one generation pass, in one of the engine's states
// (attnlab.nn.kv_cache.CELL_STATES):
//   future   the row's or column's token does not exist yet      → blank
//   masked   the mask forbids it                                 → a small grey ✕ (data-hl="mask")
//   computed a dot product done in this pass                     → amber
//   cached   done earlier; its keys and values come from the cache → teal (data-hl="kv")
//   stale    should have been recomputed but was not (bidirectional + cache) → red with "!"
// The grid is built once; update() only changes states, so the step animation is cheap.

import { PALETTE } from "./colours.js";
import { attrs, el } from "./svg.js";

export const STATE_FILL = Object.freeze({
  computed: PALETTE.attention,
  cached: PALETTE.teal,
  stale: PALETTE.red,
});

const SUB = { 0: "₀", 1: "₁", 2: "₂", 3: "₃", 4: "₄", 5: "₅", 6: "₆", 7: "₇", 8: "₈", 9: "₉" };

/** "a3" → "a₃": the lesson writes token indices as subscripts. */
export function tokenLabel(name) {
  return String(name).replace(/\d+$/, (digits) => digits.split("").map((c) => SUB[c]).join(""));
}

/** One cell's glyphs: a filled square, a ✕ for masked, a "!" for stale. */
function cellGlyph(parent, x, y, size) {
  const g = el("g", { class: "cell", transform: `translate(${x} ${y})` }, parent);
  const rect = el("rect", { x: 1, y: 1, width: size - 2, height: size - 2, rx: 2, class: "cell-fill" }, g);
  const c = size / 2;
  const r = size * 0.14; // a small ✕: masked cells should recede behind the coloured ones
  const cross = el("path", { d: `M${c - r} ${c - r}L${c + r} ${c + r}M${c - r} ${c + r}L${c + r} ${c - r}`,
    class: "cell-cross" }, g);
  const bang = el("text", { x: c, y: c, dy: "0.36em", "text-anchor": "middle", class: "cell-bang", text: "!" }, g);
  return { g, rect, cross, bang };
}

/**
 * Build an n × n grid for `tokens` in `svg` at px box {x, y, cell}; `split` is the number of
 * prefix tokens (a thin line separates them from the generated ones).
 * Returns {update(cells, activeRows), rowLabels, colLabels, cells (the glyph handles)}.
 */
export function cellGrid(svg, { tokens, x = 0, y = 0, cell = 24, split = 0 }) {
  const n = tokens.length;
  const size = n * cell;
  const g = el("g", { class: "cell-grid" }, svg);
  el("rect", { x, y, width: size, height: size, class: "grid-frame" }, g);
  const rowLabels = [];
  const colLabels = [];
  for (let i = 0; i < n; i += 1) {
    rowLabels.push(el("text", { x: x - 6, y: y + (i + 0.5) * cell, dy: "0.35em", "text-anchor": "end",
      class: "token-label", text: tokenLabel(tokens[i]) }, g));
    colLabels.push(el("text", { x: x + (i + 0.5) * cell, y: y - 7, "text-anchor": "middle",
      class: "token-label", text: tokenLabel(tokens[i]) }, g));
  }
  const body = el("g", { class: "cells" }, g);
  const glyphs = [];
  for (let i = 0; i < n; i += 1) {
    glyphs.push(tokens.map((_, j) => cellGlyph(body, x + j * cell, y + i * cell, cell)));
  }
  if (split > 0 && split < n) {
    const p = split * cell;
    el("line", { x1: x + p, x2: x + p, y1: y - 2, y2: y + size + 2, class: "grid-split" }, g);
    el("line", { x1: x - 2, x2: x + size + 2, y1: y + p, y2: y + p, class: "grid-split" }, g);
  }

  function setCell(glyph, state) {
    attrs(glyph.g, { "data-state": state, "data-hl": state === "masked" ? "mask" : state === "cached" ? "kv" : null });
    glyph.rect.setAttribute("fill", STATE_FILL[state] ?? "none");
    glyph.cross.style.display = state === "masked" ? "" : "none";
    glyph.bang.style.display = state === "stale" ? "" : "none";
  }

  return {
    rowLabels,
    colLabels,
    cells: glyphs,
    /** cells: (n, n) state names; activeRows: the query rows computed in this pass. */
    update(states, activeRows = []) {
      const active = new Set(activeRows);
      for (let i = 0; i < n; i += 1) {
        for (let j = 0; j < n; j += 1) setCell(glyphs[i][j], states?.[i]?.[j] ?? "future");
        const exists = states?.[i]?.some((c) => c !== "future");
        rowLabels[i].classList.toggle("is-active", active.has(i));
        rowLabels[i].classList.toggle("is-future", !exists);
        const colExists = states?.some((row) => row[i] !== "future");
        colLabels[i].classList.toggle("is-future", !colExists);
      }
    },
  };
}
