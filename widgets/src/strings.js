// Notebook stand-in for lib/viewstrings.js (the bundler puts it in that module's place for the
// views; see ../build.mjs). The page fetches each view's catalogue from the server; in a notebook
// there is no server, so the kernel sends every catalogue in the widget's `strings` trait and
// the adapter fills them in here before the first mount. viewTranslator reads the catalogues at
// each call, so an object filled later is seen by a view that loaded it earlier.

export { viewTranslator } from "../../src/attnlab/static/js/lib/viewstrings.js";

const groups = {}; // group → {en: {...}, zh: {...}}

/** The (shared, filled later) catalogue object of `group`: what a view module awaits at load. */
export async function loadViewStrings(group) {
  groups[group] ??= {};
  return groups[group];
}

/** Every group's catalogues from the kernel: {group: {lang: {key: text}}}. */
export function fillStrings(all) {
  for (const [group, langs] of Object.entries(all ?? {})) {
    groups[group] ??= {};
    Object.assign(groups[group], langs);
  }
}
