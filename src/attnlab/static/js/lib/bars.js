// A bar chart built once and refreshed with new heights: FIG 1's five weights, FIG 3's sixteen
// weights of one draw, FIG 4's eight pooled outputs. Several series may share one slot (drawn
// on top of each other, e.g. FIG 4's reversed order over the original) or sit side by side.
// Bars grow from 0, so negative values hang below the zero line. Its margins grow with the
// labels on a small screen as a line chart's do (chart.js plotBox): every rescale lays it out again.

import { onRescale, plotBox } from "./chart.js";
import { axis, belowAxis, el, linear } from "./svg.js";

/**
 * Build the chart in `svg` (its viewBox becomes width × height). count: number of slots;
 * domain: [lo, hi] of the y axis; categories(i) → the label under slot i (or null);
 * yLabel, yTicks, yFormat: the value axis; xLabel: a title under the categories; margin grows
 * with the labels, fixed (e.g. {left: 142}) does not. Returns {x(i) slot's left px, band (slot
 * width px), y (the current scale), addSeries(key, style), set(key, values), show(key, on),
 * rects(key), setDomain(d), resize({width, height}), onRedraw(fn)}: x, band and y change when
 * the chart is laid out again, so marks a view adds must be re-placed in onRedraw. Each bar
 * keeps its value in data-value.
 */
export function barChart(svg, { width = 300, height = 200,
  margin = { top: 16, right: 8, bottom: 30, left: 44 }, fixed = {}, count, domain = [0, 1],
  categories = (i) => String(i + 1), yLabel = "", xLabel = "", yTicks = null, yFormat } = {}) {
  const size = { width, height };
  const axes = el("g", { class: "bar-axes" }, svg);
  const plot = el("g", { class: "bar-plot" }, svg);
  const series = new Map();
  const redrawn = [];
  let yDomain = domain;
  let box;
  let y;
  const band = () => (box.right - box.left) / count;
  const x = (i) => box.left + i * band();

  function drawAxes() {
    axes.replaceChildren();
    axis(axes, y, { orient: "left", at: box.left, ticks: yTicks ?? y.ticks(4), format: yFormat,
      label: yLabel, em: box.em, grid: box.right - box.left });
    const zero = Math.min(Math.max(y(0), box.top), box.bottom);
    el("line", { x1: box.left, x2: box.right, y1: zero, y2: zero, class: "axis-line" }, axes);
    const below = belowAxis(box.bottom, box.em);
    for (let i = 0; i < count; i += 1) {
      const text = categories(i);
      if (text === null || text === undefined) continue;
      el("text", { x: x(i) + band() / 2, y: below.ticks, "text-anchor": "middle",
        class: "tick-label bar-category", text }, axes);
    }
    if (xLabel) {
      el("text", { x: (box.left + box.right) / 2, y: below.title, "text-anchor": "middle",
        class: "axis-label", text: xLabel }, axes);
    }
  }

  function place(rect, i, v, item) {
    const y0 = y(0);
    const y1 = y(Math.min(Math.max(v, y.domain[0]), y.domain[1]));
    const w = band() * item.widthFraction;
    const start = item.centre ? (1 - item.widthFraction) / 2 : item.offset;
    rect.setAttribute("x", (x(i) + band() * start).toFixed(1));
    rect.setAttribute("width", w.toFixed(1));
    rect.setAttribute("y", Math.min(y0, y1).toFixed(1));
    rect.setAttribute("height", Math.max(Math.abs(y1 - y0), 0.5).toFixed(1));
    rect.dataset.value = String(v);
  }

  /** Edges from the labels' size now, then axes and bars; a view's own marks follow. */
  function layout() {
    svg.setAttribute("viewBox", `0 0 ${size.width} ${size.height}`);
    box = plotBox(svg, { ...size, margin, fixed });
    y = linear(yDomain, [box.bottom, box.top]);
    drawAxes();
    for (const item of series.values()) item.rects.forEach((r, i) => place(r, i, item.values[i] ?? 0, item));
    redrawn.forEach((fn) => fn());
  }

  layout();
  onRescale(svg, layout);
  return {
    x,
    get band() { return band(); },
    get y() { return y; },
    /**
     * A series of `count` bars. widthFraction: share of the slot; offset: start within the slot
     * (as a share) — with centre: true the bar is centred instead. className styles it (CSS).
     */
    addSeries(key, { className = "", widthFraction = 0.7, offset = 0, centre = true, fill = null,
      stroke = null } = {}) {
      const g = el("g", { class: `bar-series ${className}`.trim() }, plot);
      const item = { g, widthFraction, offset, centre, values: [], rects: [] };
      item.rects = Array.from({ length: count }, () => el("rect", { class: "bar", fill, stroke }, g));
      series.set(key, item);
      return g;
    },
    set(key, values) {
      const item = series.get(key);
      item.values = values.map(Number);
      item.rects.forEach((rect, i) => place(rect, i, item.values[i] ?? 0, item));
    },
    show(key, on) {
      series.get(key).g.setAttribute("display", on ? "inline" : "none");
    },
    rects: (key) => series.get(key).rects,
    setDomain(d) {
      yDomain = d;
      layout();
    },
    /** Another shape of drawing (a view that lays its panels out for the width they get). */
    resize({ width: w = size.width, height: h = size.height }) {
      Object.assign(size, { width: w, height: h });
      layout();
    },
    onRedraw(fn) {
      redrawn.push(fn);
    },
  };
}
