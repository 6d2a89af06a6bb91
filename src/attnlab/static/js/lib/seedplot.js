// The seed sweep behind F2.2 and F2.6, drawn in the claims panel: one dot per seed the engine
// trained (values.per_seed, from the server's 100-seed sweep), x the first step below the
// claim's error, y the second quantity against its threshold line, the seeds that miss marked.
// Everything drawn is the engine's: the seeds, their numbers and the thresholds (values).

import { axis, el, linear } from "./svg.js";

const W = 340, H = 170, M = { left: 46, right: 12, top: 10, bottom: 40 };

// claim → how its per_seed lists are drawn: x and y columns, the threshold (a value name) and
// whether a seed passes. A seed that never reached the error sits at the right edge.
const PLOTS = {
  "F2.2": { x: "steps", y: "mlp_cm", line: "race_cm", pass: (p, i) => p.race[i] },
  "F2.6": { x: "steps", y: "final_cm", line: "final_limit_cm",
    pass: (p, i, v) => p.steps[i] !== null && p.final_cm[i] < v.final_limit_cm },
};

/** Whether `claim` has a seed plot and its sweep has been measured. */
export const hasSeedPlot = (claim, v) => Boolean(PLOTS[claim] && v?.per_seed);

/** The plot of claim's sweep as an <svg> element (t: the catalogue, for its words). */
export function seedPlot(claim, v, t) {
  const spec = PLOTS[claim];
  const p = v.per_seed;
  const n = p.seed.length;
  const xs = p[spec.x].filter((s) => s !== null);
  const xMax = Math.max(...xs, v.steps ?? 0) * 1.08 || 1;
  const yMax = Math.max(...p[spec.y], v[spec.line]) * 1.1;
  const x = linear([0, xMax], [M.left, W - M.right]);
  const y = linear([0, yMax], [H - M.bottom, M.top]);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "seed-plot", role: "img",
    "aria-label": t(`seedplot.${claim}.label`, { n, ok: p.seed.filter((_, i) => spec.pass(p, i, v)).length }) });
  axis(svg, x, { orient: "bottom", at: H - M.bottom, ticks: x.ticks(4), label: t(`seedplot.${claim}.x`) });
  axis(svg, y, { orient: "left", at: M.left, ticks: y.ticks(4), label: t(`seedplot.${claim}.y`) });
  const at = y(v[spec.line]);
  el("line", { x1: M.left, x2: W - M.right, y1: at, y2: at, class: "seed-line" }, svg);
  el("text", { x: W - M.right, y: at - 4, "text-anchor": "end", class: "seed-line-label",
    text: `${v[spec.line]} cm` }, svg);
  const dots = el("g", { class: "seed-dots" }, svg);
  p.seed.forEach((seed, i) => {
    const ok = spec.pass(p, i, v);
    const steps = p[spec.x][i];
    el("circle", { cx: x(steps ?? xMax).toFixed(1), cy: y(p[spec.y][i]).toFixed(1), r: 3,
      class: `seed-dot${ok ? "" : " miss"}${seed === v.seed ? " default" : ""}`, "data-seed": seed }, dots)
      .appendChild(el("title", { text: t(`seedplot.${claim}.dot`, { seed, steps: steps ?? "—",
        cm: p[spec.y][i].toFixed(1) }) }));
  });
  return svg;
}
