// The class at a glance, drawn from one message of /ws/teach (attnlab.web.teach_api): the
// counts, the seats, the server's load against its stated capacity, and one bar per try-it
// (learners who ticked every stage) and per exercise (learners right at their first try), each
// out of the learners joined. Nothing here counts: the numbers are the server's.

import { clear, html } from "../lib/svg.js";

/** The four counts: joined, reading, training, in line. */
export function drawCounts(root, view) {
  for (const dd of root.querySelectorAll("dd[data-key]")) {
    const value = view[dd.dataset.key] ?? 0;
    dd.textContent = String(value);
    dd.dataset.value = String(value);
  }
}

/** One chip per seat: "Seat 7" or the name the learner typed, and what the page is doing. */
export function drawSeats(list, view, t) {
  clear(list);
  for (const seat of view.seats ?? []) {
    const label = seat.name || t("teach.seat", { n: seat.number });
    const item = html("li", { class: `teach-seat is-${seat.state}`, "data-seat": seat.number }, list);
    html("span", { class: "teach-seat-name", text: label }, item);
    html("span", { class: "teach-seat-state", text: t(`teach.state.${seat.state}`) }, item);
  }
}

/** The server's own figures: sessions training / in line against what it says it can train, and
 * — when learners fall behind the watch pace — what its workers measure they deliver. */
export function drawLoad(box, load, t) {
  clear(box);
  if (!load) return;
  const used = (load.active ?? 0) + (load.queued ?? 0);
  const meter = html("div", { class: "teach-meter" }, box);
  const share = Math.min(1, used / Math.max(1, load.capacity));
  html("span", { class: `teach-meter-fill${load.over_capacity ? " is-over" : ""}`,
    style: `width:${(100 * share).toFixed(1)}%` }, meter);
  html("p", { class: "teach-load-text", "data-capacity": load.capacity, text: t("teach.load", {
    training: load.active ?? 0, queued: load.queued ?? 0, capacity: load.capacity,
    readers: load.readers ?? 0, dragging: load.capacity_while_dragging ?? 0 }) }, box);
  if (load.behind_pace > 0) {  // the workers measured learners below their pace: the machine is full
    html("p", { class: "teach-load-text teach-load-measured", "data-delivered": load.capacity_delivered,
      text: t("teach.loadMeasured", { steps: Math.round(load.delivered_steps_per_s),
        behind: load.behind_pace, paced: load.paced_trainers, pace: load.watch_pace,
        atPace: load.capacity_delivered }) }, box);
  }
}

/**
 * Bars: rows [{key, label, value, of}] → one row each, its width value/of, its numbers beside it.
 * `kind` names the rows' data attribute (data-try="sharpen", data-exercise="E1").
 */
export function drawBars(box, rows, kind, t) {
  clear(box);
  for (const row of rows) {
    const line = html("div", { class: "teach-bar", [`data-${kind}`]: row.key, "data-value": row.value }, box);
    html("span", { class: "teach-bar-label", text: row.label }, line);
    const track = html("span", { class: "teach-bar-track", "aria-hidden": "true" }, line);
    const share = row.of ? row.value / row.of : 0;
    html("span", { class: "teach-bar-fill", style: `width:${(100 * share).toFixed(1)}%` }, track);
    html("span", { class: "teach-bar-n", text: t("teach.outOf", { n: row.value, of: row.of }) }, line);
  }
}
