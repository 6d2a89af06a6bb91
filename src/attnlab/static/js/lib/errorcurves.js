// FIG 2, right panel: test error (cm, log axis) against training steps for the attention model
// (amber) and the slot MLP (purple); solid = the 2–5-object test set, dashed = the 6-object set
// (never seen in training). Guide lines at 1, 2 and 3 cm are the lesson's thresholds (F2.2,
// F2.3, F2.6). Records arrive in batches from the training socket; add() appends and redraws at
// most once per animation frame.

import { lineChart } from "./chart.js";
import { PALETTE } from "./colours.js";
import { el, html } from "./svg.js";

export const SERIES = Object.freeze([
  { key: "attn_err_cm", colour: PALETTE.attention, dash: "", width: 2.5, label: "curves.attn25" },
  { key: "attn_err6_cm", colour: PALETTE.attention, dash: "7 4", width: 2, label: "curves.attn6" },
  { key: "mlp_err_cm", colour: PALETTE.mlp, dash: "", width: 2, label: "curves.mlp25" },
  { key: "mlp_err6_cm", colour: PALETTE.mlp, dash: "7 4", width: 1.6, label: "curves.mlp6" },
]);

const Y_TOP = 100; // cm: above any untrained model on an 80 cm table
const Y_BOTTOM = [0.3, 0.01]; // the lower end starts at 0.3 cm and follows the curves down to 0.01
const MIN_STEPS = 600; // the x axis starts wide enough for the fetch task's story

function niceCeil(x) {
  const mag = 10 ** Math.floor(Math.log10(x));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * mag).find((v) => v >= x);
}

/** The steps axis for records up to `last`: FIG 2's charts under one another share it. */
const stepDomain = (last) => [0, Math.max(MIN_STEPS, niceCeil(last * 1.08 || 1))];

/**
 * Build the curve panel in `parent`; t is the translator. onDraw(records, xDomain) runs after
 * every redraw (the heads' weights, headcurves.js, are drawn from the same records and axis).
 */
export function errorCurves(parent, t, { onDraw = () => {} } = {}) {
  const svg = el("svg", { class: "chart error-curves", role: "img" }, parent);
  // On a phone a smaller drawing box keeps the axis labels at a readable size once scaled.
  const narrow = parent.clientWidth > 0 && parent.clientWidth < 440;
  const chart = lineChart(svg, {
    width: narrow ? 340 : 460, height: narrow ? 270 : 330,
    x: { domain: [0, MIN_STEPS], label: t("curves.x") },
    y: { domain: [Y_BOTTOM[0], Y_TOP], log: true, label: t("curves.y") },
  });
  chart.guide(3, "3 cm", { className: "guide-3" });
  chart.guide(2, "2 cm", { className: "guide-2" });
  chart.guide(1, "1 cm", { className: "guide-1" });
  for (const s of SERIES) chart.series(s.key, { colour: s.colour, dash: s.dash, width: s.width, className: s.key });
  const legend = html("ul", { class: "legend" }, parent);
  const legendItems = SERIES.map((s) => {
    const li = html("li", {}, legend);
    const sample = el("svg", { width: 28, height: 10, "aria-hidden": "true" }, li);
    el("line", { x1: 1, x2: 27, y1: 5, y2: 5, stroke: s.colour, "stroke-width": s.width,
      "stroke-dasharray": s.dash || null }, sample);
    return html("span", { text: t(s.label) }, li);
  });

  let records = [];
  let queued = false;

  function draw() {
    queued = false;
    const last = records.length ? records[records.length - 1].step : 0;
    const steps = stepDomain(last);
    chart.setDomain("x", steps);
    let low = Y_BOTTOM[0];
    for (const s of SERIES) {
      const pts = records.filter((r) => Number.isFinite(r[s.key]) && r[s.key] > 0).map((r) => [r.step, r[s.key]]);
      pts.forEach(([, v]) => { low = Math.min(low, v); });
      chart.setPoints(s.key, pts);
    }
    // a decade boundary below the lowest point, so a curve never runs along the axis
    const bottom = low >= Y_BOTTOM[0] ? Y_BOTTOM[0] : 10 ** Math.floor(Math.log10(low) + 1e-9);
    chart.setDomain("y", [Math.max(Y_BOTTOM[1], bottom), Y_TOP]);
    chart.draw();
    svg.setAttribute("aria-label", t("curves.aria", { n: records.length }));
    onDraw(records, steps);
  }
  const schedule = () => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(draw);
    }
  };
  draw();

  return {
    svg,
    /** Append history records (ignoring steps already plotted) and redraw on the next frame. */
    add(newRecords) {
      const last = records.length ? records[records.length - 1].step : -1;
      const fresh = newRecords.filter((r) => Number.isFinite(r?.step) && r.step > last);
      if (!fresh.length) return;
      records = records.concat(fresh);
      schedule();
    },
    clear() {
      records = [];
      schedule();
    },
    latest: () => records[records.length - 1] ?? null,
    /** The first record whose attention error (2–5 blocks) is below `cm`, or null. */
    firstBelow: (cm) => records.find((r) => r.attn_err_cm < cm) ?? null,
    count: () => records.length,
    relabel(tNew) {
      chart.setLabels({ x: tNew("curves.x"), y: tNew("curves.y") });
      SERIES.forEach((s, i) => { legendItems[i].textContent = tNew(s.label); });
      draw();
    },
  };
}
