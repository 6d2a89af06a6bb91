// A bar chart built once and refreshed with new heights: FIG 1's five weights, FIG 3's sixteen
// weights of one draw, FIG 4's eight pooled outputs. Several series may share one slot (drawn
// on top of each other, e.g. FIG 4's reversed order over the original) or sit side by side.
// Bars grow from 0, so negative values hang below the zero line.

import { axis, el, linear } from "./svg.js";

/**
 * Build the chart in `svg` (its viewBox becomes width × height). count: number of slots;
 * domain: [lo, hi] of the y axis; categories(i) → the label under slot i (or null);
 * yLabel, yTicks, yFormat: the value axis. Returns {x(i) slot's left px, band (slot width px),
 * y (the current scale), addSeries(key, style), set(key, values), show(key, on), rects(key),
 * setDomain(d)}. Each bar keeps its value in data-value.
 */
export function barChart(svg, { width = 300, height = 200,
  margin = { top: 16, right: 8, bottom: 30, left: 44 }, count, domain = [0, 1],
  categories = (i) => String(i + 1), yLabel = "", yTicks = null, yFormat } = {}) {
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const band = (width - margin.left - margin.right) / count;
  const x = (i) => margin.left + i * band;
  const axes = el("g", { class: "bar-axes" }, svg);
  const plot = el("g", { class: "bar-plot" }, svg);
  const series = new Map();
  const state = { y: linear(domain, [height - margin.bottom, margin.top]) };

  function redrawAxes() {
    axes.replaceChildren();
    const y = state.y;
    axis(axes, y, { orient: "left", at: margin.left, ticks: yTicks ?? y.ticks(4), format: yFormat,
      label: yLabel, grid: width - margin.left - margin.right });
    const zero = Math.min(Math.max(y(0), margin.top), height - margin.bottom);
    el("line", { x1: margin.left, x2: width - margin.right, y1: zero, y2: zero, class: "axis-line" }, axes);
    for (let i = 0; i < count; i += 1) {
      const text = categories(i);
      if (text === null || text === undefined) continue;
      el("text", { x: x(i) + band / 2, y: height - margin.bottom + 15, "text-anchor": "middle",
        class: "tick-label bar-category", text }, axes);
    }
  }

  function place(rect, i, v, item) {
    const y = state.y;
    const y0 = y(0);
    const y1 = y(Math.min(Math.max(v, state.y.domain[0]), state.y.domain[1]));
    const w = band * item.widthFraction;
    const start = item.centre ? (1 - item.widthFraction) / 2 : item.offset;
    rect.setAttribute("x", (x(i) + band * start).toFixed(1));
    rect.setAttribute("width", w.toFixed(1));
    rect.setAttribute("y", Math.min(y0, y1).toFixed(1));
    rect.setAttribute("height", Math.max(Math.abs(y1 - y0), 0.5).toFixed(1));
    rect.dataset.value = String(v);
  }

  redrawAxes();
  return {
    x,
    band,
    get y() { return state.y; },
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
      state.y = linear(d, [height - margin.bottom, margin.top]);
      redrawAxes();
      for (const item of series.values()) item.rects.forEach((r, i) => place(r, i, item.values[i] ?? 0, item));
    },
  };
}
