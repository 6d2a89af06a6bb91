// FIG 8's n × n score matrix cut into tiles: rows are queries, columns keys, each cell in one of
// the engine's states (attnlab.nn.flash.CELL_STATES):
//   held     a score of the key tile being read now, in memory    → amber
//   dropped  computed for an earlier tile, no longer kept          → teal, faint
//   pending  in a key tile still to come                           → blank
//   skipped  a block wholly above the diagonal (causal), never computed → light grey
//   masked   inside a computed diagonal block, j > i: weight 0     → a small grey ✕
// One query row is outlined (the row the readouts follow); a click, or ↑/↓ on the focused grid,
// picks another. The grid is rebuilt only when n or the tile changes.

import { PALETTE } from "./colours.js";
import { attrs, clear, el } from "./svg.js";

export const FILL = Object.freeze({ held: PALETTE.attention, dropped: PALETTE.teal, skipped: "#e3e0da" });
export const STATES_SHOWN = Object.freeze(["held", "dropped", "pending", "skipped", "masked"]);

const SIZE = 336; // the matrix's side in drawing units, whatever n is
const PAD = { left: 30, top: 26 };

/**
 * Build the grid in `svg` (its viewBox is set here). onRow(i) is called when the reader picks
 * row i. Returns {update(d), focusRow(i)} where d is the figure's data.
 */
export function tileGrid(svg, { onRow, label }) {
  svg.setAttribute("viewBox", `0 0 ${PAD.left + SIZE + 6} ${PAD.top + SIZE + 6}`);
  attrs(svg, { tabindex: 0, role: "img", class: "fl-grid" });
  const frame = el("g", {}, svg);
  let built = null; // {n, tile, cells: [[rect]], cross: [[path]], outline}
  let rowNow = 0;

  function build(n, tile, tiles) {
    clear(frame);
    const c = SIZE / n;
    const cells = [];
    const cross = [];
    for (let i = 0; i < n; i += 1) {
      cells.push([]);
      cross.push([]);
      for (let j = 0; j < n; j += 1) {
        const x = PAD.left + j * c;
        const y = PAD.top + i * c;
        cells[i].push(el("rect", { x: x + 0.5, y: y + 0.5, width: c - 1, height: c - 1, rx: Math.min(2, c / 6),
          class: "fl-cell", "data-i": i, "data-j": j }, frame));
        const r = c * 0.16;
        cross[i].push(el("path", { d: `M${x + c / 2 - r} ${y + c / 2 - r}l${2 * r} ${2 * r}m0 ${-2 * r}l${-2 * r} ${2 * r}`,
          class: "fl-cross" }, frame));
      }
    }
    // the tiles' key ranges come from the engine; query tiles are as wide as key tiles
    for (const [start] of tiles.slice(1).map((t) => t.keys)) {
      const p = start * c;
      el("line", { x1: PAD.left + p, x2: PAD.left + p, y1: PAD.top - 4, y2: PAD.top + SIZE, class: "fl-edge" }, frame);
      el("line", { x1: PAD.left - 4, x2: PAD.left + SIZE, y1: PAD.top + p, y2: PAD.top + p, class: "fl-edge" }, frame);
    }
    const heads = tiles.length > 16 ? [] : tiles.map(({ keys: [a, b] }, t) => el("text", {
      x: PAD.left + ((a + b) / 2) * c, y: PAD.top - 9, "text-anchor": "middle", class: "fl-tile-label",
      text: String(t + 1) }, frame));
    const rowLabel = el("text", { x: PAD.left - 6, "text-anchor": "end", dy: "0.35em", class: "fl-row-label" }, frame);
    const outline = el("rect", { x: PAD.left - 1, width: SIZE + 2, height: c + 2, rx: 3, class: "fl-outline" }, frame);
    built = { n, tile, c, cells, cross, outline, rowLabel, heads };
  }

  function showRow(i) {
    rowNow = i;
    const { c, outline, rowLabel } = built;
    attrs(outline, { y: PAD.top + i * c - 1 });
    attrs(rowLabel, { y: PAD.top + (i + 0.5) * c, text: String(i) });
  }

  function pick(i) {
    if (!built || i < 0 || i >= built.n || i === rowNow) return;
    showRow(i);
    onRow(i);
  }

  svg.addEventListener("click", (event) => {
    const i = event.target?.dataset?.i;
    if (i !== undefined) pick(Number(i));
  });
  svg.addEventListener("keydown", (event) => {
    const moves = { ArrowUp: -1, ArrowDown: 1, PageUp: -4, PageDown: 4 };
    if (!(event.key in moves) || !built) return;
    event.preventDefault();
    pick(Math.min(Math.max(rowNow + moves[event.key], 0), built.n - 1));
  });

  return {
    update(d) {
      const { tile, row, step } = d.shown;
      const n = d.n;
      if (!built || built.n !== n || built.tile !== tile) build(n, tile, d.tiles);
      for (let i = 0; i < n; i += 1) {
        for (let j = 0; j < n; j += 1) {
          const state = d.cells[i][j];
          const rect = built.cells[i][j];
          rect.setAttribute("data-state", state);
          rect.setAttribute("fill", FILL[state] ?? "none");
          built.cross[i][j].style.display = state === "masked" ? "" : "none";
        }
      }
      built.heads.forEach((h, t) => h.classList.toggle("is-now", t + 1 === step));
      showRow(row);
      svg.setAttribute("aria-label", label(d));
    },
  };
}
