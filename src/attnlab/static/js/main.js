// The page's controller: loads the figure descriptions, the reader's language's strings and the
// lesson's text (the other language when the reader switches), every figure at its defaults in
// one answer (lib/api.js), builds each figure's shell from its description (lib/figureshells.js), the ONE state object (the URL hash wins over the defaults), mounts each figure
// view, puts the text around the figures, and wires the one-way flow
//   reader's action → state (→ URL) → API → view.update(data) → "attnlab:figure-data" (try-its).
// Views live in ./figures/<name>.js and export mount(root, ctx) → {update(data), relabel?(),
// destroy?()}; ctx is documented in ./lib/view.js. The text: ./lib/lesson.js; the engine's
// numbers for it and the "check the numbers" panel: ./lib/claimspanel.js.

import { askDefaults, getJSON } from "./lib/api.js";
import { loadStrings, pageStrings } from "./lib/catalogues.js";
import { expectClaimValues, publishClaimValues } from "./lib/claimvalues.js";
import { createClaimsPanel } from "./lib/claimspanel.js";
import { buildShells, figureNumbers, linkStyles } from "./lib/figureshells.js";
import { initHighlight } from "./lib/highlight.js";
import { applyI18n, browserLang, translator } from "./lib/i18n.js";
import { createLesson, keepPlace } from "./lib/lesson.js";
import { renderMath } from "./lib/math.js";
import { joinClass } from "./lib/classlink.js";
import { createClassNotice } from "./lib/classnotice.js";
import { watchOverflow } from "./lib/navcue.js";
import { createClassSeeds } from "./lib/classseeds.js";
import { createClassShow } from "./lib/classshow.js";
import { createNotice } from "./lib/notice.js";
import { startPresence } from "./lib/presence.js";
import { createProgress } from "./lib/progress.js";
import { createStore, decodeHash } from "./lib/state.js";
import { createAnnouncer, figureViews } from "./lib/view.js";

const URL_DELAY_MS = 150; // a drag changes settings every frame; the address bar need not

function debounce(fn, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

/** Render the formulas of the page's own texts: captions (until the lesson's replace them) and
 *  formula blocks. The lesson's text draws its own (lib/lesson.js). */
function renderAllMath(markSymbols) {
  for (const node of document.querySelectorAll("figcaption:not([data-lesson]), .formula")) renderMath(node);
  markSymbols(document);
}

/** Say on the page that something could not load (the figures still work without the text). */
function showError(text) {
  const banner = document.getElementById("page-error");
  banner.textContent = banner.hidden ? text : `${banner.textContent} ${text}`;
  banner.hidden = false;
}

/** A link to a place (#s-why, no settings) that is not on the page, as a link problem. */
function missingPlace(hash) {
  const text = hash.replace(/^#/, "");
  if (!text || text.includes("=")) return [];
  let id;
  try {
    id = decodeURIComponent(text);
  } catch {
    return []; // cut mid-escape: decodeHash reports it
  }
  return document.getElementById(id) ? [] : [{ key: text, reason: "place" }];
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

function wireLanguageSwitch(store, prefetch) {
  for (const b of document.querySelectorAll("[data-set-lang]")) {
    b.addEventListener("click", () => store.setLang(b.dataset.setLang));
    // a reader about to switch: the other language is fetched while the pointer or focus is on
    // the button, not by every page that opens (a class at once would fetch both languages)
    for (const type of ["pointerenter", "focus"]) b.addEventListener(type, () => prefetch(b.dataset.setLang));
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

/** The lesson's text, try-its, exercises, glossary and the "check the numbers" panel. */
function startLesson({ store, t, announce, markSymbols, numbers }) {
  const progress = createProgress();
  const lesson = createLesson({ t, announce, markSymbols, progress, numbers });
  const panel = createClaimsPanel(document.getElementById("check-panel"), {
    t, announce, progress,
    onValues: (values) => {
      lesson.setValues(values);
      publishClaimValues(values); // FIG 2's seed strip draws F2.11's (lib/claimvalues.js)
    },
    counts: () => ({ tries: lesson.tries.count(), exercises: lesson.exercises.count() }),
  });
  return {
    lesson,
    progress,
    /** Render the text in the current language (the other is fetched when the reader switches:
     *  a class opening the page at once sends one language, not two). */
    async show() {
      const lang = store.state.lang;
      try {
        const text = await lesson.load(lang);
        if (store.state.lang === lang) lesson.render(text); // else the switch has rendered it
      } catch (error) {
        showError(t("page.lessonError", { message: error.message || String(error) }));
      }
      panel.render();
      panel.start();
    },
    /** Start fetching language `lang`'s strings and text (a failure is reported on the switch). */
    prefetch(lang) {
      loadStrings(lang);
      lesson.load(lang).catch(() => {});
    },
    /** Everything that changes with the language, in one step that keeps the reader's place. */
    async switchTo(lang, change) {
      let text = null;
      const strings = loadStrings(lang);
      try {
        text = await lesson.load(lang);
      } catch (error) {
        showError(t("page.lessonError", { message: error.message || String(error) }));
      }
      await strings;
      if (store.state.lang !== lang) return; // the reader switched again meanwhile
      keepPlace(() => {
        change();
        if (text) lesson.render(text);
        panel.render();
      });
    },
  };
}

async function start() {
  // The text is fetched at once, beside the strings, the figures' settings and their first data.
  const firstLang = decodeHash(window.location.hash, {}).lang ?? browserLang();
  const firstText = getJSON(`/api/lesson/${firstLang}`);
  firstText.catch(() => {}); // a failure is reported when the text is shown
  askDefaults(); // every figure at its defaults, one request: the views' first answers
  const [, figures] = await Promise.all([loadStrings(firstLang), loadFigureList()]);
  const numbers = figureNumbers(figures.list);
  const [views] = await Promise.all([figureViews(buildShells(figures.list), figures.list), linkStyles(figures.list)]);
  const opened = window.location.hash; // the link as opened: writeURL may rewrite it before the text is in
  const store = createStore(views.specs, { hash: opened, lang: browserLang() });
  const t = translator(pageStrings, () => store.state.lang);
  const markSymbols = initHighlight(document);
  const announce = createAnnouncer(document.getElementById("announcer"));
  const notice = createNotice(document.getElementById("link-notice"), { t, store, numbers });
  const text = startLesson({ store, t, announce, markSymbols, numbers });
  expectClaimValues(); // the claims panel publishes them, so views wait for them
  text.lesson.prime(firstLang, firstText);

  const writeURL = debounce(() => {
    const hash = store.hash();
    if (hash !== window.location.hash) history.replaceState(null, "", hash);
  }, URL_DELAY_MS);

  applyI18n(document, t, store.state.lang);
  showLangButtons(store.state.lang);
  renderAllMath(markSymbols);
  if (figures.error) showError(t("page.apiError", { message: figures.error }));
  else notice.show(store.linkProblems()); // without the descriptions every setting looks unknown
  // A view that finds a link's setting out of range only later (FIG 2: the server's step limit).
  document.addEventListener("attnlab:link-problem", (event) => notice.add(event.detail));

  // Every answer a view draws, and every change of its settings, is also an event: the lesson's
  // try-its tick on it (lib/tries.js). `acted`: the reader has changed this figure since the page
  // loaded (its first answer, on defaults or a shared link's settings, ticks nothing).
  const answers = new Map(); // figure → its latest answer
  const acted = new Set();
  const figureData = (name) => {
    const detail = { name, settings: { ...store.settings(name) }, data: answers.get(name), acted: acted.has(name) };
    document.dispatchEvent(new CustomEvent("attnlab:figure-data", { detail }));
  };
  const onData = (name, data) => {
    answers.set(name, data);
    figureData(name);
  };
  views.mountAll({ store, t, announce, onData });
  // the page is a reader: the server's capacity counts it, and FIG 2 says when the class is over
  const classNotice = createClassNotice(document.querySelector('figure[data-fig="training"]'), { t });
  // in a class with a teacher's view: the seat, and what the teacher shows everyone
  let classLink = null;
  const classShow = createClassShow({ t, store, onName: (name) => classLink?.setName(name) });
  const classSeeds = createClassSeeds({ store, send: (msg) => classLink?.send(msg) });
  const onClass = (msg) => {
    classShow.message(msg);
    classSeeds.message(msg);
  };
  const joinIfTaught = (load) => {
    if (load.teaching && !classLink) classLink = joinClass({ progress: text.progress, onMessage: onClass });
  };
  if (!figures.error) startPresence({ onLoad: (load) => { classNotice.show(load); joinIfTaught(load); } });

  store.subscribe((event) => {
    writeURL();
    if (event.kind === "settings") {
      views.settingsChanged(event.fig, event.changed);
      if (!event.changed.includes("*")) acted.add(event.fig); // "*": a pasted link, not a reader's move
      if (answers.has(event.fig)) figureData(event.fig); // e.g. a view-only setting (FIG 4's reversal)
    } else if (event.kind === "lang") {
      const lang = store.state.lang;
      text.switchTo(lang, () => {
        applyI18n(document, t, lang);
        showLangButtons(lang);
        renderAllMath(markSymbols);
        notice.relabel();
        classNotice.relabel();
        classShow.relabel();
        views.relabelAll();
        document.dispatchEvent(new CustomEvent("attnlab:lang", { detail: { lang } }));
      }).then(() => announce(t("page.langChanged")));
    }
  });

  window.addEventListener("hashchange", () => {
    const raw = window.location.hash;
    if (!raw.includes("=")) { // a plain anchor: let the browser scroll; an unreadable one is told
      notice.show([...decodeHash(raw, {}).problems, ...missingPlace(raw)]);
      return;
    }
    views.remount(store.load(raw));
    notice.show(store.linkProblems());
  });

  wireContents();
  const navCue = watchOverflow(document.querySelector("nav.contents"));
  document.addEventListener("attnlab:lang", () => requestAnimationFrame(navCue));
  wireLanguageSwitch(store, (lang) => text.prefetch(lang));
  writeURL();
  await text.show(); // the figures work meanwhile; the text arrives in a moment
  missingPlace(opened).forEach((problem) => notice.add(problem)); // ids in the text too
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
