// Mounting figure views and feeding them data. A view is ./figures/<name>.js; what it exports and
// the ctx it is mounted with are described in ./viewctx.js (a notebook builds the same ctx).
// The API answer of GET /api/figures/<name> goes to update(data); an error is shown in the
// figure instead. On a language switch relabel() is called, or, if the view has none, the view
// is re-mounted and given its last data again (settings live in the state, so nothing is lost).

import { figureRequester } from "./api.js";
import { clear, html } from "./svg.js";
import { mergeParams, viewContext } from "./viewctx.js";

export { createAnnouncer } from "./viewctx.js";

/**
 * Load the view modules of the <figure data-fig> elements `roots`; apiList is GET /api/figures.
 * Returns {specs, mountAll(env), settingsChanged(fig, names), relabelAll(), remount(figs)};
 * env = {store, t, announce, onData?(name, data)} (onData sees every answer after the view did).
 */
export async function figureViews(roots, apiList) {
  const described = new Map(apiList.map((f) => [f.name, f]));
  const entries = await Promise.all(roots.map(async (root) => {
    const name = root.dataset.fig;
    const module = await import(`../figures/${name}.js`);
    const { params, view_params: viewParams, constants } = described.get(name);
    return { name, root, body: root.querySelector(".fig-body"), module, apiParams: params, viewParams, constants,
      apiNames: new Set(params.map((p) => p.name)), view: null, last: null, requester: null };
  }));
  const specs = Object.fromEntries(entries.map((e) => [e.name, mergeParams(e.apiParams, e.viewParams, e.module.VIEW_PARAMS ?? [])]));
  const byName = new Map(entries.map((e) => [e.name, e]));
  let env = null;

  function showError(entry, message) {
    let box = entry.root.querySelector(".fig-error");
    if (!box) box = html("p", { class: "fig-error", role: "status" }, entry.root);
    box.hidden = !message;
    box.textContent = message ? env.t("fig.error", { message }) : "";
  }

  function apiSettings(entry) {
    const all = env.store.settings(entry.name);
    return Object.fromEntries(Object.entries(all).filter(([k]) => entry.apiNames.has(k)));
  }

  function request(entry) {
    entry.requester?.request(apiSettings(entry));
  }

  function deliver(entry, data) {
    entry.last = data;
    showError(entry, "");
    try {
      entry.view?.update(data);
    } catch (error) {
      console.error(`figure ${entry.name}: update failed`, error);
      showError(entry, error.message || String(error));
    }
    env.onData?.(entry.name, data); // e.g. the lesson's try-its read every answer (main.js)
  }

  function mount(entry, { fetch = true } = {}) {
    const { store, t, announce } = env;
    const ctx = viewContext(store, entry.name, { t, params: specs[entry.name], constants: entry.constants, announce });
    clear(entry.body);
    try {
      entry.view = entry.module.mount(entry.body, ctx) ?? null;
    } catch (error) {
      console.error(`figure ${entry.name}: mount failed`, error);
      showError(entry, error.message || String(error));
      return;
    }
    if (entry.apiParams.length && !entry.requester) {
      entry.requester = figureRequester(entry.name, (data) => deliver(entry, data), {
        onError: (message) => showError(entry, message),
        onBusy: (busy) => entry.root.setAttribute("aria-busy", String(busy)),
      });
    }
    if (fetch) request(entry);
  }

  function unmount(entry) {
    try {
      entry.view?.destroy?.();
    } finally {
      entry.view = null;
    }
  }

  return {
    specs,
    mountAll(environment) {
      env = environment;
      entries.forEach(mount);
    },
    settingsChanged(fig, names) {
      const entry = byName.get(fig);
      if (!entry?.view || names.includes("*")) return;
      if (names.some((n) => entry.apiNames.has(n))) request(entry);
    },
    relabelAll() {
      for (const entry of entries) {
        if (!entry.view) continue;
        if (entry.view.relabel) entry.view.relabel();
        else {
          unmount(entry);
          mount(entry, { fetch: !entry.last });
          if (entry.last) deliver(entry, entry.last);
        }
      }
    },
    remount(figs) {
      for (const fig of figs) {
        const entry = byName.get(fig);
        if (!entry) continue;
        unmount(entry);
        mount(entry);
      }
    },
  };
}
