// The teacher's page (/teach): the class at a glance, live over /ws/teach, and "show
// everyone". Plain modules of its own: the learners' page never loads them. The strings are
// the page's catalogues with the teacher's own (i18n/teach.LANG.json) on top.

import { getJSON } from "../lib/api.js";
import { groupStrings, loadStrings, pageStrings } from "../lib/catalogues.js";
import { applyI18n, browserLang, translator } from "../lib/i18n.js";
import { LANGS } from "../lib/state.js";
import { socketURL, trainSocket } from "../lib/trainsocket.js";
import { drawBars, drawCounts, drawLoad, drawSeats } from "./glance.js";
import { lessonLabels } from "./labels.js";
import { createSeeds } from "./seeds.js";
import { createShowForms } from "./showform.js";
import { statusLine } from "./status.js";

const $ = (id) => document.getElementById(id);
// why the page could not start: in words once the strings are in, the bare error before that
let failure = (message) => `⚠ ${message}`;

function firstLang() {
  const chosen = new URLSearchParams(window.location.hash.slice(1)).get("lang");
  return LANGS.includes(chosen) ? chosen : browserLang();
}

async function start() {
  // both languages at once: one teacher, and a switch without a wait
  const [, figures] = await Promise.all([Promise.all(LANGS.map((l) => loadStrings(l))), getJSON("/api/figures")]);
  const [page, own] = [pageStrings, await groupStrings("teach")];
  const catalogues = Object.fromEntries(LANGS.map((l) => [l, { ...page[l], ...own[l] }]));
  let lang = firstLang();
  const t = translator(catalogues, () => lang);
  failure = (message) => t("teach.failed", { message });
  const numbers = Object.fromEntries(figures.map((f) => [f.name, f.number]));
  const lessons = {};
  let labels = { tries: {}, exercises: {} };
  let view = null;
  // the status lines keep what they say, not its words: a language switch rewrites them
  const lines = { sent: statusLine($("teach-sent")), seeds: statusLine($("teach-seeds-sent")),
    live: statusLine($("teach-live")) };
  const forms = createShowForms({ figureForm: $("teach-show-figure"), tryForm: $("teach-show-try"), figures, t,
    say: lines.sent.say });
  const seeds = createSeeds({ form: $("teach-seeds-form"), box: $("teach-seeds"), t, say: lines.seeds.say });

  function draw() {
    $("teach-seats-summary").textContent = t("teach.seats", { n: view?.seats?.length ?? 0 });
    if (!view) return;
    drawCounts($("teach-counts"), view);
    drawSeats($("teach-seats"), view, t);
    drawLoad($("teach-load"), view.load, t);
    drawBars($("teach-tries"), view.tries.map((r) => ({ key: r.id, label: labels.tries[r.id] ?? r.id,
      value: r.done, of: view.joined })), "try", t);
    drawBars($("teach-exercises"), view.exercises.map((r) => ({ key: r.id,
      label: labels.exercises[r.id] ?? r.id, value: r.first_right, of: view.joined })), "exercise", t);
    seeds.show(view.experiment, view.plan);
  }

  async function showLang(next) {
    lang = next;
    lessons[lang] ??= await getJSON(`/api/lesson/${lang}`);
    labels = lessonLabels(lessons[lang], numbers, t);
    applyI18n(document, t, lang);
    for (const b of document.querySelectorAll("[data-set-lang]")) b.setAttribute("aria-pressed", String(b.dataset.setLang === lang));
    forms.relabel(labels);
    seeds.relabel();
    for (const line of Object.values(lines)) line.relabel();
    draw();
  }

  function live(state) {
    $("teach-live").dataset.state = state;
    lines.live.say(() => t(`teach.live.${state}`));
  }

  await showLang(lang);
  for (const b of document.querySelectorAll("[data-set-lang]")) {
    b.addEventListener("click", () => {
      history.replaceState(null, "", `#lang=${b.dataset.setLang}`); // a reload keeps it
      showLang(b.dataset.setLang);
    });
  }
  const socket = trainSocket({
    url: socketURL("/ws/teach"),
    onMessage: (msg) => {
      if (msg.type !== "class") return;
      view = msg;
      draw();
    },
    onStatus: (status) => live(status === "open" ? "open" : status),
  });
  socket.connect();
  document.documentElement.classList.add("is-ready");
}

start().catch((error) => {
  const box = $("teach-live");
  if (box) box.textContent = failure(error.message || String(error));
});
