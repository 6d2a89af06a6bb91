// Powers of ten written with superscripts: tick labels for log axes that span many decades (FIG 5's
// 10⁻¹⁷ … 1, FIG 7's FLOPs), labelled every few decades so they never crowd, and readouts.

const SUP = Object.freeze({ "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷",
  8: "⁸", 9: "⁹" });

/** 1e-12 → "10⁻¹²", 1 → "1", 10 → "10". */
export function powerOfTen(v) {
  const p = Math.round(Math.log10(v));
  if (p === 0) return "1";
  if (p === 1) return "10";
  return `10${String(p).split("").map((c) => SUP[c]).join("")}`;
}

/** A tick formatter that labels every `every`-th decade (the others keep their tick, no text). */
export function everyNthPower(every) {
  return (v) => (Math.round(Math.log10(v)) % every === 0 ? powerOfTen(v) : "");
}

/** A readout on a log scale: 0.48 → "0.48", 1.24e8 → "1.24 × 10⁸", 2.3e−16 → "2.3 × 10⁻¹⁶". */
export function scientific(x, digits = 3) {
  const v = Number(x);
  if (!Number.isFinite(v)) return "—";
  if (v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4)) {
    return String(+v.toPrecision(digits)).replace(/^-/, "−");
  }
  let p = Math.floor(Math.log10(Math.abs(v)));
  let mantissa = +(v / 10 ** p).toPrecision(digits);
  if (Math.abs(mantissa) >= 10) { // 9.996e7 rounds up to 10 × 10⁷: say 1 × 10⁸
    mantissa /= 10;
    p += 1;
  }
  return `${String(mantissa).replace(/^-/, "−")} × ${powerOfTen(10 ** p)}`;
}
