// A heatmap of values in [−1, 1] on a diverging colour map: amber near +1, teal near −1, paper
// white at 0 (the lesson's convention for FIG 4's sinusoidal table and FIG 5's cosine
// similarities). Built once as a grid of <rect>s; set(matrix) recolours it.

import { PALETTE } from "./colours.js";
import { el } from "./svg.js";

const ZERO = [247, 245, 240]; // the figure paper, so 0 reads as "nothing"

function rgb(hex) {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const PLUS = rgb(PALETTE.attention);
const MINUS = rgb(PALETTE.teal);

/** The colour of v ∈ [−1, 1] (clamped): teal → white → amber, linear in RGB. */
export function divergingColour(v) {
  const t = Math.min(Math.max(Number(v) || 0, -1), 1);
  const end = t >= 0 ? PLUS : MINUS;
  const a = Math.abs(t);
  const c = ZERO.map((z, i) => Math.round(z + (end[i] - z) * a));
  return `rgb(${c[0]} ${c[1]} ${c[2]})`;
}

/**
 * A rows × cols grid in `parent` filling the px box {x, y, width, height}; cell (r, c) is drawn
 * at column c, row r (row 0 at the top). Returns {g, cellWidth, cellHeight, set(matrix)} where
 * matrix[r][c] ∈ [−1, 1]; each cell keeps its value in data-value.
 */
export function heatmap(parent, { x = 0, y = 0, width, height, rows, cols, className = "" }) {
  const g = el("g", { class: `heatmap ${className}`.trim() }, parent);
  const cw = width / cols;
  const ch = height / rows;
  const cells = [];
  for (let r = 0; r < rows; r += 1) {
    const row = [];
    for (let c = 0; c < cols; c += 1) {
      // a hair wider than the cell, so no seams show between neighbours when scaled
      row.push(el("rect", { x: (x + c * cw).toFixed(2), y: (y + r * ch).toFixed(2),
        width: (cw + 0.4).toFixed(2), height: (ch + 0.4).toFixed(2), class: "heat-cell" }, g));
    }
    cells.push(row);
  }
  return {
    g,
    cellWidth: cw,
    cellHeight: ch,
    set(matrix) {
      for (let r = 0; r < rows; r += 1) {
        for (let c = 0; c < cols; c += 1) {
          const v = matrix[r]?.[c];
          cells[r][c].setAttribute("fill", divergingColour(v));
          cells[r][c].dataset.value = String(v);
        }
      }
    },
  };
}

/** A small horizontal colour key for the map: −1 … 0 … +1, in the px box {x, y, width}. */
export function heatmapKey(parent, { x, y, width, height = 8, labels = ["−1", "0", "+1"] }) {
  const g = el("g", { class: "heatmap-key" }, parent);
  const steps = 24;
  for (let i = 0; i < steps; i += 1) {
    el("rect", { x: (x + (i * width) / steps).toFixed(2), y, width: (width / steps + 0.4).toFixed(2),
      height, fill: divergingColour(-1 + (2 * (i + 0.5)) / steps) }, g);
  }
  labels.forEach((text, i) => {
    el("text", { x: x + (i * width) / (labels.length - 1), y: y + height + 12, "text-anchor": "middle",
      class: "tick-label", text }, g);
  });
  return g;
}
