// Notebook stand-ins for FIG 7's lib/layertiming.js and lib/framepicker.js (put in their place by
// ../build.mjs): the page's own modules, whose requests (GET /api/tokens/timing, POST
// /api/tokens/frame) go to the kernel over the widget's comm instead of the lesson's server,
// which a notebook does not have. The kernel side is attnlab.widgets.tokens; the messages'
// names are in ../../src/attnlab/widgets/protocol.json.

import PROTOCOL from "../../src/attnlab/widgets/protocol.json";
import { framePicker as pageFramePicker } from "../../src/attnlab/static/js/lib/framepicker.js";
import { layerTiming as pageLayerTiming } from "../../src/attnlab/static/js/lib/layertiming.js";
import { currentModel } from "./kernel.js";

const CHANNEL = PROTOCOL.channels.api;
const API = PROTOCOL.api;
const requesters = new WeakMap(); // model → its {get, post}: one listener per widget

/** get(url) and post(url, body) answered by the kernel: the answer's body, or an Error with the
 *  kernel's sentence (as lib/api.js rejects with the server's). */
function kernelRequests(model) {
  if (requesters.has(model)) return requesters.get(model);
  const waiting = new Map(); // id → {resolve, reject}
  let next = 0;
  model.on("msg:custom", (content) => {
    const m = content?.channel === CHANNEL ? content.message : null;
    const wait = m?.type === API.answer ? waiting.get(m.id) : null;
    if (!wait) return;
    waiting.delete(m.id);
    if (m.ok) wait.resolve(m.body);
    else wait.reject(new Error(m.error));
  });
  const ask = (message) => new Promise((resolve, reject) => {
    next += 1;
    waiting.set(next, { resolve, reject });
    model.send({ channel: CHANNEL, message: { ...message, id: next } });
  });
  const made = { get: (url) => ask({ type: API.get, url }), post: (url, body) => ask({ type: API.post, url, body }) };
  requesters.set(model, made);
  return made;
}

/** lib/layertiming.js's layerTiming, timed in the kernel. */
export function layerTiming(parent, options) {
  return pageLayerTiming(parent, { ...options, get: kernelRequests(currentModel()).get });
}

/** lib/framepicker.js's framePicker, the frame decoded in the kernel. */
export function framePicker(parent, options) {
  return pageFramePicker(parent, { ...options, post: kernelRequests(currentModel()).post });
}
