// The notice a shared link gets when part of it cannot be used: which pieces were ignored and
// what the page uses instead. lib/state.js reads every piece of the hash on its own and reports
// the ones it left out ({key, given, reason, fig?, spec?}); the ranges come from the same
// parameter descriptions the state checks against (GET /api/figures, or a view's VIEW_PARAMS),
// so nothing here restates a limit. One polite status region, in the reader's language, until
// the reader closes it (its button, or Escape).

import { escapeHTML } from "./format.js";
import { encodeValue } from "./state.js";

const esc = escapeHTML;
const MAX_SHOWN = 40; // characters of a bad value shown; a link can hold anything
const MAX_ITEMS = 6; // pieces listed at first; a button shows the rest

const clip = (text) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text);

/** What a parameter description allows, in words: "2 numbers, each from -8 to 8". */
export function rangeText(spec, t) {
  const bounds = { min: spec.min, max: spec.max, length: spec.length };
  const span = spec.max === undefined ? "atLeast" : "between";
  switch (spec.kind) {
    case "int": return t(`notice.range.int.${span}`, bounds);
    case "float": return t(`notice.range.float.${span}`, bounds);
    case "vector": return t(`notice.range.vector.${span}`, bounds);
    case "bool": return t("notice.range.bool");
    case "choice": return t("notice.range.choice", { choices: (spec.choices ?? []).join(", ") });
    default: return "";
  }
}

/**
 * One reported piece as a sentence: what was given, why it was left out, what is used.
 * numbers: figure name → its number (lib/figureshells.js).
 */
export function problemText(problem, { t, store, numbers }) {
  const { key, fig, spec, given, reason } = problem;
  if (reason === "unknown") return t("notice.unknown", { key: clip(key) });
  if (reason === "unreadable") return t("notice.unreadable", { piece: clip(key) });
  if (reason === "place") return t("notice.place", { piece: clip(key) });
  if (!spec) return t("notice.malformed", { piece: clip(`${key}=${given}`) });
  const setting = fig ? t("notice.setting", { key, n: numbers[fig] ?? "?" }) : key;
  const value = fig ? store.settings(fig)[spec.name] : store.state.lang;
  const used = [value].flat().map((x) => encodeValue(x)).join(", "); // a vector: "2, 0.6"
  if (reason === "malformed") return t("notice.malformedValue", { setting, given: clip(given), used });
  return t("notice.invalid", { setting, given: clip(given), range: rangeText(spec, t), used });
}

/**
 * The link notice in `region` (an element with role=status that stays in the page, so that
 * screen readers hear what is put in it). show(problems) replaces what it says ([] hides it);
 * add(problem) adds one; relabel() rewrites it in the current language; dismiss() closes it.
 */
export function createNotice(region, { t, store, numbers }) {
  let problems = [];
  let expanded = false; // the reader asked for every piece, not the first MAX_ITEMS

  function render() {
    if (!region) return;
    if (!problems.length) {
      region.replaceChildren();
      region.classList.remove("is-shown");
      return;
    }
    const shown = expanded ? problems : problems.slice(0, MAX_ITEMS);
    const items = shown.map((p) => `<li>${esc(problemText(p, { t, store, numbers }))}</li>`);
    const rest = problems.length - shown.length;
    const more = rest > 0 ? `<button type="button" class="btn link-notice-more">`
      + `${esc(t("notice.more", { n: rest }))}</button>` : "";
    region.innerHTML = `<div class="link-notice-text"><p class="link-notice-title">${esc(t("notice.title"))}</p>`
      + `<ul>${items.join("")}</ul>${more}</div>`
      + `<button type="button" class="btn link-notice-close" aria-label="${esc(t("notice.closeLabel"))}">`
      + `<span aria-hidden="true">×</span> ${esc(t("notice.close"))}</button>`;
    region.querySelector(".link-notice-close").addEventListener("click", dismiss);
    region.querySelector(".link-notice-more")?.addEventListener("click", showAll);
    region.classList.add("is-shown");
  }

  function showAll() {
    expanded = true;
    render();
    region.querySelectorAll("li")[MAX_ITEMS]?.setAttribute("tabindex", "-1");
    region.querySelectorAll("li")[MAX_ITEMS]?.focus(); // the focus stays in the notice, on what is new
  }

  function dismiss() {
    const hadFocus = region?.contains(document.activeElement);
    problems = [];
    render();
    if (hadFocus) document.getElementById("main")?.focus({ preventScroll: true }); // not lost on <body>
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && problems.length) dismiss();
  });

  return {
    show(list) {
      problems = [...(list ?? [])];
      expanded = false;
      render();
    },
    /** One more piece found wrong later (e.g. FIG 2's step beyond the server's limit). */
    add(problem) {
      problems = [...problems.filter((p) => p.key !== problem.key), problem];
      render();
    },
    relabel: render,
    dismiss,
  };
}
