// A labelled range slider (<input type="range">) for an integer setting such as a depth or a
// layer index, in the style of controls.js: the native input gives keyboard (arrows, Page Up/Down,
// Home/End), focus ring and screen-reader value for free. The value is shown beside the track.

import { html } from "./svg.js";

/**
 * A slider for the integers min … max. onChange(v) fires while dragging (input events), so a view
 * can redraw at once; the page's API requester keeps one request out and the newest waiting.
 * format(v) → the text shown beside the track (and read out as aria-valuetext).
 * Returns {el, input, set(v), setRange(min, max), relabel(label)}.
 */
export function slider(parent, { label, value, min, max, step = 1, onChange, name = "",
  format = String } = {}) {
  const wrap = html("label", { class: "control slider" }, parent);
  const caption = html("span", { class: "control-label", text: label }, wrap);
  const input = html("input", { type: "range", min, max, step, value, name: name || null }, wrap);
  const out = html("output", { class: "slider-value", "aria-hidden": "true" }, wrap);
  let current = Number(value);

  function show(v) {
    out.textContent = format(v);
    input.setAttribute("aria-valuetext", format(v));
  }

  input.addEventListener("input", () => {
    const v = Number(input.value);
    if (v === current) return;
    current = v;
    show(v);
    onChange(v);
  });
  show(current);

  return {
    el: wrap,
    input,
    set(v) {
      current = Number(v);
      input.value = String(v);
      show(current);
    },
    setRange(lo, hi) {
      input.min = String(lo);
      input.max = String(hi);
      input.value = String(current);
    },
    relabel(newLabel) {
      caption.textContent = newLabel;
      show(current);
    },
  };
}
