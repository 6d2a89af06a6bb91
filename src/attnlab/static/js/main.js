// The page's controller: loads the figure descriptions and both string catalogues, builds the
// ONE state object (the URL hash wins over the defaults), mounts each figure view, and wires the
// one-way flow  reader's action → state (→ URL) → API → view.update(data).
// Views live in ./figures/<name>.js and export mount(root, ctx) → {update(data), relabel?(),
// destroy?()}; ctx is documented in ./lib/view.js.

import { getJSON } from "./lib/api.js";
import { initHighlight } from "./lib/highlight.js";
import { applyI18n, browserLang, keepScroll, loadCatalogues, translator } from "./lib/i18n.js";
import { renderMath } from "./lib/math.js";
import { createStore } from "./lib/state.js";
import { createAnnouncer, figureViews } from "./lib/view.js";

const URL_DELAY_MS = 150; // a drag changes settings every frame; the address bar need not

function debounce(fn, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

/** Render the formulas of every text the page owns (prose slots, captions, formula blocks). */
function renderAllMath(markSymbols) {
  for (const node of document.querySelectorAll(".prose, figcaption, .formula")) renderMath(node);
  markSymbols(document);
}

/** Contents links scroll without touching the hash (the hash holds the state). */
function wireContents() {
  for (const link of document.querySelectorAll("nav.contents a[href^='#']")) {
    link.addEventListener("click", (event) => {
      const target = document.getElementById(link.getAttribute("href").slice(1));
      if (!target) return;
      event.preventDefault();
      target.scrollIntoView({ behavior: "smooth", block: "start" });
      target.focus({ preventScroll: true });
    });
  }
}

function wireLanguageSwitch(store) {
  for (const b of document.querySelectorAll("[data-set-lang]")) {
    b.addEventListener("click", () => store.setLang(b.dataset.setLang));
  }
}

function showLangButtons(lang) {
  for (const b of document.querySelectorAll("[data-set-lang]")) {
    b.setAttribute("aria-pressed", String(b.dataset.setLang === lang));
  }
}

async function loadFigureList() {
  try {
    return { list: await getJSON("/api/figures"), error: null };
  } catch (error) {
    return { list: [], error: error.message || String(error) };
  }
}

async function start() {
  const [catalogues, figures] = await Promise.all([loadCatalogues(), loadFigureList()]);
  const roots = [...document.querySelectorAll("figure[data-fig]")];
  const views = await figureViews(roots, figures.list);
  const store = createStore(views.specs, { hash: window.location.hash, lang: browserLang() });
  const t = translator(catalogues, () => store.state.lang);
  const markSymbols = initHighlight(document);
  const announce = createAnnouncer(document.getElementById("announcer"));

  const writeURL = debounce(() => {
    const hash = store.hash();
    if (hash !== window.location.hash) history.replaceState(null, "", hash);
  }, URL_DELAY_MS);

  applyI18n(document, t, store.state.lang);
  showLangButtons(store.state.lang);
  renderAllMath(markSymbols);
  if (figures.error) {
    const banner = document.getElementById("page-error");
    banner.textContent = t("page.apiError", { message: figures.error });
    banner.hidden = false;
  }

  views.mountAll({ store, t, announce });

  store.subscribe((event) => {
    writeURL();
    if (event.kind === "settings") {
      views.settingsChanged(event.fig, event.changed);
    } else if (event.kind === "lang") {
      keepScroll(() => {
        applyI18n(document, t, store.state.lang);
        showLangButtons(store.state.lang);
        renderAllMath(markSymbols);
        views.relabelAll();
        document.dispatchEvent(new CustomEvent("attnlab:lang", { detail: { lang: store.state.lang } }));
      });
      announce(t("page.langChanged"));
    }
  });

  window.addEventListener("hashchange", () => {
    const raw = window.location.hash;
    if (!raw.includes("=")) return; // a plain anchor: let the browser scroll
    views.remount(store.load(raw));
  });

  wireContents();
  wireLanguageSwitch(store);
  writeURL();
  document.documentElement.classList.add("is-ready");
}

start().catch((error) => {
  // Last resort: say so on the page rather than leave a silent, half-built lesson.
  const banner = document.getElementById("page-error");
  if (banner) {
    banner.textContent = `The page could not start: ${error.message || error}`;
    banner.hidden = false;
  }
});
