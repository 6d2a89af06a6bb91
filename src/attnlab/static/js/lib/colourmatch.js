// FIG 2, inside the model: the colour-match table (tabletop/colour_match.py, F2.10), drawn from
// the `colour_match` readout of every progress message. Per head a 6 × 6 table: rows are the
// instruction's colour, columns a block's colour, a cell the score q·k/√d_k the head gives that
// block at the table's centre. Fetch has one table per head; the vector task two ("from A":
// what A's colour adds, "from B": what B's adds) and their sum under the display instruction
// (`scores`). The engine's row_peaks are ringed; the display instruction's rows are marked.
// Every cell carries data-head/-part/-row/-col/-value/-peak; one tab stop per table, the arrow
// keys move inside it, and pointing at or focusing a cell writes it out in the readout.

import { letterInk, objectColour } from "./colours.js";
import { num } from "./format.js";
import { divergingColour } from "./heatmap.js";
import { html } from "./svg.js";
import { headColour } from "./trainheads.js";
import { withSubscripts } from "./trainwords.js";

const SUM = "sum"; // the part name of the summed row (vector task)
const pct = (share) => `${Math.round(share * 100)}%`;
const MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

/** A colour's header: a swatch with the colour's letter; its name for screen readers. */
function swatch(parent, { t, name, tag = "th", scope = "col" }) {
  const th = html(tag, { scope, class: "cm-colour" }, parent);
  const chip = html("span", { class: "cm-swatch", "aria-hidden": "true", text: t(`colour.${name}.letter`) }, th);
  chip.style.background = objectColour(name);
  chip.style.color = letterInk(name);
  html("span", { class: "sr-only", text: t(`colour.${name}`) }, th);
  return th;
}

/** One table: `rows` = row header colours (null: a header of its own), 6 block colours. */
function gridTable(parent, { t, names, caption, rows, rowHeader, head, part }) {
  const table = html("table", { class: `cm-table cm-part-${part}`, "data-head": head, "data-part": part }, parent);
  html("caption", { text: caption }, table);
  const top = html("tr", {}, html("thead", {}, table));
  html("td", { class: "cm-corner" }, top);
  names.forEach((name) => swatch(top, { t, name }));
  const body = html("tbody", {}, table);
  const cells = rows.map((r, i) => {
    const tr = html("tr", { "data-row": r }, body);
    if (rowHeader) rowHeader(tr);
    else swatch(tr, { t, name: names[r], scope: "row" });
    return names.map((_, c) => html("td", { tabindex: i === 0 && c === 0 ? 0 : -1, class: "cm-cell",
      "data-head": head, "data-part": part, "data-row": r, "data-col": c }, tr));
  });
  table.addEventListener("keydown", (event) => {
    const cell = event.target.closest?.("td.cm-cell");
    const i = cells.findIndex((row) => row.includes(cell));
    if (i < 0) return;
    const c = cells[i].indexOf(cell);
    const [di, dc] = MOVES[event.key] ?? [0, 0];
    let next = cells[Math.min(Math.max(i + di, 0), cells.length - 1)][Math.min(Math.max(c + dc, 0), 5)];
    if (event.key === "Home") next = cells[i][0];
    if (event.key === "End") next = cells[i][5];
    if (next === cell) return;
    event.preventDefault();
    cell.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
  return { table, cells };
}

/** The part's rows: the instruction colour per row (fetch and A, B), or the one summed row. */
const rowsOf = (part) => (part === SUM ? [0] : [0, 1, 2, 3, 4, 5]);

/** The key under the tables: teal below 0, paper at 0, amber above, to ±max. */
function scaleKey(parent, t) {
  const key = html("div", { class: "cm-key" }, parent);
  html("span", { class: "cm-key-label", text: t("cm.key") }, key);
  const bar = html("span", { class: "cm-key-bar", "aria-hidden": "true" }, key);
  bar.style.background = `linear-gradient(90deg, ${divergingColour(-1)}, ${divergingColour(0)}, ${divergingColour(1)})`;
  const ends = html("span", { class: "cm-key-ends" }, key);
  return { set: (m) => { ends.textContent = `−${num(m, 2)} · 0 · +${num(m, 2)}`; } };
}

/**
 * The table panel in `parent`. names: the trainer's colour names by index. Returns
 * {set(cm, {task, heads, target, second}), relabel()}; cm is a progress message's colour_match
 * (null: no model yet).
 */
export function colourMatch(parent, { t, names }) {
  const box = html("div", { class: "cm" }, parent);
  let shown = { cm: null, task: "fetch", target: 0, second: 1 };
  let built = null; // {key, heads: [{title, parts: {part: cells}}]}
  let pointed = null;

  const colourName = (c) => t(`colour.${names[c]}`);
  const partCaption = (part) => t(part === SUM ? "cm.sum" : shown.task === "vector" ? `cm.part.${part}` : "cm.part.fetch",
    { a: colourName(shown.target), b: colourName(shown.second) });

  function build(H, P) {
    box.replaceChildren();
    html("p", { class: "cm-title", text: t("cm.title") }, box);
    withSubscripts(html("p", { class: "cm-caption" }, box), t(P === 2 ? "cm.caption.vector" : "cm.caption.fetch"));
    const headsBox = html("div", { class: "cm-heads" }, box);
    const heads = Array.from({ length: H }, (_, h) => {
      const wrap = html("div", { class: `cm-head${P === 1 ? " is-single" : ""}`, "data-head": h }, headsBox);
      const title = html("p", { class: "cm-head-title" }, wrap);
      title.style.setProperty("--head-colour", headColour(h));
      const tables = html("div", { class: "cm-parts" }, wrap);
      const parts = {};
      const partNames = P === 2 ? [0, 1, SUM] : [0];
      for (const part of partNames) {
        const rowHeader = part === SUM ? (tr) => {
          const th = html("th", { scope: "row", class: "cm-colour cm-sum-head" }, tr);
          html("span", { text: "Σ", "aria-hidden": "true" }, th);
          html("span", { class: "sr-only", text: t("cm.sum.row") }, th);
        } : null;
        parts[part] = gridTable(part === SUM ? wrap : tables, { t, names, caption: "", rows: rowsOf(part),
          rowHeader, head: h, part }).cells;
      }
      return { title, parts, wrap };
    });
    const foot = html("div", { class: "cm-foot" }, box);
    const key = scaleKey(foot, t);
    const readout = html("p", { class: "cm-readout", "data-role": "cm-readout" }, foot);
    html("p", { class: "hint", text: t("cm.hint") }, box);
    built = { key: `${H}x${P}`, heads, scale: key, readout };
  }

  /** What one cell is, in words (the readout, and the cell's name for screen readers). */
  function describe(cell) {
    const { cm, target, second } = shown;
    const h = Number(cell.dataset.head), c = Number(cell.dataset.col), r = Number(cell.dataset.row);
    const part = cell.dataset.part;
    if (!cm) return t("cm.pending");
    const v = part === SUM ? cm.scores?.[h]?.[c] : cm.table[h][Number(part)][r][c];
    const vars = { h: h + 1, row: colourName(r), col: colourName(c), a: colourName(target), b: colourName(second), v: num(v, 3) };
    const key = part === SUM ? "cm.cell.sum" : shown.task === "vector" ? `cm.cell.${part}` : "cm.cell.fetch";
    return t(key, vars) + (cell.dataset.peak === "true" ? t("cm.peak") : "");
  }

  function point(node) {
    const cell = node?.closest?.("td.cm-cell");
    if (!built) return;
    if (cell) {
      pointed = cell;
      cell.setAttribute("aria-label", describe(cell));
    }
    built.readout.textContent = pointed ? describe(pointed) : t("cm.readout.none");
  }

  /** Colour, value and peak of every cell; the display instruction's rows marked. */
  function paint() {
    const { cm, task, target, second } = shown;
    const values = cm ? [cm.table.flat(3), cm.scores?.flat() ?? []].flat() : [];
    const m = Math.max(1e-9, ...values.map(Math.abs));
    built.scale.set(cm ? m : 0);
    built.heads.forEach(({ title, parts }, h) => {
      const share = cm?.peaks?.[h];
      title.textContent = `${t("cm.head", { h: h + 1 })}${!share ? ""
        : task === "vector" ? t("cm.share.vector", { a: pct(share[0]), b: pct(share[1]) })
          : t("cm.share.fetch", { share: pct(share[0]) })}`;
      for (const [part, cells] of Object.entries(parts)) {
        const sum = part === SUM;
        const marked = sum ? 0 : Number(part) === 1 ? second : target; // the instruction's row
        // the summed row's peak: the engine's score_peaks, as row_peaks for the table's rows
        const sumPeak = sum && cm?.score_peaks ? cm.score_peaks[h] : -1;
        cells.forEach((row, i) => {
          row[0].parentElement.classList.toggle("is-instruction", !sum && i === marked);
          row.forEach((cell, c) => {
            const v = !cm ? null : sum ? cm.scores?.[h]?.[c] : cm.table[h][Number(part)][i][c];
            const peak = cm ? (sum ? c === sumPeak : cm.row_peaks[h][Number(part)][i] === c) : false;
            cell.style.background = v === null || v === undefined ? "" : divergingColour(v / m);
            cell.dataset.value = v === null || v === undefined ? "" : String(v);
            cell.dataset.peak = String(peak);
            cell.classList.toggle("is-peak", peak);
          });
        });
      }
      for (const table of built.heads[h].wrap.querySelectorAll("table")) {
        table.querySelector("caption").textContent = partCaption(table.dataset.part === SUM ? SUM : Number(table.dataset.part));
      }
    });
    point(pointed && box.contains(pointed) ? pointed : null);
  }

  box.addEventListener("focusin", (event) => point(event.target));
  box.addEventListener("pointerover", (event) => point(event.target));
  box.addEventListener("pointerleave", () => point(box.querySelector("td.cm-cell:focus")));

  return {
    /** heads: the settings' head count, for the empty tables before the first readout. */
    set(readout, { task, heads, target, second }) {
      const P = task === "vector" ? 2 : 1;
      // a readout of another configuration (the session's before our config reached it) waits
      const cm = readout?.table?.length === heads && readout.table[0]?.length === P ? readout : null;
      const H = heads;
      shown = { cm, task, target, second };
      if (!built || built.key !== `${H}x${P}`) {
        pointed = null;
        build(H, P);
      }
      paint();
    },
    relabel() {
      const { heads } = built ?? { heads: [] };
      pointed = null;
      build(heads.length || 1, shown.task === "vector" ? 2 : 1);
      paint();
    },
  };
}
