// A small line chart (linear or log axes) that is built once and then refreshed: FIG 2's error
// curves, and any view that plots a quantity against steps, depth or d_k. Series and horizontal
// guide lines are declared once; setPoints + draw() redraw only paths and axes.

import { attrs, axis, clear, el, fontGrowth, linear, log, pathData } from "./svg.js";

/**
 * The plot's edges inside a width × height drawing whose labels may be drawn larger than their
 * nominal size (a small screen, see svg.js's fontGrowth): the left and bottom margins, where the
 * tick labels and axis titles sit, are in em-equivalents of the labels as drawn, so they grow
 * with them. `fixed` adds room that does not grow (FIG 4's inset beside its bars). Every chart
 * that places axes takes its edges from here, again after each rescale (onRescale).
 */
export function plotBox(svg, { width, height, margin, fixed = {} }) {
  const em = fontGrowth(svg);
  return { em, left: (fixed.left ?? 0) + margin.left * em, right: width - margin.right,
    top: margin.top, bottom: height - margin.bottom * em };
}

/** Run fn whenever the drawing's scale on screen changes (and with it plotBox's margins). */
export function onRescale(svg, fn) {
  svg.addEventListener("svgscale", fn);
}

const MAX_POINTS = 1500; // enough for a smooth 600-px curve; thin longer series evenly

function thin(points) {
  if (points.length <= MAX_POINTS) return points;
  const stride = points.length / MAX_POINTS;
  const out = [];
  for (let i = 0; i < MAX_POINTS; i += 1) out.push(points[Math.floor(i * stride)]);
  out.push(points[points.length - 1]);
  return out;
}

/**
 * Build a chart inside the SVG `svg` (its viewBox is set from width × height).
 * x/y: {domain: [a, b], log: bool, label: string, format}. Returns an object with
 * series(key, style), guide(value, text, style), setPoints(key, [[x, y], …]),
 * setDomain("x"|"y", [a, b]), setLabels({x, y}), draw(), the scales via scales(), the plot's
 * edges via box(), and onRedraw(fn): fn runs after every redraw the chart makes by itself.
 * `margin` is in drawing units at the labels' nominal size; the left and bottom ones (where
 * the tick labels and axis titles sit) grow with the labels on a small screen, so a view's own
 * marks must take positions from scales() / box(), and re-place them in onRedraw.
 */
export function lineChart(svg, { width = 480, height = 300,
  margin = { top: 14, right: 16, bottom: 44, left: 56 }, x = {}, y = {} } = {}) {
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const cfg = { x: { domain: [0, 1], ...x }, y: { domain: [0, 1], ...y } };
  const axes = el("g", { class: "chart-axes" }, svg);
  const guides = el("g", { class: "chart-guides" }, svg);
  const plot = el("g", { class: "chart-plot" }, svg);
  const clipId = `clip-${Math.random().toString(36).slice(2, 9)}`;
  const clip = el("clipPath", { id: clipId }, el("defs", {}, svg));
  const clipRect = el("rect", {}, clip);
  plot.setAttribute("clip-path", `url(#${clipId})`);
  const series = new Map();
  const guideList = [];
  const redrawn = [];

  const box = () => plotBox(svg, { width, height, margin });
  const scales = () => {
    const b = box();
    const make = (c, range) => (c.log ? log : linear)(c.domain, range, { clamp: false });
    return { x: make(cfg.x, [b.left, b.right]), y: make(cfg.y, [b.bottom, b.top]) };
  };

  function draw() {
    const s = scales();
    const b = box();
    attrs(clipRect, { x: b.left, y: b.top - 2, width: b.right - b.left, height: b.bottom - b.top + 4 });
    clear(axes);
    axis(axes, s.x, { orient: "bottom", at: b.bottom, label: cfg.x.label, em: b.em,
      format: cfg.x.format, grid: b.bottom - b.top });
    axis(axes, s.y, { orient: "left", at: b.left, label: cfg.y.label, format: cfg.y.format,
      em: b.em, grid: b.right - b.left });
    clear(guides);
    for (const g of guideList) {
      const py = s.y(g.value);
      if (py < b.top || py > b.bottom) continue;
      el("line", { x1: b.left, x2: b.right, y1: py, y2: py, class: `guide ${g.className}` }, guides);
      el("text", { x: width - margin.right - 4, y: py - 4, "text-anchor": "end", class: "guide-label", text: g.text }, guides);
    }
    for (const item of series.values()) {
      item.path.setAttribute("d", pathData(thin(item.points), s.x, s.y));
    }
  }

  onRescale(svg, () => {
    draw();
    redrawn.forEach((fn) => fn());
  });

  return {
    scales,
    box,
    draw,
    onRedraw(fn) {
      redrawn.push(fn);
    },
    series(key, { colour, dash = "", width: w = 2, className = "" } = {}) {
      const path = el("path", { class: `series ${className}`, fill: "none", stroke: colour,
        "stroke-width": w, "stroke-dasharray": dash || null, "stroke-linejoin": "round" }, plot);
      series.set(key, { path, points: [] });
      return path;
    },
    guide(value, text, { className = "" } = {}) {
      guideList.push({ value, text, className });
    },
    setPoints(key, points) {
      series.get(key).points = points;
    },
    setDomain(which, domain) {
      cfg[which].domain = domain;
    },
    setLabels({ x: xl, y: yl }) {
      if (xl !== undefined) cfg.x.label = xl;
      if (yl !== undefined) cfg.y.label = yl;
    },
    setGuideText(index, text) {
      guideList[index].text = text;
    },
  };
}
