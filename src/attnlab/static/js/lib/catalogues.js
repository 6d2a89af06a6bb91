// The interface strings, one language at a time: GET /api/strings/{lang} answers
// {group: {key: text}}, "page" the page's catalogue and every other group a figure view's
// (attnlab.catalogues; a key missing in Chinese comes in English). The page loads its own
// language when it starts and the other when the reader switches (main.js), so a first load
// carries one catalogue, not four files per language.

import { browserLang } from "./i18n.js";

/** lang → {key: text}: the page's catalogues, as lib/i18n.js translator reads them. */
export const pageStrings = {};
const groups = {}; // group → {lang → {key: text}}: the objects views hold (lib/viewstrings.js)
const loading = new Map(); // lang → the promise of its load
let first = null; // the first language's load: what a view module waits for at import

/** Load language `lang`'s strings (once; again only after a failure). */
export function loadStrings(lang, base = "/api/strings") {
  if (!loading.has(lang)) {
    const done = fetch(`${base}/${lang}`)
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(response.statusText))))
      .then((all) => {
        for (const [group, strings] of Object.entries(all)) {
          if (group === "page") pageStrings[lang] = strings;
          else (groups[group] ??= {})[lang] = strings;
        }
      })
      .catch(() => loading.delete(lang)); // its keys show as themselves; a later switch retries
    loading.set(lang, done);
    first ??= done;
  }
  return loading.get(lang);
}

/** The (shared, filled as languages load) catalogues of view group `group`: {lang: {key: text}}. */
export async function groupStrings(group) {
  await (first ?? loadStrings(browserLang()));
  groups[group] ??= {};
  return groups[group];
}
