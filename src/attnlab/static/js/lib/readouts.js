// A readout list (<dl class="readouts">) of named quantities under a figure: built once from
// keys, then each value is set as text. Every <dd> carries data-readout="key", so tests and
// styles can find one quantity without depending on the wording around it.

import { html } from "./svg.js";

/**
 * Build the list in `parent`: rows [{key, label, hl?}] (hl: a highlight key, lib/highlight.js,
 * for the label). Returns {el, set(key, text, value?), relabel(rows)}; set's optional `value` (the
 * number behind the text) is kept in the <dd>'s data-value.
 * Labels are plain text (formula symbols are written with Unicode, e.g. "‖∂ŷ/∂q‖").
 */
export function readoutList(parent, rows, { className = "" } = {}) {
  const dl = html("dl", { class: `readouts ${className}`.trim() }, parent);
  const cells = new Map();
  for (const { key, label, hl } of rows) {
    const dt = html("dt", { text: label }, dl);
    const dd = html("dd", { "data-readout": key, text: "—" }, dl);
    if (hl) dt.setAttribute("data-hl", hl);
    cells.set(key, { dt, dd });
  }
  return {
    el: dl,
    set(key, text, value) {
      const cell = cells.get(key);
      if (!cell) return;
      if (cell.dd.textContent !== text) cell.dd.textContent = text;
      if (value !== undefined) cell.dd.dataset.value = String(value);
    },
    relabel(newRows) {
      for (const { key, label } of newRows) {
        const cell = cells.get(key);
        if (cell) cell.dt.textContent = label;
      }
    },
  };
}
