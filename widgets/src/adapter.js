// One figure view of the page as an anywidget front-end. The page mounts a view with a ctx built
// from its store and the figure API (static/js/lib/view.js); here the same ctx is built
// (lib/viewctx.js) from the widget's model, and the kernel stands in for the API:
//   the reader's action → ctx.set → the page's own store (lib/state.js checks view-only values)
//   → {type: "set", seq, settings} to the kernel → the figure's Params validate, compute()
//   → the `data` trait → view.update(data); a refused value → the `error` trait, shown in the
//   figure as the page shows an API error.
// Settings changed from Python (w.settings = …) re-mount the view, as a pasted link does on the
// page. Traits: figure, params, settings, data, error, lang, strings (attnlab.widgets.base); the
// custom messages' names: ../../src/attnlab/widgets/protocol.json (the kernel reads it too).

import PROTOCOL from "../../src/attnlab/widgets/protocol.json";
import { translator } from "../../src/attnlab/static/js/lib/i18n.js";
import { createStore } from "../../src/attnlab/static/js/lib/state.js";
import { clear, html } from "../../src/attnlab/static/js/lib/svg.js";
import { createAnnouncer, mergeParams, viewContext } from "../../src/attnlab/static/js/lib/viewctx.js";
import { withModel } from "./kernel.js";
import { fillStrings } from "./strings.js";

const { channels: CHANNELS, settings: MESSAGE } = PROTOCOL;

// The kernel keeps an array setting in the learner's shape (FIG 1's keys: 5 × 2 numbers); the
// page's store holds it flat, as a URL does, and the kernel takes it back flat from a view.
const flat = (settings) =>
  Object.fromEntries(Object.entries(settings ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.flat(Infinity) : v]));

// requestAnimationFrame does not fire in a hidden tab; a timer keeps the widget answering there
const nextFrame = (fn) => (document.hidden ? setTimeout(fn, 16) : requestAnimationFrame(fn));

/** The view's figure data, settings and errors over one model; returns anywidget's cleanup. */
function render(view, { model, el }) {
  fillStrings(model.get("strings"));
  const name = model.get("figure");
  const specs = { [name]: mergeParams(model.get("params"), model.get("view_params") ?? [], view.VIEW_PARAMS ?? []) };
  const apiNames = new Set(model.get("params").map((p) => p.name));
  const store = createStore(specs, { lang: model.get("lang") });
  store.set(name, flat(model.get("settings")));
  const t = translator(model.get("strings").page ?? {}, () => store.state.lang);

  const root = html("div", { class: "attnlab-nb", lang: store.state.lang }, el);
  const body = html("div", { class: "fig-body" }, root);
  const errorBox = html("p", { class: "fig-error", role: "status", hidden: true }, root);
  const live = html("div", { class: "sr-only", "aria-live": "polite" }, root);
  const constants = model.get("constants") ?? {};
  const ctx = viewContext(store, name, { t, params: specs[name], constants, announce: createAnnouncer(live) });

  const sync = { sent: 0, acked: 0, pending: null }; // the kernel's answers to our own changes
  let mounted = null;
  let last = null;

  function showError(message) {
    errorBox.hidden = !message;
    errorBox.textContent = message ? t("fig.error", { message }) : "";
  }

  function deliver(data) {
    if (!data || !Object.keys(data).length) return;
    last = data;
    try {
      mounted?.update(data);
    } catch (error) {
      console.error(`attnlab ${name}: update failed`, error);
      showError(error.message || String(error));
    }
  }

  function mount() {
    mounted?.destroy?.();
    clear(body);
    try {
      mounted = withModel(model, () => view.mount(body, ctx)) ?? null;
    } catch (error) {
      console.error(`attnlab ${name}: mount failed`, error);
      showError(error.message || String(error));
      return;
    }
    if (last) deliver(last);
  }

  /** Our API settings to the kernel, at most once a frame (a drag changes them every event). */
  function send(partial) {
    const first = sync.pending === null;
    sync.pending = { ...sync.pending, ...partial };
    if (!first) return;
    nextFrame(() => {
      const settings = sync.pending;
      sync.pending = null;
      sync.sent += 1;
      model.send({ channel: CHANNELS.settings, message: { type: MESSAGE.set, seq: sync.sent, settings } });
    });
  }

  const unsubscribe = store.subscribe((event) => {
    if (event.kind !== "settings") return;
    const api = event.changed.filter((n) => apiNames.has(n));
    if (api.length) send(Object.fromEntries(api.map((n) => [n, store.settings(name)[n]])));
  });

  const handlers = {
    "change:data": () => deliver(model.get("data")),
    "change:error": () => showError(model.get("error")),
    "change:settings": () => {
      // an echo of our own change while newer ones are on their way is not news
      if (sync.acked < sync.sent || sync.pending) return;
      if (store.set(name, flat(model.get("settings"))).length) mount();
    },
    "change:lang": () => {
      store.setLang(model.get("lang"));
      root.lang = store.state.lang;
      if (mounted?.relabel) mounted.relabel();
      else mount();
    },
    "msg:custom": (content) => {
      if (content?.channel === CHANNELS.settings && content.message?.type === MESSAGE.ack) {
        sync.acked = Math.max(sync.acked, content.message.seq);
      }
    },
  };
  for (const [event, fn] of Object.entries(handlers)) model.on(event, fn);

  mount();
  showError(model.get("error"));
  deliver(model.get("data"));
  // the kernel's next displays need no PNG beside the widget: a front-end here draws it
  model.send({ channel: CHANNELS.settings, message: { type: MESSAGE.shown } });
  return () => {
    for (const [event, fn] of Object.entries(handlers)) model.off(event, fn);
    unsubscribe();
    mounted?.destroy?.();
  };
}

/** anywidget's module for `view` (a module exporting mount(root, ctx), maybe VIEW_PARAMS). */
export function widget(view) {
  return { render: (props) => render(view, props) };
}
