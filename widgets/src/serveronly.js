// Notebook stand-ins for FIG 7's two parts that measure or decode on the lesson's server:
// lib/layertiming.js (one layer timed by GET /api/tokens/timing) and lib/framepicker.js (a frame
// sent to POST /api/tokens/frame). A notebook has no such server (the page's API calls would
// reach the notebook's own), so the widget leaves both out: the learner's own frame is given
// in Python instead, tokens(image=frame) (attnlab.widgets.tokens). Same return shapes.

/** In place of lib/layertiming.js's layerTiming: nothing drawn, nothing requested. */
export function layerTiming() {
  return { request() {}, relabel() {}, destroy() {} };
}

/** In place of lib/framepicker.js's framePicker: nothing drawn, nothing sent. */
export function framePicker() {
  return { relabel() {}, reset() {} };
}
