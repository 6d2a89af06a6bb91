// "Show everyone": the teacher picks a figure and its settings (or a try-it) and sends it; the
// server checks the settings against the figure's own ranges (attnlab.classroom.show) and every
// learner's page offers to go there (lib/classshow.js), or goes at once with "follow me".
// The settings' fields come from GET /api/figures, so nothing here restates a range.

import { postJSON } from "../lib/api.js";
import { encodeValue } from "../lib/state.js";
import { clear, html } from "../lib/svg.js";

/** "d_k = 256, scaled = false": what was sent, in words. */
export function settingsText(settings) {
  return Object.entries(settings).map(([k, v]) => `${k} = ${encodeValue(v)}`).join(", ");
}

function followBox(form, t) {
  const label = html("label", { class: "teach-follow" }, form);
  const box = html("input", { type: "checkbox", name: "follow" }, label);
  html("span", { text: t("teach.follow") }, label);
  return box;
}

function settingFields(box, figure) {
  clear(box);
  for (const p of figure?.params ?? []) {
    const label = html("label", { class: "teach-setting" }, box);
    html("span", { class: "teach-setting-name", text: p.name }, label);
    html("input", { type: "text", name: p.name, value: encodeValue(p.default), "data-setting": p.name,
      autocomplete: "off", spellcheck: "false" }, label);
  }
}

/**
 * The two forms; `say(words)` reports what was sent or why not, words() in the language of the
 * moment (teach/status.js). Returns {relabel(labels)}.
 */
export function createShowForms({ figureForm, tryForm, figures, t, say }) {
  let labels = { tries: {} }; // the try-its' names in the current language (relabel's)

  async function send(body, sentWords) {
    try {
      await postJSON("/api/teach/show", body);
      say(sentWords);
    } catch (error) {
      const message = error.message || String(error);
      say(() => t("teach.notSent", { message }));
    }
  }

  function build(next) {
    labels = next;
    clear(figureForm);
    clear(tryForm);
    const pick = html("select", { name: "figure", "aria-label": t("teach.figure") }, figureForm);
    for (const f of figures) html("option", { value: f.name, text: `FIG ${f.number}` }, pick);
    const fields = html("fieldset", { class: "teach-settings" }, figureForm);
    html("legend", { text: t("teach.settings") }, fields);
    const body = html("div", {}, fields);
    settingFields(body, figures[0]);
    pick.addEventListener("change", () => settingFields(body, figures.find((f) => f.name === pick.value)));
    const followFig = followBox(figureForm, t);
    html("button", { type: "submit", class: "btn", "data-role": "show-figure", text: t("teach.send") }, figureForm);
    figureForm.onsubmit = (event) => {
      event.preventDefault();
      const settings = Object.fromEntries([...body.querySelectorAll("input[data-setting]")]
        .map((input) => [input.name, input.value]));
      const number = figures.find((f) => f.name === pick.value)?.number;
      send({ figure: pick.value, settings, follow: followFig.checked },
        () => t("teach.sent", { what: `FIG ${number} (${settingsText(settings)})` }));
    };

    const tries = html("select", { name: "try", "aria-label": t("teach.tryPick") }, tryForm);
    for (const [id, label] of Object.entries(labels.tries)) html("option", { value: id, text: label }, tries);
    const followTry = followBox(tryForm, t);
    html("button", { type: "submit", class: "btn", "data-role": "show-try", text: t("teach.sendTry") }, tryForm);
    tryForm.onsubmit = (event) => {
      event.preventDefault();
      const id = tries.value;
      send({ try: id, follow: followTry.checked }, () => t("teach.sent", { what: labels.tries[id] ?? id }));
    };
  }

  return { relabel: build };
}
