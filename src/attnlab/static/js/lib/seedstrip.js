// FIG 2, "why a seed fails" (F2.11): the engine's strip of seeds for two heads on the vector
// task, trained to the claim's step count at server start (claims/fig2_inside.py). One button
// per seed: learned or failed (a ✕ and the word, not colour alone), its final error, the
// figure's default seed starred; pressing one loads it into the figure. When the figure holds a
// failed seed, a short text says what happened and why it cannot recover, with that seed's
// numbers. Everything shown is F2.11's values (and F2.5's one-head floor); before they arrive
// the strip says so, and where no values will come (a notebook widget) it is hidden.

import { fixed, num, weight } from "./format.js";
import { html } from "./svg.js";
import { withSubscripts } from "./trainwords.js";

const CLAIM = "F2.11";
const FLOOR_CLAIM = "F2.5"; // one head's floor on the vector task

/** One seed of the strip, from the per-seed lists: {seed, cm, failed, looks, weights}. */
const seedAt = (p, i) => ({ seed: p.seed[i], cm: p.final_cm[i], failed: p.failed[i], looks: p.looks_at[i],
  weights: p.head_weight[i] });

/** The run F2.11 trained every seed of the strip with (its values task and heads). */
const stripRun = (v) => ({ task: v.task, heads: v.heads });

/**
 * The strip in `parent`. defaultSeed: the figure's default (its seed param); onLoad(settings)
 * loads a seed: {task, heads, seed}, the run F2.11 trained it with. Returns {values(v), show(settings), relabel()}: values() takes every
 * claim-values answer, show() the figure's settings (which seed is loaded).
 */
export function seedStrip(parent, { t, defaultSeed, onLoad, expected }) {
  const box = html("div", { class: "seed-strip-box", "data-role": "seed-strip" }, parent);
  box.hidden = !expected;
  const title = html("p", { class: "seed-strip-title" }, box);
  const list = html("ul", { class: "seed-strip" }, box);
  const note = html("p", { class: "hint" }, box);
  const why = html("div", { class: "seed-why", "data-role": "seed-why" }, box);
  why.hidden = true;
  let values = null; // {F2.11, F2.5}
  let shownKey = "";
  let settings = {};

  /** One seed's button: what it shows is what it is called (words beside the symbols). */
  function seedButton(parent, s, run) {
    const b = html("button", { type: "button", class: `seed${s.failed ? " is-failed" : ""}`, "data-seed": s.seed,
      "data-failed": String(s.failed) }, parent);
    const n = html("span", { class: "seed-n" }, b);
    html("span", { class: "sr-only", text: t("ss.seed") }, n);
    n.append(String(s.seed));
    if (s.seed === defaultSeed) {
      html("span", { text: " ★", "aria-hidden": "true" }, n);
      html("span", { class: "sr-only", text: t("ss.default.aria") }, n);
    }
    html("span", { class: "seed-cm", text: `${fixed(s.cm, 1)} cm` }, b);
    const state = html("span", { class: "seed-state" }, b);
    html("span", { text: s.failed ? "✕ " : "✓ ", "aria-hidden": "true" }, state);
    state.append(t(s.failed ? "ss.failed" : "ss.learned"));
    b.addEventListener("click", () => onLoad({ ...run, seed: s.seed }));
  }

  function render() {
    const v = values?.[CLAIM];
    list.replaceChildren();
    if (!v?.per_seed) {
      title.textContent = t("ss.pending");
      note.textContent = "";
      return;
    }
    const p = v.per_seed;
    title.textContent = t("ss.title", { n: p.seed.length, steps: v.trained_steps, fail: v.fail_cm });
    note.textContent = t("ss.note");
    p.seed.forEach((_, i) => seedButton(html("li", {}, list), seedAt(p, i), stripRun(v)));
  }

  /** The figure holds one of the strip's seeds: which (pressed), and for a failed one, why. */
  function showLoaded() {
    const v = values?.[CLAIM];
    const inStrip = v?.per_seed && settings.task === v.task && Number(settings.heads) === v.heads;
    for (const b of list.querySelectorAll("button")) {
      b.setAttribute("aria-pressed", String(Boolean(inStrip) && Number(b.dataset.seed) === Number(settings.seed)));
    }
    const i = inStrip ? v.per_seed.seed.indexOf(Number(settings.seed)) : -1;
    const s = i >= 0 ? seedAt(v.per_seed, i) : null;
    why.hidden = !s?.failed;
    if (s?.failed) explain(s, v);
  }

  /** What happened to a failed seed, and why one head's average cannot recover. */
  function explain(s, v) {
    why.replaceChildren();
    const heads = s.weights.map((w, h) => t("ss.head", { h: h + 1, a: weight(w[0]), b: weight(w[1]) }))
      .join(t("ss.head.join"));
    const same = s.looks.every((o) => o && o === s.looks[0]) ? s.looks[0] : null;
    const other = same === "A" ? "B" : "A";
    const what = html("p", { "data-role": "seed-what" }, why);
    withSubscripts(what, t(same ? "ss.what" : "ss.what.mixed", { seed: s.seed, cm: fixed(s.cm, 1),
      steps: v.trained_steps, fail: v.fail_cm, heads, obj: same }));
    if (!same) return;
    const alpha = Math.max(...s.weights.map((w) => w[other === "A" ? 0 : 1]));
    const floor = values[FLOOR_CLAIM]?.floor_cm;
    const because = html("p", { "data-role": "seed-because" }, why);
    withSubscripts(because, t("ss.why", { obj: same, other, alpha: num(alpha, 2) })
      + (Number.isFinite(floor) ? t("ss.why.floor", { floor: fixed(floor, 1) }) : ""));
  }

  render();

  return {
    values(next) {
      values = next;
      const key = JSON.stringify([next?.[CLAIM] ?? null, next?.[FLOOR_CLAIM]?.floor_cm ?? null]);
      if (key === shownKey) return; // polled again, nothing new: keep the buttons (and the focus)
      shownKey = key;
      render();
      showLoaded();
    },
    show(next) {
      settings = next;
      showLoaded();
    },
    relabel() {
      render();
      showLoaded();
    },
  };
}
