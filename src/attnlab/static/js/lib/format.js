// Number formatting for readouts, one place so every figure writes numbers the same way
// (a real minus sign, no float noise, scientific notation only where it helps).

/** x limited to [lo, hi]. */
export function clamp(x, lo, hi) {
  return Math.min(Math.max(x, lo), hi);
}

/** A number with `digits` significant digits; "—" for a missing value. */
export function num(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(Number(x))) return "—";
  const v = Number(x);
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
    return v.toExponential(Math.max(digits - 1, 0)).replace("e-", "e−").replace(/^-/, "−");
  }
  return String(+v.toPrecision(digits)).replace(/^-/, "−");
}

/** A number with a fixed count of decimals ("12.3"), for values on a known scale like cm. */
export function fixed(x, decimals = 1) {
  if (x === null || x === undefined || !Number.isFinite(Number(x))) return "—";
  return Number(x).toFixed(decimals).replace(/^-/, "−");
}

/** An attention weight in [0, 1] as ".97" style text (two decimals, leading zero dropped). */
export function weight(w) {
  if (!Number.isFinite(Number(w))) return "—";
  const text = Number(w).toFixed(2);
  return text === "1.00" ? "1" : text.replace(/^0/, "");
}

/** An integer with thin-space thousands separators: 8194 → "8 194". */
export function count(n) {
  if (!Number.isFinite(Number(n))) return "—";
  return Math.round(Number(n)).toString().replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
}

/** Text made safe to put inside HTML markup or a quoted attribute. */
export function escapeHTML(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}
