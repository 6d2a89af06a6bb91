// Form controls every figure uses, built from real <button>/<input>/<select> elements so that
// keyboard, focus ring and screen reader behaviour come for free. Each returns a small handle
// with set(value) (redraw without firing onChange) and relabel(...) (after a language switch).

import { html } from "./svg.js";

/** A labelled group of toggle buttons (one pressed): options [{value, label}]. */
export function segmented(parent, { label, options, value, onChange, name = "" }) {
  const wrap = html("div", { class: "control segmented", role: "group" }, parent);
  const caption = html("span", { class: "control-label", text: label }, wrap);
  const id = `seg-${name || Math.random().toString(36).slice(2, 8)}`;
  caption.id = id;
  wrap.setAttribute("aria-labelledby", id);
  const buttons = options.map((opt) => {
    const b = html("button", { type: "button", class: "seg", text: opt.label, "data-value": String(opt.value) }, wrap);
    b.addEventListener("click", () => {
      if (String(opt.value) === String(current)) return;
      set(opt.value);
      onChange(opt.value);
    });
    return b;
  });
  let current = value;
  function set(v) {
    current = v;
    buttons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === String(v))));
  }
  set(value);
  return {
    el: wrap,
    set,
    relabel(newLabel, labels = []) {
      caption.textContent = newLabel;
      labels.forEach((text, i) => { if (buttons[i]) buttons[i].textContent = text; });
    },
  };
}

/** A push button; returns the element (set .textContent / .disabled as needed). */
export function button(parent, { label, onClick, className = "", title = "" }) {
  const b = html("button", { type: "button", class: `btn ${className}`.trim(), text: label, title: title || null }, parent);
  b.addEventListener("click", onClick);
  return b;
}

/**
 * A labelled number input committing on change (Enter or blur). A value that is not a number, out
 * of [min, max], or not a multiple of `step` is not committed: the field is marked invalid and
 * `why({min, max, given})` (a sentence in the reader's language) shows under it until it is fixed;
 * onValidity(ok) hears every change of that, so the figure can hold what would use the old value.
 */
export function numberInput(parent, { label, value, min, max, step = 1, onChange, name = "", why = null,
  onValidity = () => {} }) {
  const wrap = html("label", { class: "control number" }, parent);
  const caption = html("span", { class: "control-label", text: label }, wrap);
  const input = html("input", { type: "number", min, max, step, value, name: name || null,
    inputmode: Number.isInteger(step) ? "numeric" : "decimal" }, wrap);
  const error = html("span", { class: "control-error", id: `${name || "number"}-error`, role: "status" }, parent);
  let given = null; // the text refused, while the field holds it
  const fits = (v) => Number.isFinite(v) && v >= min && v <= max && Number.isInteger(v / step);

  function mark(bad) {
    given = bad;
    for (const [attr, on] of [["aria-invalid", "true"], ["aria-describedby", error.id]]) {
      if (bad === null) input.removeAttribute(attr);
      else input.setAttribute(attr, on);
    }
    error.textContent = bad !== null && why ? why({ min, max, given: bad }) : "";
    error.hidden = bad === null;
    onValidity(bad === null);
  }
  input.addEventListener("change", () => {
    const v = Number(input.value);
    if (input.value.trim() === "" || !fits(v)) {
      mark(input.value.trim() || "—");
      return;
    }
    if (given !== null) mark(null);
    onChange(v);
  });
  error.hidden = true;
  return {
    el: wrap,
    input,
    /** The field holds a value that was committed (or none was refused since). */
    valid: () => given === null,
    set(v) {
      input.value = String(v);
      if (given !== null) mark(null);
    },
    relabel(newLabel) {
      caption.textContent = newLabel;
      if (given !== null && why) error.textContent = why({ min, max, given });
    },
  };
}

/** A labelled <select>: options [{value, label}]. setOptions replaces the list. */
export function select(parent, { label, options, value, onChange, name = "" }) {
  const wrap = html("label", { class: "control select" }, parent);
  const caption = html("span", { class: "control-label", text: label }, wrap);
  const sel = html("select", { name: name || null }, wrap);
  sel.addEventListener("change", () => onChange(sel.value));
  function setOptions(list, v) {
    sel.replaceChildren(...list.map((o) => html("option", { value: String(o.value), text: o.label })));
    if (v !== undefined) sel.value = String(v);
  }
  setOptions(options, value);
  return {
    el: wrap,
    select: sel,
    set(v) {
      sel.value = String(v);
    },
    setOptions,
    relabel(newLabel) {
      caption.textContent = newLabel;
    },
  };
}

/** A stepper "− n +" for a small integer range (object counts, depth). */
export function stepper(parent, { label, value, min, max, onChange, name = "" }) {
  const wrap = html("div", { class: "control stepper", role: "group" }, parent);
  const caption = html("span", { class: "control-label", text: label, id: `st-${name}` }, wrap);
  wrap.setAttribute("aria-labelledby", caption.id);
  let current = value;
  const minus = html("button", { type: "button", class: "seg", text: "−", "aria-label": `${label} −1` }, wrap);
  const out = html("output", { class: "stepper-value", "aria-live": "off" }, wrap);
  const plus = html("button", { type: "button", class: "seg", text: "+", "aria-label": `${label} +1` }, wrap);
  function set(v) {
    current = v;
    out.textContent = String(v);
    minus.disabled = v <= min;
    plus.disabled = v >= max;
  }
  minus.addEventListener("click", () => { if (current > min) { set(current - 1); onChange(current); } });
  plus.addEventListener("click", () => { if (current < max) { set(current + 1); onChange(current); } });
  set(value);
  return {
    el: wrap,
    set,
    relabel(newLabel) {
      caption.textContent = newLabel;
      minus.setAttribute("aria-label", `${newLabel} −1`);
      plus.setAttribute("aria-label", `${newLabel} +1`);
    },
  };
}
