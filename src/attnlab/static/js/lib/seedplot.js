// The seed sweep behind F2.2 and F2.6, drawn in the claims panel: one dot per seed the engine
// trained (values.per_seed, from the server's 100-seed sweep), x the first step below the
// claim's error, y the second quantity against its threshold line, the seeds that miss hollow,
// the page's default seed ringed. Everything drawn is the engine's: the seeds, their numbers and
// the thresholds (values). Steps are measured every few steps, so many seeds share one: those
// dots are set side by side (a beeswarm) rather than on top of each other.

import { onRescale, plotBox } from "./chart.js";
import { axis, el, linear, log } from "./svg.js";

const W = 340, H = 190, M = { left: 46, right: 44, top: 10, bottom: 40 }; // the line's label sits right
const R = 3; // dot radius

// claim → how its per_seed lists are drawn: x and y columns, the threshold (a value name),
// whether y is on a log axis (F2.6's end errors span 0.1–30 cm) and whether a seed passes. A
// seed that never reached the error sits at the right edge.
const PLOTS = {
  "F2.2": { x: "steps", y: "mlp_cm", line: "race_cm", log: false, pass: (p, i) => p.race[i] },
  "F2.6": { x: "steps", y: "final_cm", line: "final_limit_cm", log: true,
    pass: (p, i, v) => p.steps[i] !== null && p.final_cm[i] < v.final_limit_cm },
};

/** Whether `claim` has a seed plot and its sweep has been measured. */
export const hasSeedPlot = (claim, v) => Boolean(PLOTS[claim] && v?.per_seed);

/** [lo, hi] around the values, a tenth of their span wider on each side (never below 0). */
function padded(values) {
  const lo = Math.min(...values), hi = Math.max(...values);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.1 || 1;
  return [Math.max(0, lo - pad), hi + pad];
}

/** x offsets that keep dots at (x, y) from overlapping: each moves sideways to the nearest free place. */
function dodge(points) {
  const placed = [];
  return points.map(([x, y]) => {
    for (let k = 0; ; k += 1) {
      const dx = (k % 2 ? 1 : -1) * Math.ceil(k / 2) * (R * 1.9);
      if (placed.every(([px, py]) => Math.hypot(px - (x + dx), py - y) >= 2 * R - 0.5)) {
        placed.push([x + dx, y]);
        return x + dx;
      }
    }
  });
}

/** The plot of claim's sweep as an <svg> element (t: the catalogue, for its words). */
export function seedPlot(claim, v, t) {
  const spec = PLOTS[claim];
  const p = v.per_seed;
  const n = p.seed.length;
  const xDomain = padded([...p[spec.x].filter((s) => s !== null), v.steps ?? 0]);
  const ys = [...p[spec.y], v[spec.line]];
  const yDomain = spec.log ? [Math.min(...ys) / 1.6, Math.max(...ys) * 1.6] : padded(ys);
  const svg = el("svg", { class: "seed-plot", role: "img",
    "aria-label": t(`seedplot.${claim}.label`, { n, ok: p.seed.filter((_, i) => spec.pass(p, i, v)).length }) });

  function draw() {
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const b = plotBox(svg, { width: W, height: H, margin: M }); // grows with the labels
    const x = linear(xDomain, [b.left, b.right]);
    const y = (spec.log ? log : linear)(yDomain, [b.bottom, b.top]);
    axis(svg, x, { orient: "bottom", at: b.bottom, ticks: x.ticks(4), em: b.em, label: t(`seedplot.${claim}.x`) });
    axis(svg, y, { orient: "left", at: b.left, ticks: y.ticks(4), em: b.em, label: t(`seedplot.${claim}.y`) });
    const at = y(v[spec.line]);
    el("line", { x1: b.left, x2: b.right, y1: at, y2: at, class: "seed-line" }, svg);
    el("text", { x: b.right + 4, y: at + 4, class: "seed-line-label", text: `${v[spec.line]} cm` }, svg);
    const dots = el("g", { class: "seed-dots" }, svg);
    const centres = p.seed.map((_, i) => [x(p[spec.x][i] ?? xDomain[1]), y(p[spec.y][i])]);
    const xs = dodge(centres).map((cx) => Math.min(Math.max(cx, b.left + R), b.right - R)); // in the plot
    p.seed.forEach((seed, i) => {
      const steps = p[spec.x][i];
      el("circle", { cx: xs[i].toFixed(1), cy: centres[i][1].toFixed(1), r: R,
        class: `seed-dot${spec.pass(p, i, v) ? "" : " miss"}${seed === v.seed ? " default" : ""}`,
        "data-seed": seed }, dots)
        .appendChild(el("title", { text: t(`seedplot.${claim}.dot`, { seed, steps: steps ?? "—",
          cm: p[spec.y][i].toFixed(1) }) }));
    });
    dots.querySelector(".default")?.parentNode.appendChild(dots.querySelector(".default")); // on top
  }

  draw();
  onRescale(svg, draw);
  return svg;
}
