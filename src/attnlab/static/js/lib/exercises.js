// The exercises (§8) as multiple choice: four options each; choosing one shows why it is right or
// wrong (the lesson's feedback for that option). A wrong choice shows the exercise's hint, so a
// retry is not spoiled; the worked answer opens once the right option is chosen, or when the
// reader asks for it (its button), with its numbers filled from the engine like the rest of the
// text. Choices are
// kept in this browser (lib/progress.js), so a reader who comes back sees what they tried.
// Options and feedback are the server's HTML, their formulas drawn by renderHTML (lib/lesson.js).

import { escapeHTML } from "./format.js";
import { spokenText } from "./math.js";

const esc = escapeHTML;
const LETTERS = "ABCD";

/**
 * The exercise controller. renderBlock(block, n) → HTML of exercise n; refresh() shows the
 * kept choices; a click on an option is handled by one listener on `root`. renderBlocks and
 * renderHTML draw the text's blocks and one piece of inline HTML (formulas with KaTeX).
 */
export function createExercises({ progress, t, announce, renderBlocks, renderHTML, root = document }) {
  const blocks = new Map(); // id → the exercise block (options know which one is correct)
  const revealed = new Set(); // exercises whose worked answer the reader asked for

  function renderBlock(block, n) {
    blocks.set(block.id, block);
    const id = esc(block.id);
    const options = block.options.map((o, i) => `<li class="ex-item" data-i="${i}">`
      + `<button type="button" class="ex-option" data-i="${i}" aria-pressed="false" aria-describedby="ex-${id}-fb${i}">`
      + `<span class="ex-letter" aria-hidden="true">${LETTERS[i]}</span><span class="ex-text">${renderHTML(o.html)}</span>`
      + `<span class="ex-mark" aria-hidden="true"></span></button>`
      + `<div class="ex-feedback" id="ex-${id}-fb${i}" hidden><span class="sr-only ex-verdict"></span>${renderHTML(o.feedback)}</div></li>`).join("");
    return `<div class="exercise" id="ex-${id}" data-exercise="${id}" data-anchor="ex:${id}" role="group" aria-labelledby="ex-${id}-h">`
      + `<h3 class="ex-head" id="ex-${id}-h">${esc(t("ex.title", { n }))}</h3>`
      + `<div class="ex-question">${renderBlocks(block.question)}</div>`
      + `<p class="ex-prompt">${esc(t("ex.prompt"))}</p>`
      + `<ol class="ex-options">${options}</ol>`
      + `<div class="ex-hint" hidden><p><strong>${esc(t("ex.hint"))}</strong> ${renderHTML(block.hint)}</p>`
      + `<button type="button" class="btn ex-reveal" aria-controls="ex-${id}-answer">${esc(t("ex.reveal"))}</button></div>`
      + `<div class="ex-answer" id="ex-${id}-answer" hidden><h4>${esc(t("ex.answer"))}</h4>${renderBlocks(block.answer)}</div></div>`;
  }

  function refresh() {
    for (const box of root.querySelectorAll(".exercise[data-exercise]")) {
      const block = blocks.get(box.dataset.exercise);
      if (!block) continue;
      const chosen = progress.chosen(block.id);
      box.querySelectorAll(".ex-item").forEach((item) => {
        const i = Number(item.dataset.i);
        const tried = chosen.includes(i);
        const right = block.options[i].correct;
        item.classList.toggle("tried", tried);
        item.classList.toggle("right", tried && right);
        item.classList.toggle("wrong", tried && !right);
        item.querySelector(".ex-option").setAttribute("aria-pressed", String(tried));
        item.querySelector(".ex-mark").textContent = tried ? (right ? "✓" : "✗") : "";
        item.querySelector(".ex-verdict").textContent = tried ? `${t(right ? "ex.right" : "ex.wrong")} ` : "";
        item.querySelector(".ex-feedback").hidden = !tried;
      });
      const solved = chosen.some((i) => block.options[i]?.correct);
      const open = solved || revealed.has(block.id);
      box.classList.toggle("is-solved", solved);
      box.querySelector(".ex-hint").hidden = open || chosen.length === 0; // after a wrong choice
      box.querySelector(".ex-answer").hidden = !open;
    }
  }

  /** What a choice changed, spoken: its feedback, then the hint or the answer it opened. */
  function spoken(box, block, i, wasOpen) {
    const node = box.querySelector(`#ex-${CSS.escape(block.id)}-fb${i}`);
    const feedback = node ? spokenText(node) : ""; // each formula once, not its TeX source
    if (wasOpen) return feedback;
    if (block.options[i].correct) return `${feedback} ${t("ex.answerShown")}`;
    return `${feedback} ${t("ex.hint")} ${spokenText(box.querySelector(".ex-hint p"))}`;
  }

  root.addEventListener("click", (event) => {
    const reveal = event.target.closest?.(".exercise .ex-reveal");
    if (reveal) {
      const box = reveal.closest(".exercise");
      revealed.add(box.dataset.exercise);
      refresh();
      box.querySelector(".ex-answer h4").setAttribute("tabindex", "-1");
      box.querySelector(".ex-answer h4").focus(); // the button is gone: the focus goes on to what it opened
      return;
    }
    const button = event.target.closest?.(".exercise .ex-option");
    if (!button) return;
    const box = button.closest(".exercise");
    const block = blocks.get(box.dataset.exercise);
    const i = Number(button.dataset.i);
    const wasOpen = !box.querySelector(".ex-answer").hidden;
    progress.choose(block.id, i); // → refresh (subscribed): the verdict is in the feedback now
    announce(spoken(box, block, i, wasOpen));
  });
  progress.subscribe(refresh);

  return {
    renderBlock,
    refresh,
    /** [exercises with an attempt, exercises on the page]. */
    count() {
      const ids = [...blocks.keys()];
      return [ids.filter((id) => progress.chosen(id).length > 0).length, ids.length];
    },
  };
}
