// "One seed each" on the teacher's page: the form (task, heads, first seed, steps, their ranges
// from the server's `plan` descriptions), and the class's results as they land: each seat's
// final errors by seed (dots), the server's `attnlab train --sweep` for the same seeds (rings
// around them: where they agree, the ring circles the dot), the goal line, the share where
// attention wins, the failing seeds, and the CSV and PNG to download. The numbers are the
// server's (attnlab.classroom.seeds); this only draws them.

import { postJSON } from "../lib/api.js";
import { encodeValue } from "../lib/state.js";
import { axis, clear, el, html, linear, log } from "../lib/svg.js";

const W = 640;
const H = 260;
const M = { left: 52, right: 12, top: 12, bottom: 40 };

function field(form, spec, label) {
  const box = html("label", { class: "teach-setting" }, form);
  html("span", { class: "teach-setting-name", text: label }, box);
  if (spec.kind === "choice") {
    const pick = html("select", { name: spec.name }, box);
    for (const c of spec.choices) html("option", { value: c, text: String(c), selected: c === spec.default }, pick);
    return pick;
  }
  return html("input", { type: "number", name: spec.name, value: encodeValue(spec.default), min: spec.min, max: spec.max,
    step: 1 }, box);
}

/** The chart of `experiment` into `box` (an SVG), one group per seat with its numbers. */
function chart(box, experiment, t) {
  const rows = experiment.results;
  const values = rows.flatMap((r) => [r.attn_err_cm, r.mlp_err_cm, ...(r.sweep ? [r.sweep.attn_err_cm, r.sweep.mlp_err_cm] : [])]);
  const lo = Math.min(experiment.goal_cm, ...values) / 1.5;
  const hi = Math.max(experiment.goal_cm, ...values) * 1.5;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "teach-seeds-chart", role: "img", "aria-label": t("teach.seedsChart") }, box);
  const x = linear([-0.5, Math.max(rows.length, 1) - 0.5], [M.left, W - M.right]);
  const y = log([lo, hi], [H - M.bottom, M.top]);
  axis(svg, y, { orient: "left", at: M.left, label: "cm" });
  el("line", { class: "goal", x1: M.left, x2: W - M.right, y1: y(experiment.goal_cm), y2: y(experiment.goal_cm) }, svg);
  rows.forEach((r, i) => {
    const g = el("g", { "data-seed": r.seed, "data-attn": r.attn_err_cm, "data-mlp": r.mlp_err_cm,
      "data-agrees": String(r.agrees) }, svg);
    for (const [key, kind, dx] of [["attn_err_cm", "attn", -5], ["mlp_err_cm", "mlp", 5]]) {
      el("circle", { class: kind, cx: x(i) + dx, cy: y(r[key]), r: 4 }, g);
      if (r.sweep) el("circle", { class: `ring ${kind}`, cx: x(i) + dx, cy: y(r.sweep[key]), r: 8 }, g);
    }
    el("text", { x: x(i), y: H - M.bottom + 16, "text-anchor": "middle", text: String(r.seed) }, g);
  });
}

/**
 * The section: form, summary, chart and downloads; `say(words)` reports the start or why not
 * (teach/status.js). Returns {relabel(), show(experiment, plan)}.
 */
export function createSeeds({ form, box, t, say }) {
  let plan = null;
  let experiment = null;

  function buildForm() {
    clear(form);
    if (!plan) return;
    const labels = { task: t("teach.task"), heads: t("teach.heads"), seed: t("teach.firstSeed"), steps: t("teach.steps") };
    const inputs = plan.map((spec) => field(form, spec, labels[spec.name] ?? spec.name));
    html("button", { type: "submit", class: "btn", "data-role": "seeds-start", text: t("teach.seedsStart") }, form);
    form.onsubmit = async (event) => {
      event.preventDefault();
      const body = Object.fromEntries(plan.map((spec, i) => [spec.name, spec.kind === "choice"
        ? spec.choices.find((c) => String(c) === inputs[i].value) : Number(inputs[i].value)]));
      try {
        const started = await postJSON("/api/teach/seeds", body);
        say(() => t("teach.seedsStarted", { command: started.command }));
      } catch (error) {
        const message = error.message || String(error);
        say(() => t("teach.notSent", { message }));
      }
    };
  }

  function draw() {
    clear(box);
    if (!experiment) return;
    const e = experiment;
    const done = e.results.length;
    const share = e.share_attention_wins === null ? "—" : `${Math.round(100 * e.share_attention_wins)}%`;
    html("p", { "data-role": "seeds-command", text: e.command }, box);
    html("p", { "data-role": "seeds-summary", "data-done": done, text: t("teach.seedsSummary", { done, seats: e.seats,
      share, goal: e.goal_cm, failing: e.failing.join(", ") || t("teach.seedsNone") }) }, box);
    html("p", { "data-role": "seeds-agree", "data-agree": e.agree, text: e.sweep_ready
      ? t("teach.seedsAgree", { agree: e.agree, done }) : t("teach.seedsSweeping") }, box);
    chart(box, e, t);
    const links = html("p", { class: "teach-seeds-links" }, box);
    html("a", { href: "/api/teach/seeds.csv", download: "", "data-role": "seeds-csv", text: t("teach.csv") }, links);
    html("a", { href: "/api/teach/seeds.png", download: "", "data-role": "seeds-png", text: t("teach.png") }, links);
  }

  return {
    relabel() {
      buildForm();
      draw();
    },
    show(next, nextPlan) {
      if (!plan && nextPlan) {
        plan = nextPlan;
        buildForm();
      }
      if (JSON.stringify(next) === JSON.stringify(experiment)) return;
      experiment = next;
      draw();
    },
  };
}
