// FIG 2's note when the class is larger than the server can train at the watch pace while the
// class drags the figures: the numbers are the server's (POST /api/presence's answer, which
// GET /api/training/capacity states too), nothing here estimates them. Shown above FIG 2's
// body, in the reader's language, while the last answer says the class is over; gone when not.

import { html } from "./svg.js";

/**
 * The note in `figure` (FIG 2's <figure>, or null: then nothing is shown). show(load) takes an
 * answer ({over_capacity, class_size, readers, trainers, capacity_while_dragging, watch_pace});
 * relabel() rewrites it in the current language.
 */
export function createClassNotice(figure, { t }) {
  const box = figure ? html("p", { class: "class-notice", role: "status", hidden: true }) : null;
  figure?.querySelector(".fig-body")?.before(box);
  let load = null;

  function render() {
    if (!box) return;
    box.hidden = !load?.over_capacity;
    box.textContent = box.hidden ? "" : t("class.over", { size: load.class_size,
      capacity: load.capacity_while_dragging, pace: load.watch_pace });
  }

  return {
    show(answer) {
      load = answer;
      render();
    },
    relabel: render,
  };
}
