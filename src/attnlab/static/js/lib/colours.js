// One colour per concept, from the Okabe–Ito palette (safe for the common forms of colour
// blindness). Views import these names instead of writing hex codes, so "attention" is the same
// amber in every figure and in the formulas (css/style.css mirrors them as --c-* variables).

export const PALETTE = Object.freeze({
  attention: "#E69F00", // amber: attention, the query q
  query: "#E69F00",
  mlp: "#7B61A8", // purple: the MLP baseline, the keys k
  key: "#7B61A8",
  value: "#0072B2", // blue: values v
  teal: "#009E73", // cached / "good" cells, the −1 end of diverging maps
  red: "#D55E00", // unscaled scores, stale cache cells
  sky: "#56B4E9",
  ink: "#1f2328", // truth, axes, text
  muted: "#6b7280",
  grid: "#e5e7eb",
});

// The six block colours of the tabletop (FIG 1, FIG 2), in the trainer's colour order
// (attnlab.tabletop.scenes.COLOURS: a scene message names colours by these indices). Okabe–Ito
// hues; each block also shows its initial, so the colour is never the only cue.
export const OBJECT_COLOURS = Object.freeze([
  { name: "red", hex: "#D55E00" },
  { name: "orange", hex: "#E69F00" },
  { name: "yellow", hex: "#F0E442" },
  { name: "green", hex: "#009E73" },
  { name: "blue", hex: "#0072B2" },
  { name: "purple", hex: "#CC79A7" },
]);

const BY_NAME = Object.freeze({
  ...Object.fromEntries(OBJECT_COLOURS.map((c) => [c.name, c.hex])),
  sky: "#56B4E9",
  cyan: "#56B4E9",
  pink: "#CC79A7",
  black: "#333333",
  grey: "#999999",
  gray: "#999999",
});

/** The display colour of a block: by the trainer's colour name if known, else by index. */
export function objectColour(nameOrIndex) {
  if (typeof nameOrIndex === "string" && BY_NAME[nameOrIndex]) return BY_NAME[nameOrIndex];
  const i = Number(nameOrIndex) || 0;
  return OBJECT_COLOURS[((i % 6) + 6) % 6].hex;
}

// Multi-head line styles (FIG 2 caption): head 1 solid, 2 dashed, 3 dotted, 4 dash-dot.
export const HEAD_DASH = Object.freeze(["", "6 4", "0.5 4", "8 3 0.5 3"]);
// (drawn with round line caps, so "0.5 4" reads as dots)
