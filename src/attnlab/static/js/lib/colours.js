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

// The display colour of each tabletop block colour (FIG 1, FIG 2), by the name the engine gives
// it. Which colours there are, and in which order, is the engine's (attnlab.tabletop.scenes.COLOURS,
// sent as the figures' constants.colours); attnlab.export.style.OBJECT_COLOURS draws the slides
// with the same hexes (tests/e2e/test_lib.py holds the three together). Okabe–Ito hues; each
// block also shows its initial, so the colour is never the only cue.
export const OBJECT_COLOURS = Object.freeze({
  red: "#D55E00",
  orange: "#E69F00",
  yellow: "#F0E442",
  green: "#009E73",
  blue: "#0072B2",
  purple: "#CC79A7",
});

// Blocks light enough that their letter is drawn dark (ink) rather than white.
export const DARK_INK = new Set(["yellow", "orange"]);

/** The display colour of a block colour the engine named; an unknown name is a bug, said so. */
export function objectColour(name) {
  const hex = OBJECT_COLOURS[name];
  if (!hex) throw new Error(`no display colour for block colour ${JSON.stringify(name)}`);
  return hex;
}

/** The colour of the letter drawn on a block of colour `name`. */
export const letterInk = (name) => (DARK_INK.has(name) ? PALETTE.ink : "#fff");

// Multi-head line styles (FIG 2 caption): head 1 solid, 2 dashed, 3 dotted, 4 dash-dot.
export const HEAD_DASH = Object.freeze(["", "6 4", "0.5 4", "8 3 0.5 3"]);
// (drawn with round line caps, so "0.5 4" reads as dots)
