// FIG 7: the reader's own camera frame. A file chooser and a drop zone send the file, as a data
// URL in a JSON body, to POST /api/tokens/frame; the server decodes, checks, crops and resizes it
// and answers the 224 × 224 frame with its patch grid at every patch size. Nothing is decoded
// here. The server's limits (`limits`: the tokens figure's constants.frame, from attnlab.frames)
// are stated in the hint, and a file they refuse at sight (its type, its size) is refused here
// without sending it; a refusal the server finds (too many pixels, not an image, busy) is told by
// its status, in the reader's language. A frame shown before a refusal keeps its way back.

import { postJSON } from "./api.js";
import { num } from "./format.js";
import { html } from "./svg.js";

const ENDPOINT = "/api/tokens/frame";
const MIB = 2 ** 20;
const REFUSALS = { 413: "tk.frame.tooLarge", 422: "tk.frame.notImage", 503: "tk.frame.busy" };

/** The limits as words' numbers: {mib: "6", mp: "16.8", side: 4096, formats: "PNG, JPEG, WebP"}. */
export function limitWords(limits) {
  return {
    mib: num(limits.max_bytes / MIB, 3),
    mp: num(limits.max_pixels / 1e6, 3),
    side: Math.floor(Math.sqrt(limits.max_pixels)),
    formats: limits.types.map((type) => type.replace("image/", "").toUpperCase().replace("WEBP", "WebP")).join(", "),
  };
}

/** Why `file` cannot be sent, as a catalogue key and its words, or null when it may be. */
function refusedAtSight(file, limits) {
  if (!limits) return null;
  if (!limits.types.includes(file.type)) return { key: "tk.frame.type", vars: { name: file.name } };
  if (file.size > limits.max_bytes) return { key: "tk.frame.big", vars: { size: num(file.size / MIB, 3) } };
  return null;
}

/** Read a File as a data URL (base64): the JSON body's "image". */
function dataUrl(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

/**
 * Build the picker in `parent`. t(key, vars) translates; onFrame(answer | null) gets the server's
 * answer for a new frame, or null when the reader goes back to the synthetic one; drop targets
 * also include `dropOn` (the camera image); post(url, body) sends it (the page's server; a
 * notebook's kernel). Returns {relabel(), reset()}.
 */
export function framePicker(parent, { t, onFrame, dropOn = null, post = postJSON, limits = null }) {
  const box = html("div", { class: "frame-picker" }, parent);
  // a button opens the (hidden) file input: focusable and labelled like every other control
  const caption = html("button", { type: "button", class: "frame-choose" }, box);
  const input = html("input", { type: "file", accept: (limits?.types ?? ["image/*"]).join(","), class: "frame-file",
    name: "tk-frame", hidden: true, tabindex: -1 }, box);
  caption.addEventListener("click", () => input.click());
  const back = html("button", { type: "button", class: "frame-back", hidden: true }, box);
  const status = html("p", { class: "frame-status", role: "status" }, box);
  let state = "synthetic"; // synthetic | sending | own | error
  let refusal = null; // {key, vars}: why the last file was refused
  let source = null;
  let showing = false; // the figure shows the reader's frame (a later refusal does not change it)
  const words = () => (limits ? limitWords(limits) : {});

  function show() {
    caption.textContent = t("tk.frame.choose");
    back.textContent = t("tk.frame.back");
    back.hidden = !showing || state === "sending";
    box.dataset.state = state;
    if (state === "own") {
      status.textContent = t("tk.frame.own", { w: source.width, h: source.height, format: source.format });
    } else if (state === "sending") status.textContent = t("tk.frame.sending");
    else if (state === "error") status.textContent = t(refusal.key, { ...words(), ...refusal.vars });
    else status.textContent = t(limits ? "tk.frame.hint" : "tk.frame.hint.plain", words());
  }

  function refuse(key, vars = {}) {
    state = "error";
    refusal = { key, vars };
    show();
  }

  async function send(file) {
    if (!file) return;
    const atSight = refusedAtSight(file, limits);
    if (atSight) return refuse(atSight.key, atSight.vars); // never sent: the server would refuse it
    state = "sending";
    show();
    try {
      const answer = await post(ENDPOINT, { image: await dataUrl(file) });
      state = "own";
      source = answer.source;
      showing = true;
      onFrame(answer);
      show();
    } catch (error) {
      const key = REFUSALS[error.status];
      refuse(key ?? "tk.frame.error", { message: error.message || String(error) });
    }
  }

  input.addEventListener("change", () => {
    send(input.files?.[0]);
    input.value = ""; // the same file chosen again is a new choice
  });
  back.addEventListener("click", () => {
    state = "synthetic";
    showing = false;
    onFrame(null);
    show();
  });
  for (const target of [box, dropOn].filter(Boolean)) {
    target.addEventListener("dragover", (event) => {
      event.preventDefault();
      box.classList.add("is-over");
    });
    target.addEventListener("dragleave", () => box.classList.remove("is-over"));
    target.addEventListener("drop", (event) => {
      event.preventDefault();
      box.classList.remove("is-over");
      send(event.dataTransfer?.files?.[0]);
    });
  }
  show();
  return { relabel: show };
}
