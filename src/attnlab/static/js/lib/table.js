// The tabletop of FIG 1 and FIG 2: a square table (its side, tableCm, is the engine's TABLE_CM,
// sent with the figure's description as constants.table_cm) seen from above, y pointing away from
// the robot (up on screen), with coloured square blocks that the reader drags with a pointer or
// moves with the arrow keys (1 cm a press, 10 cm with Shift). Positions are in cm, like the
// engine's; drawing is in px.

import { onRescale } from "./chart.js";
import { clamp } from "./format.js";
import { attrs, belowAxis, clear, draggable, el, fontGrowth, linear } from "./svg.js";

export const BLOCK_CM = 7; // drawn size only: the engine's blocks are points

/**
 * Draw an empty table of side `tableCm` in `svg` inside the px box {x, y, size}. Returns
 * {x, y (cm → px scales), under, blocks, over (layers), setBlocks(list, handlers), positions(),
 * handle(i)}.
 * list: [{pos: [x, y] cm, colour: hex, label: accessible name, letter?, ink? (letter colour)}],
 * handlers: {onMove(i, pos),
 * onDrop(i, pos), onActivate(i)}. Each block is a focusable <g class="block"> handle.
 */
export function tableScene(svg, { x: left = 0, y: top = 0, size = 360, tableCm }) {
  const x = linear([0, tableCm], [left, left + size]);
  const y = linear([0, tableCm], [top + size, top]);
  const table = el("g", { class: "table" }, svg);
  el("rect", { x: left, y: top, width: size, height: size, rx: 6, class: "table-top" }, table);
  for (let cm = 10; cm < tableCm; cm += 10) {
    el("line", { x1: x(cm), x2: x(cm), y1: top, y2: top + size, class: "table-grid" }, table);
    el("line", { x1: left, x2: left + size, y1: y(cm), y2: y(cm), class: "table-grid" }, table);
  }
  const below = [0, tableCm / 2, tableCm].map((cm) => {
    el("text", { x: left - 6, y: y(cm) + 4, "text-anchor": "end", class: "tick-label", text: `${cm}` }, table);
    return el("text", { x: x(cm), "text-anchor": "middle", class: "tick-label", text: `${cm}` }, table);
  });
  const unit = el("text", { x: left + size, "text-anchor": "end", class: "axis-label", text: "cm" }, table);
  const placeBelow = () => { // as axis() places a bottom axis's ticks and title
    const at = belowAxis(top + size, fontGrowth(svg));
    below.forEach((text) => text.setAttribute("y", at.ticks.toFixed(1)));
    unit.setAttribute("y", at.title.toFixed(1));
  };
  placeBelow();
  onRescale(svg, placeBelow);
  const under = el("g", { class: "table-under" }, svg);
  const blocks = el("g", { class: "table-blocks" }, svg);
  const over = el("g", { class: "table-over" }, svg);
  const half = (x(BLOCK_CM) - x(0)) / 2;
  let current = [];
  let cleanups = [];

  function place(g, pos) {
    attrs(g, { transform: `translate(${x(pos[0]).toFixed(1)} ${y(pos[1]).toFixed(1)})` });
  }

  function setBlocks(list, { onMove = () => {}, onDrop = () => {}, onActivate = () => {} } = {}) {
    cleanups.forEach((fn) => fn());
    clear(blocks);
    current = list.map((b) => ({ ...b, pos: [...b.pos] }));
    cleanups = current.map((b, i) => {
      const g = el("g", { class: "block" }, blocks);
      el("rect", { x: -half - 3, y: -half - 3, width: 2 * half + 6, height: 2 * half + 6, rx: 4,
        class: "focus-ring" }, g);
      el("rect", { x: -half, y: -half, width: 2 * half, height: 2 * half, rx: 2, fill: b.colour,
        class: "block-face" }, g);
      if (b.letter) {
        el("text", { x: 0, y: 0, dy: "0.35em", "text-anchor": "middle", class: "block-letter",
          fill: b.ink ?? "#fff", "aria-hidden": "true", text: b.letter }, g);
      }
      place(g, b.pos);
      const set = ([px, py]) => {
        // the whole block stays on the table (its centre half a block from the edge), never
        // hanging over the instruction or the axis labels
        const edge = BLOCK_CM / 2;
        b.pos = [clamp(x.invert(px), edge, tableCm - edge), clamp(y.invert(py), edge, tableCm - edge)];
        place(g, b.pos);
        onMove(i, [...b.pos]);
      };
      const off = draggable(g, { get: () => [x(b.pos[0]), y(b.pos[1])], set, step: x(1) - x(0),
        label: b.label, onEnd: () => onDrop(i, [...b.pos]) });
      const activate = (event) => {
        if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        onActivate(i);
      };
      g.addEventListener("dblclick", activate);
      g.addEventListener("keydown", activate);
      return () => {
        off();
        g.removeEventListener("dblclick", activate);
        g.removeEventListener("keydown", activate);
      };
    });
  }

  return {
    x,
    y,
    half,
    under,
    blocks,
    over,
    setBlocks,
    positions: () => current.map((b) => [...b.pos]),
    handle: (i) => blocks.children[i] ?? null,
  };
}
