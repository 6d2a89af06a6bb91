// FIG 2, under the error curves: each head's mean attention weight against steps, from the
// records' head_weight (the trainer's evaluation on the 2–5-block test set, every eval_every
// steps). Fetch: one line per head, its weight on the target. Vector: per head a solid line (on
// A) and a dashed one (on B). Each head has its ring colour (trainheads.js); the steps axis is
// the error curves' own (errorcurves.js calls draw with its records and domain). The drawing
// states where weight 0 and weight 1 sit (data-y0, data-y1), so a test can read the lines back.

import { lineChart } from "./chart.js";
import { PALETTE } from "./colours.js";
import { el, html } from "./svg.js";
import { headColour } from "./trainheads.js";

const OBJECT_DASH = { target: "", A: "", B: "6 4" }; // on A solid, on B dashed

/** The lines a run of `heads` heads on `task` has: {key, h, on, colour, dash}. */
function linesOf(task, heads) {
  const objects = task === "vector" ? ["A", "B"] : ["target"];
  return Array.from({ length: heads }, (_, h) => objects.map((on, i) => ({
    key: `h${h + 1}-${on}`, h, on, index: i, colour: headColour(h), dash: OBJECT_DASH[on] }))).flat();
}

/** A legend sample: a short line in the series' style. */
function sample(li, { colour, dash }) {
  const svg = el("svg", { width: 28, height: 10, "aria-hidden": "true" }, li);
  el("line", { x1: 1, x2: 27, y1: 5, y2: 5, stroke: colour, "stroke-width": 2.2, "stroke-dasharray": dash || null }, svg);
}

/**
 * Build the panel in `parent`; t is the translator. Returns {draw(records, xDomain),
 * show(task, heads), relabel()}; show() sets which lines there are (the run's configuration).
 */
export function headCurves(parent, t) {
  const box = html("div", { class: "head-curves-box" }, parent);
  const narrow = parent.clientWidth > 0 && parent.clientWidth < 440;
  const size = { width: narrow ? 340 : 460, height: 200,
    margin: { top: 10, right: 16, bottom: 42, left: 56 } };
  let shape = null; // {task, heads, lines, chart, svg, legend}
  let last = { records: [], steps: [0, 1] };

  function build(task, heads) {
    box.replaceChildren();
    const svg = el("svg", { class: "chart head-curves", role: "img" }, box);
    const chart = lineChart(svg, { ...size, x: { domain: [0, 1], label: t("curves.x") },
      y: { domain: [0, 1], label: t(task === "vector" ? "hc.y.vector" : "hc.y") } });
    const lines = linesOf(task, heads);
    for (const line of lines) {
      chart.series(line.key, { colour: line.colour, dash: line.dash, width: 2, className: `head-line ${line.key}` });
    }
    chart.onRedraw(() => mark());
    const legend = html("ul", { class: "legend head-legend" }, box);
    for (let h = 0; h < heads; h += 1) {
      const li = html("li", {}, legend);
      sample(li, { colour: headColour(h), dash: "" });
      html("span", { text: t("tr.legend.head", { h: h + 1 }) }, li);
    }
    if (task === "vector") {
      for (const on of ["A", "B"]) {
        const li = html("li", {}, legend);
        sample(li, { colour: PALETTE.ink, dash: OBJECT_DASH[on] });
        html("span", { text: t(`hc.on.${on}`) }, li);
      }
    }
    shape = { task, heads, lines, chart, svg };
  }

  /** Where weight 0 and 1 sit on screen, for readers of the drawing (tests). */
  function mark() {
    const y = shape.chart.scales().y;
    shape.svg.dataset.y0 = y(0).toFixed(2);
    shape.svg.dataset.y1 = y(1).toFixed(2);
  }

  function draw(records, steps) {
    last = { records, steps };
    if (!shape) return;
    const { chart, lines, svg, task } = shape;
    chart.setDomain("x", steps);
    for (const line of lines) {
      const points = records.map((r) => {
        const w = r.head_weight?.[line.h];
        return [r.step, Array.isArray(w) ? w[line.index] : w];
      }).filter(([, w]) => Number.isFinite(w));
      chart.setPoints(line.key, points);
    }
    chart.draw();
    mark();
    svg.setAttribute("aria-label", t(task === "vector" ? "hc.aria.vector" : "hc.aria", { n: records.length }));
  }

  return {
    draw,
    show(task, heads) {
      if (shape && shape.task === task && shape.heads === heads) return;
      build(task, heads);
      draw([], last.steps); // the records drawn so far were another configuration's
    },
    relabel() {
      if (!shape) return;
      build(shape.task, shape.heads);
      draw(last.records, last.steps);
    },
  };
}
