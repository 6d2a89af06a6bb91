// FIG 7: the reader's own camera frame. A file chooser and a drop zone send the file, as a data
// URL in a JSON body, to POST /api/tokens/frame; the server decodes, checks, crops and resizes it
// and answers the 224 × 224 frame with its patch grid at every patch size. Nothing is decoded
// or measured here: a refusal (too large, not an image) shows the server's own sentence.

import { postJSON } from "./api.js";
import { html } from "./svg.js";

const ENDPOINT = "/api/tokens/frame";

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
export function framePicker(parent, { t, onFrame, dropOn = null, post = postJSON }) {
  const box = html("div", { class: "frame-picker" }, parent);
  // a button opens the (hidden) file input: focusable and labelled like every other control
  const caption = html("button", { type: "button", class: "frame-choose" }, box);
  const input = html("input", { type: "file", accept: "image/png,image/jpeg,image/webp", class: "frame-file",
    name: "tk-frame", hidden: true, tabindex: -1 }, box);
  caption.addEventListener("click", () => input.click());
  const back = html("button", { type: "button", class: "frame-back", hidden: true }, box);
  const status = html("p", { class: "frame-status", role: "status" }, box);
  let state = "synthetic"; // synthetic | sending | own | error
  let message = "";
  let source = null;

  function show() {
    caption.textContent = t("tk.frame.choose");
    back.textContent = t("tk.frame.back");
    back.hidden = state !== "own";
    box.dataset.state = state;
    if (state === "own") {
      status.textContent = t("tk.frame.own", { w: source.width, h: source.height, format: source.format });
    } else if (state === "sending") status.textContent = t("tk.frame.sending");
    else if (state === "error") status.textContent = t("tk.frame.error", { message });
    else status.textContent = t("tk.frame.hint");
  }

  async function send(file) {
    if (!file) return;
    state = "sending";
    show();
    try {
      const answer = await post(ENDPOINT, { image: await dataUrl(file) });
      state = "own";
      source = answer.source;
      onFrame(answer);
    } catch (error) {
      state = "error";
      message = error.message || String(error);
    }
    show();
  }

  input.addEventListener("change", () => {
    send(input.files?.[0]);
    input.value = ""; // the same file chosen again is a new choice
  });
  back.addEventListener("click", () => {
    state = "synthetic";
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
