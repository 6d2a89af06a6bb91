// Per-view string catalogues. The page's one catalogue (static/i18n/<lang>.json) is owned by the
// page shell; a group of figure views can bring its own flat catalogue
// static/i18n/<group>.<lang>.json and look strings up there first, then in the page's.
// A view module loads its catalogue with top-level await, so the strings are there at mount.

import { translator } from "./i18n.js";
import { LANGS } from "./state.js";

/** Both languages of catalogue `group` ({} for one that fails to load: keys fall through). */
export async function loadViewStrings(group, base = "/static/i18n") {
  const entries = await Promise.all(LANGS.map(async (lang) => {
    try {
      const response = await fetch(`${base}/${group}.${lang}.json`);
      return [lang, response.ok ? await response.json() : {}];
    } catch {
      return [lang, {}];
    }
  }));
  return Object.fromEntries(entries);
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
