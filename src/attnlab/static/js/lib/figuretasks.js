// Each figure's "try it" tasks inside the figure, where the reader is looking while doing them:
// a compact checklist between the figure's title and its controls, one line per stage (the
// first clause of the stage's own paragraph in the lesson: a task of n stages says them in n
// paragraphs), each with its tick. The ticks are the
// try-its' own (lib/tries.js decides, lib/progress.js keeps them), so both places tick together.
// Each line links to the full task in the text, and the task in the text links back here; the
// URL hash is the page's state, so these links scroll and move the focus instead of navigating.

import { escapeHTML } from "./format.js";

const esc = escapeHTML;
const FLASH_MS = 1600;
// Where a task's first clause ends: a colon, a full stop (not the one of "0.9"), a dash.
const CLAUSE_END = /[:：。；;!?！？]|——|\.(?=\s|$)/;

/** The list's id inside figure `name` (the try box's back link points here). */
export const tasksId = (name) => `fig-${name}-tasks`;

/** The leading clause of a paragraph as a DOM fragment: formulas and numbers whole, no links. */
export function firstClause(paragraph) {
  const range = document.createRange();
  range.selectNodeContents(paragraph);
  const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(".katex, .val")) continue; // "0.9" in a slot is no full stop
    const end = CLAUSE_END.exec(node.textContent);
    if (end) {
      range.setEnd(node, end.index);
      break;
    }
  }
  const clause = range.cloneContents();
  // The whole line is one link: links inside it (glossary terms) become their text.
  for (const a of clause.querySelectorAll("a")) a.replaceWith(...a.childNodes);
  for (const n of clause.querySelectorAll("[id], [data-anchor]")) {
    n.removeAttribute("id"); // ids stay unique: the text keeps its own
    n.removeAttribute("data-anchor");
  }
  return clause;
}

/**
 * The figures' task lists. render(tasks) puts them in the figures (tasks: [{id, figure, when}] in
 * the lesson's order, their try boxes already in the text); refresh() shows the ticks. Both
 * links (figure → text, text → figure) are handled by one click listener on `root`.
 */
export function createFigureTasks({ progress, t, root = document }) {
  let shown = []; // [{id, figure, stages}]
  const ticked = new Map(); // task id → its stages' ticks as last drawn, to flash the new ones

  /** The task's paragraphs in the text, one per stage (or one for them all). */
  const paragraphs = (task) => [...root.querySelectorAll(`#try-${CSS.escape(task.id)} .try-body > p`)];

  /** A line for the stages `stages` of a task (all of them, or one). */
  function taskLine(task, stages) {
    const ticks = stages.map((i) => `<span class="ft-tick" data-stage="${i}"></span>`).join("");
    return `<li class="ft-task" data-task="${esc(task.id)}" data-stages="${stages.join(",")}">`
      + `<span class="ft-ticks" aria-hidden="true">${ticks}</span>`
      + `<a class="ft-link" href="#try-${esc(task.id)}" data-jump="try-${esc(task.id)}">`
      + `<span class="ft-text"></span><span class="sr-only ft-state"></span></a></li>`;
  }

  /** The lines of a task, each [stages, its paragraph]: one per stage when the text has them. */
  function taskLines(task) {
    const ps = paragraphs(task);
    const all = task.when.map((_, i) => i);
    if (all.length > 1 && ps.length >= all.length) return all.map((i) => [[i], ps[i]]);
    return [[all, ps[0]]];
  }

  function render(tasks) {
    root.querySelectorAll(".fig-tasks").forEach((old) => old.remove());
    shown = tasks.map((task) => ({ id: task.id, figure: task.figure, when: task.when }));
    ticked.clear();
    for (const name of new Set(shown.map((task) => task.figure))) {
      const fig = root.querySelector(`figure.fig[data-fig="${CSS.escape(name)}"]`);
      if (!fig) continue;
      const mine = shown.filter((task) => task.figure === name);
      const box = document.createElement("div");
      box.className = "fig-tasks";
      box.id = tasksId(name);
      box.tabIndex = -1;
      box.setAttribute("role", "group");
      box.setAttribute("aria-labelledby", `${box.id}-h`);
      const lines = mine.flatMap((task) => taskLines(task).map(([stages, p]) => ({ task, stages, p })));
      box.innerHTML = `<p class="fig-tasks-head" id="${box.id}-h">${esc(t("tasks.head"))}</p>`
        + `<ol class="fig-tasks-list">${lines.map((l) => taskLine(l.task, l.stages)).join("")}</ol>`;
      box.querySelectorAll(".ft-text").forEach((text, i) => {
        if (lines[i].p) text.appendChild(firstClause(lines[i].p));
        else text.textContent = t("try.label");
      });
      const body = fig.querySelector(".fig-body");
      fig.insertBefore(box, body ?? null);
    }
    refresh({ flash: false });
  }

  function refresh({ flash = true } = {}) {
    for (const task of shown) {
      const now = task.when.map((_, i) => progress.ticked(task.id, i));
      const before = ticked.get(task.id) ?? now;
      for (const line of root.querySelectorAll(`.ft-task[data-task="${CSS.escape(task.id)}"]`)) {
        const stages = line.dataset.stages.split(",").map(Number);
        line.querySelectorAll(".ft-tick").forEach((tick, i) => tick.classList.toggle("met", now[stages[i]]));
        const done = stages.filter((i) => now[i]).length;
        line.classList.toggle("is-done", done === stages.length);
        line.querySelector(".ft-state").textContent = stages.length === 1 && now.length > 1
          ? ` (${t("tasks.stageState", { n: stages[0] + 1, of: now.length, state: t(now[stages[0]] ? "try.met" : "try.notyet") })})`
          : ` (${t("tasks.state", { done, of: stages.length })})`;
        if (flash && stages.some((i) => now[i] && !before[i])) flashOnce(line);
      }
      ticked.set(task.id, now);
    }
  }

  function flashOnce(node) {
    node.classList.remove("flash");
    void node.offsetWidth; // restart the animation when a second stage ticks soon after
    node.classList.add("flash");
    setTimeout(() => node.classList.remove("flash"), FLASH_MS);
  }

  /** Follow a link between a figure's list and the text: scroll, focus, flash the arrival. */
  function jump(link) {
    const target = document.getElementById(link.dataset.jump);
    if (!target) return;
    target.scrollIntoView({ behavior: "smooth", block: "center" });
    target.focus({ preventScroll: true });
    flashOnce(target);
  }

  root.addEventListener("click", (event) => {
    const link = event.target.closest?.("a[data-jump]");
    if (!link) return;
    event.preventDefault(); // the hash is the page's state, not a place
    jump(link);
  });
  progress.subscribe(() => refresh());

  return { render, refresh };
}
