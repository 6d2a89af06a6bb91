// Per-view string catalogues. The page's one catalogue (static/i18n/<lang>.json) is owned by the
// page shell; a group of figure views can bring its own flat catalogue
// static/i18n/<group>.<lang>.json and look strings up there first, then in the page's.
// A view module loads its catalogue with top-level await, so the strings are there at mount;
// they come with the page's own, one language at a time (./catalogues.js).

import { groupStrings } from "./catalogues.js";
import { translator } from "./i18n.js";

/** The catalogues of `group`: {lang: {key: text}}, the reader's language loaded (the other is
 *  added to the same object when the reader switches). */
export function loadViewStrings(group) {
  return groupStrings(group);
}

/**
 * A t(key, vars) for a view: the key from `catalogues` (current language, then English) when
 * either has it, else the page's translator ctx.t. ctx.lang is read at each call, so a language
 * switch needs no new translator.
 */
export function viewTranslator(catalogues, ctx) {
  const own = translator(catalogues, () => ctx.lang);
  return (key, vars = {}) => {
    const known = catalogues[ctx.lang]?.[key] !== undefined || catalogues.en?.[key] !== undefined;
    return known ? own(key, vars) : ctx.t(key, vars);
  };
}
