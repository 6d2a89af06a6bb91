// What a figure view is given, wherever it is mounted: the page (./view.js, from its store and
// the figure API) and a notebook (widgets/src/adapter.js, from the widget's model) build it here.
// A view is a module exporting mount(root, ctx) → { update(data), relabel?(), destroy?() } and
// optionally VIEW_PARAMS (settings of the page alone, kept in the URL but never sent to the API;
// settings that the server states, e.g. the range of a display scene, come with the figure's
// description as view_params instead).
// ctx = {
//   t(key, vars)      the current language's string (lib/i18n.js)
//   lang              "en" | "zh" (a getter: always the current language)
//   settings          this figure's current settings (a getter; read-only by convention)
//   params            this figure's parameter descriptions (the description's params and
//                     view_params, Param.describe(), then the module's VIEW_PARAMS)
//   constants         the description's constants (attnlab.figures.<module>.CONSTANTS)
//   set(partial)      change settings: state → URL, and an API request if an API setting changed;
//                     returns the names that actually changed (invalid values are ignored)
//   hl(node, key)     mark a drawing element for the formula ↔ figure link (lib/highlight.js)
//   announce(text)    say something to screen readers (an ARIA live region)
// }

import { hl } from "./highlight.js";

/** A polite ARIA live region writer (re-announces identical text too). */
export function createAnnouncer(region) {
  return (text) => {
    if (!region) return;
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 30);
  };
}

/** A figure's parameter descriptions: the API's, then view-only ones; the first of a name wins. */
export function mergeParams(...lists) {
  const seen = new Set();
  return lists.flat().filter((p) => !seen.has(p.name) && seen.add(p.name));
}

/** The ctx of figure `name` over `store` (lib/state.js); params: mergeParams' list for it. */
export function viewContext(store, name, { t, params, constants, announce }) {
  return {
    t,
    get lang() { return store.state.lang; },
    get settings() { return store.settings(name); },
    params,
    constants,
    set: (partial) => store.set(name, partial),
    hl,
    announce,
  };
}
