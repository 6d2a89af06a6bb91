// Interface strings in two languages from one catalogue per language (static/i18n/en.json,
// zh.json, each with page.<lang>.json beside it; loaded by ./catalogues.js). Static markup names its string with
// data-i18n="key" (text) or data-i18n-attr="aria-label:key;title:key" (attributes); views call
// t(key, {vars}).

import { LANGS } from "./state.js";

/** The reader's language from the browser when the link names none: Chinese or English. */
export function browserLang() {
  const prefs = navigator.languages?.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of prefs) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

/**
 * A translator bound to a language getter: t(key, vars) looks the key up in the current
 * language, falls back to English, then to the key itself; "{name}" is replaced from vars.
 */
export function translator(catalogues, getLang) {
  return (key, vars = {}) => {
    const text = catalogues[getLang()]?.[key] ?? catalogues.en?.[key] ?? key;
    return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  };
}

/** Apply the catalogue to static markup under `root` and set <html lang>. */
export function applyI18n(root, t, lang) {
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
  for (const node of root.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n);
  }
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((s) => s.trim());
      if (attr && key) node.setAttribute(attr, t(key));
    }
  }
}

/**
 * Run `change()` (which rewrites text) without moving what the reader is looking at: the element
 * at the top of the viewport keeps its on-screen position although the text above it reflowed.
 */
export function keepScroll(change) {
  const probe = document.elementFromPoint(window.innerWidth / 2, Math.min(80, window.innerHeight / 4));
  const anchor = probe?.closest("section, figure, .prose, h2, h3, p") ?? null;
  const before = anchor?.getBoundingClientRect().top;
  change();
  if (anchor && before !== undefined && anchor.isConnected) {
    window.scrollBy(0, anchor.getBoundingClientRect().top - before);
  }
}
