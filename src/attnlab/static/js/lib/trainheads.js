// FIG 2's heads: one colour each, shared by the scene's rings (predictionmarks.js), the heads'
// weights over time (headcurves.js) and the colour-match table's head titles (colourmatch.js),
// so "head 2" looks the same everywhere. Head 1 keeps the attention amber; the others are hues
// no block has (with the rings' dash per head, colour is never the only cue).

export const HEAD_COLOURS = Object.freeze(["#E69F00", "#56B4E9", "#9A6200", "#6b7280"]);

/** The colour of head h (0-based). */
export const headColour = (h) => HEAD_COLOURS[h % HEAD_COLOURS.length];
