// The engine's numbers in the lesson's text. The server sends each number as a slot
//   <span class="val" data-claim="F2.2" data-name="steps" data-fmt=".0f">225</span>
// or, inside a formula, \htmlData{claim=F2.2,name=steps,fmt=.0f}{225}, pre-filled when the
// value was already measured and "…" otherwise; the page fills the slots as the measurements
// arrive (GET /api/claims/measured → values: {claim: {name: value}}). formatValue writes a value
// exactly as src/attnlab/lesson/values.py does (tests/cases/values.json holds the two together).
// The server writes the text's slots; the page writes them only for catalogue strings it shows
// itself (the claims panel), with slotsHTML, as attnlab.lesson.blocks does (tests/cases/slots.json).

import { escapeHTML } from "./format.js";

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
// A TeX slot; its value may hold one level of braces (7.9\times10^{8}).
const TEX_SLOT = /\\htmlData\{claim=([^,}]+),name=([^,}]+)(?:,fmt=([^}]*))?\}\{((?:[^{}]|\{[^{}]*\})*)\}/g;

// A placeholder of the lesson's text, {{F2.2.steps}} or {{F2.2.mlp_cm:.0f}}: the pattern of
// attnlab.lesson.blocks.PLACEHOLDER_RE (claim, name, format spec).
export const PLACEHOLDER = /\{\{\s*(F\d\.\d+|M\d+|E\d+)\.([a-z_][a-z0-9_]*)(?::([^}]*))?\s*\}\}/g;
const PENDING_TEXT = "…";

/** A slot's format spec: TeX cannot hold "%", so the server spells it "pct" there. */
export const decodeFmt = (fmt) => (fmt ?? "").replace(/pct/g, "%");

/** Python's "{:.1e}" pads the exponent to two digits (2.2e-16, 1.5e-05); JS does not. */
function exponential(x, digits) {
  return x.toExponential(digits).replace(/e([+-])(\d)$/, "e$10$2");
}

function scientific(x, digits, tex) {
  const [mantissa, exponent] = x.toExponential(digits).split("e");
  const power = String(Number(exponent));
  if (tex) return `${mantissa}\\times10^{${power}}`;
  return `${mantissa} × 10${[...power].map((c) => SUPERSCRIPT[c]).join("")}`;
}

/**
 * A measured value as the reader sees it; spec: "", ".Nf", ".N%" or "sciN". Returns null when
 * the value cannot be shown (missing, not a finite number), so the slot stays pending.
 */
export function formatValue(value, spec = "", { tex = false } = {}) {
  const text = plainText(value, spec, tex);
  return text !== null && tex ? text.replace(/%/g, "\\%") : text;
}

function plainText(value, spec, tex) {
  if (typeof value === "string") return value;
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  const fixed = /^\.(\d+)([f%])$/.exec(spec || "");
  if (spec && spec.startsWith("sci")) return scientific(value, Number(spec.slice(3) || 1), tex);
  if (fixed) return fixed[2] === "%" ? `${(value * 100).toFixed(Number(fixed[1]))}%` : value.toFixed(Number(fixed[1]));
  if (spec) return null; // the server refuses other specs; never guess
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  // three significant digits without trailing zeros (Python's "{:.3g}"), or "{:.1e}"
  return Math.abs(value) >= 1e-3 ? String(Number(value.toPrecision(3))) : exponential(value, 1);
}

/** values: {claim: {name: value}}; undefined when not measured (yet). */
export function lookup(values, claim, name) {
  return values?.[claim]?.[name];
}

/** The prose slot of one number, as attnlab.lesson.values.slot_html writes it. */
function slotHTML(claim, name, fmt, shown) {
  return `<span class="val${shown === null ? " pending" : ""}" data-claim="${claim}" data-name="${name}" `
    + `data-fmt="${escapeHTML(fmt)}">${escapeHTML(shown ?? PENDING_TEXT)}</span>`;
}

/** Escaped catalogue text with its {{claim.name:fmt}} placeholders as slots filled from `values`
 *  (pending where a value is not known yet; fillSlots fills them later). */
export function slotsHTML(escaped, values) {
  return escaped.replace(PLACEHOLDER, (whole, claim, name, fmt = "") =>
    slotHTML(claim, name, fmt, formatValue(lookup(values, claim, name), fmt)));
}

/** Fill every prose slot under `root`; returns how many are still pending. */
export function fillSlots(root, values) {
  let pending = 0;
  for (const span of root.querySelectorAll("span.val[data-claim]")) {
    const text = formatValue(lookup(values, span.dataset.claim, span.dataset.name), decodeFmt(span.dataset.fmt));
    if (text === null) {
      pending += span.classList.contains("pending") ? 1 : 0;
      continue;
    }
    if (span.textContent !== text) span.textContent = text;
    span.classList.remove("pending");
  }
  return pending;
}

/** TeX with its slots filled from `values` (slots without a value keep what they show). */
export function texWithValues(tex, values) {
  return tex.replace(TEX_SLOT, (whole, claim, name, fmt, shown) => {
    const text = formatValue(lookup(values, claim, name), decodeFmt(fmt), { tex: true });
    const body = text ?? shown;
    return `\\htmlData{claim=${claim},name=${name}${fmt ? `,fmt=${fmt}` : ""}}{${body}}`;
  });
}

/** Whether a formula's TeX holds a slot (only those are redrawn when values arrive). */
export const hasSlot = (tex) => tex.includes("\\htmlData{claim=");
