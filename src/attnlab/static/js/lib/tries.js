// The lesson's "try it" tasks (§2–§6). Each has one condition per stage, written in the condition
// language (lib/condition.js) over its figure's live data: the answer of GET /api/figures/NAME
// (FIG 2: the training records streamed so far), with `settings` the figure's current settings.
// Every time a figure gets new data or new settings the page dispatches
//   document "attnlab:figure-data" {detail: {name, settings, data, acted}}
// and the stages whose condition now holds tick themselves, in the lesson's order (a stage ticks
// only after the one before it). Only what the reader did counts: the figure's first answer,
// on its defaults or on a shared link's settings (acted: false), ticks nothing. Ticks are kept
// (lib/progress.js): a stage once met stays met, even when the reader moves on. Each figure shows
// its own tasks too, ticking with these (lib/figuretasks.js); the two link to each other.

import { conditions } from "./condition.js";
import { tasksId } from "./figuretasks.js";
import { escapeHTML } from "./format.js";

const esc = escapeHTML;

/** The data a condition reads: the figure's answer, with settings = current + answered. */
export function conditionData({ settings, data }) {
  const answered = data && typeof data === "object" && data.settings ? data.settings : {};
  return { ...(data ?? {}), settings: { ...(settings ?? {}), ...answered } };
}

/**
 * The try-it controller. progress: lib/progress.js; t: translator; announce: live region;
 * numbers: figure name → its number (lib/figureshells.js).
 * renderBlock(block) → HTML of a try box; setTasks(blocks) names the tasks of the lesson on the
 * page; refresh() redraws every box's ticks; the figure-data listener is installed at once.
 */
export function createTries({ progress, t, announce, renderBlocks, numbers, root = document }) {
  const reader = conditions();
  const warned = new Set();
  let tasks = []; // [{id, figure, when: [condition per stage]}]

  function stageLabel(i, n) {
    return n === 1 ? t("try.goal") : t("try.stage", { n: i + 1 });
  }

  function renderBlock(block) {
    const n = block.when.length;
    const stages = block.when.map((_, i) => `<li class="try-stage" data-stage="${i}">`
      + `<span class="tick" aria-hidden="true"></span><span class="try-stage-label">${esc(stageLabel(i, n))}</span>`
      + `<span class="sr-only try-stage-state"></span></li>`).join("");
    const fig = numbers[block.figure] ?? "?";
    const back = tasksId(block.figure); // the figure's own list of its tasks (lib/figuretasks.js)
    return `<aside class="try" id="try-${esc(block.id)}" data-try="${esc(block.id)}" data-anchor="try:${esc(block.id)}"`
      + ` aria-labelledby="try-${esc(block.id)}-h" tabindex="-1">`
      + `<header class="try-head"><span class="try-label" id="try-${esc(block.id)}-h">${esc(t("try.label"))}`
      + ` <span class="try-fig">FIG ${fig}</span>`
      + `<span class="sr-only try-nth"></span></span>`
      + `<span class="try-done" hidden>${esc(t("try.done"))}</span>`
      + `<a class="try-back" href="#${esc(back)}" data-jump="${esc(back)}" aria-label="${esc(t("tasks.backLabel", { n: fig }))}">`
      + `${esc(t("tasks.back"))}</a></header>`
      + `<div class="try-body">${renderBlocks(block.body)}</div>`
      + `<ol class="try-stages" aria-label="${esc(t("try.stages"))}">${stages}</ol></aside>`;
  }

  /** A figure's second try box must not share the first one's landmark name: "(2/2)". */
  function numberBoxes(boxes) {
    const byFigure = new Map();
    for (const box of boxes) {
      const fig = box.querySelector(".try-fig")?.textContent;
      byFigure.set(fig, [...(byFigure.get(fig) ?? []), box]);
    }
    for (const list of byFigure.values()) {
      list.forEach((box, i) => {
        const nth = box.querySelector(".try-nth");
        if (nth) nth.textContent = list.length > 1 ? ` (${i + 1}/${list.length})` : "";
      });
    }
  }

  function refresh() {
    numberBoxes([...root.querySelectorAll("aside.try[data-try]")]);
    for (const box of root.querySelectorAll("aside.try[data-try]")) {
      const id = box.dataset.try;
      const items = [...box.querySelectorAll(".try-stage")];
      let all = items.length > 0;
      for (const item of items) {
        const met = progress.ticked(id, Number(item.dataset.stage));
        item.classList.toggle("met", met);
        item.querySelector(".try-stage-state").textContent = `: ${t(met ? "try.met" : "try.notyet")}`;
        all &&= met;
      }
      box.classList.toggle("is-done", all);
      box.querySelector(".try-done").hidden = !all;
    }
  }

  function holds(condition, data) {
    try {
      return reader.evaluate(condition, data);
    } catch (error) {
      // The figure's data does not fit the condition (a bug, not the reader's doing): say so
      // once on the console and treat the stage as not met.
      if (!warned.has(condition)) console.warn(`try-it condition ${condition}: ${error.message}`);
      warned.add(condition);
      return false;
    }
  }

  /** The next stage of a task, if the figure's data now meets it (stages tick in order). */
  function advance(task, data) {
    const stage = task.when.findIndex((_, i) => !progress.ticked(task.id, i));
    if (stage < 0 || !holds(task.when[stage], data)) return false;
    progress.tick(task.id, stage, task.when.length);
    const done = stage === task.when.length - 1;
    announce(t(done ? "try.announce.done" : "try.announce.stage", {
      fig: `FIG ${numbers[task.figure]}`, n: stage + 1, of: task.when.length }));
    return true;
  }

  function onFigureData(detail) {
    if (detail.acted === false) return;
    const data = conditionData(detail);
    for (const task of tasks) {
      if (task.figure === detail.name) while (advance(task, data));
    }
  }

  root.addEventListener("attnlab:figure-data", (event) => onFigureData(event.detail));
  progress.subscribe(refresh);

  return {
    renderBlock,
    refresh,
    setTasks(blocks) {
      tasks = blocks.map((b) => ({ id: b.id, figure: b.figure, when: b.when }));
      for (const task of tasks) task.when.forEach((c) => reader.parse(c)); // fail early, loudly
    },
    /** [tasks with every stage ticked, tasks on the page]. */
    count() {
      const done = tasks.filter((task) => task.when.every((_, i) => progress.ticked(task.id, i)));
      return [done.length, tasks.length];
    },
  };
}
