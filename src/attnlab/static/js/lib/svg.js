// Small SVG helpers shared by every figure view: element creation, linear and log scales, axes,
// and a drag behaviour that works with a pointer AND with the keyboard (every drag handle is
// focusable and moves with the arrow keys; Shift moves ten times as far).

const NS = "http://www.w3.org/2000/svg";

/** Create an SVG element `tag` with attributes, optionally appended to `parent`. */
export function el(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  attrs(node, attributes);
  if (tag === "svg") scaleWatch?.observe(node);
  if (parent) parent.appendChild(node);
  return node;
}

// Each drawing's scale on screen (px per viewBox unit) as the CSS variable --s, kept current as
// its box changes; figures.css keeps every label at least 10 px tall on screen with it.
const scaleWatch = typeof ResizeObserver === "function" ? new ResizeObserver((entries) => {
  for (const { target, contentRect } of entries) {
    const box = target.viewBox?.baseVal;
    const s = box?.width && box?.height
      ? Math.min(contentRect.width / box.width, contentRect.height / box.height) : 1;
    if (s > 0 && target.style.getPropertyValue("--s") !== s.toFixed(3)) {
      target.style.setProperty("--s", s.toFixed(3));
      target.dispatchEvent(new Event("svgscale")); // charts re-fit their margins (chart.js)
    }
    target.querySelectorAll(".y-label").forEach(placeYLabel); // the tick labels changed size
  }
}) : null;

/**
 * A rotated y-axis label just left of its axis's tick labels, measured as drawn (they grow on a
 * small screen, see figures.css), and never past the drawing's left edge.
 */
function placeYLabel(label) {
  if (!label.isConnected) return;
  const ticks = [...label.parentNode.querySelectorAll(".tick-label")].map((t) => t.getBBox());
  const fs = parseFloat(getComputedStyle(label).fontSize) || 12;
  const left = Math.min(...ticks.filter((b) => b.width).map((b) => b.x));
  if (!Number.isFinite(left)) return;
  const x = Math.max(left - 4 - 0.25 * fs, 0.85 * fs); // baseline; the glyphs reach ~0.8 em left
  const mid = label.getAttribute("y");
  attrs(label, { x: x.toFixed(1), transform: `rotate(-90 ${x.toFixed(1)} ${mid})` });
}

/** How many times larger than its nominal `fs` (drawing units) a label in `svg` is drawn (figures.css). */
export function fontGrowth(svg, fs = 11) {
  const s = parseFloat(svg.style.getPropertyValue("--s")) || 1;
  return Math.max(1, 10.2 / s / fs);
}

/** Set attributes (null/undefined removes one); `text` sets textContent. Returns the node. */
export function attrs(node, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else if (value === null || value === undefined || value === false) node.removeAttribute(name);
    else node.setAttribute(name, String(value));
  }
  return node;
}

/** An HTML element (for controls and readouts next to the drawings). */
export function html(tag, attributes = {}, parent = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** Remove every child of `node`. */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A linear scale domain → range with `invert`, `ticks(n)` and `clamp` option. */
export function linear([d0, d1], [r0, r1], { clamp = false } = {}) {
  const k = (r1 - r0) / (d1 - d0 || 1);
  const scale = (x) => {
    const y = r0 + (x - d0) * k;
    return clamp ? Math.min(Math.max(y, Math.min(r0, r1)), Math.max(r0, r1)) : y;
  };
  scale.invert = (y) => d0 + (y - r0) / k;
  scale.domain = [d0, d1];
  scale.range = [r0, r1];
  scale.ticks = (n = 5) => linearTicks(d0, d1, n);
  return scale;
}

/** A log10 scale; ticks at 1, 2, 5 × powers of ten (or only powers when the span is wide). */
export function log([d0, d1], [r0, r1], { clamp = false } = {}) {
  const l0 = Math.log10(d0);
  const l1 = Math.log10(d1);
  const inner = linear([l0, l1], [r0, r1], { clamp });
  const scale = (x) => inner(Math.log10(Math.max(x, Number.MIN_VALUE)));
  scale.invert = (y) => 10 ** inner.invert(y);
  scale.domain = [d0, d1];
  scale.range = [r0, r1];
  scale.ticks = () => logTicks(d0, d1);
  return scale;
}

function linearTicks(a, b, n) {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const raw = (hi - lo) / Math.max(n, 1);
  const mag = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? mag * 10;
  const out = [];
  // integer multiples of the step, rounded: no 0.30000000000000004 in a tick label
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i += 1) {
    out.push(i === 0 ? 0 : +(i * step).toPrecision(12));
  }
  return out;
}

function logTicks(a, b) {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const decades = Math.log10(hi / lo);
  const mults = decades > 4 ? [1] : decades > 2 ? [1, 3] : [1, 2, 5];
  const out = [];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p += 1) {
    for (const m of mults) {
      const v = +(m * 10 ** p).toPrecision(12);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
    }
  }
  return out;
}

/** A compact number label: 0.001 → "0.001", 25000 → "25k", 1e6 → "1M", 1e-7 → "1e-7". */
export function fmtTick(v) {
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a < 1e-3) return v.toExponential(0).replace("e-", "e−").replace("-", "−");
  return String(+v.toPrecision(3)).replace("-", "−");
}

/**
 * Draw an axis for `scale` into a new <g class="axis"> of `parent`. `em`: how many times its
 * labels are drawn larger than their nominal size (chart.js), so the offsets grow with them.
 * orient "bottom" places it at y = `at` (px), "left" at x = `at`.
 * Returns the group so a caller can clear and redraw it.
 */
/** Baselines of a bottom axis's tick labels and of its title under a line at `at`, for labels
 * drawn `em` times their nominal size (fontGrowth): bar categories and the tabletop use them too. */
export function belowAxis(at, em = 1) {
  const ticks = at + 4 + 11 * em;
  return { ticks, title: ticks + 4 + 13 * em };
}

export function axis(parent, scale, { orient = "bottom", at = 0, ticks = null, format = fmtTick,
  label = "", grid = 0, em = 1 } = {}) {
  const g = el("g", { class: `axis axis-${orient}` }, parent);
  const values = ticks ?? scale.ticks(5);
  const [r0, r1] = scale.range;
  const horizontal = orient === "bottom";
  if (horizontal) el("line", { x1: r0, x2: r1, y1: at, y2: at, class: "axis-line" }, g);
  else el("line", { x1: at, x2: at, y1: r0, y2: r1, class: "axis-line" }, g);
  for (const v of values) {
    const p = scale(v);
    if (horizontal) {
      if (grid) el("line", { x1: p, x2: p, y1: at, y2: at - grid, class: "grid-line" }, g);
      el("line", { x1: p, x2: p, y1: at, y2: at + 4, class: "tick" }, g);
      el("text", { x: p, y: belowAxis(at, em).ticks, "text-anchor": "middle", class: "tick-label", text: format(v) }, g);
    } else {
      if (grid) el("line", { x1: at, x2: at + grid, y1: p, y2: p, class: "grid-line" }, g);
      el("line", { x1: at - 4, x2: at, y1: p, y2: p, class: "tick" }, g);
      el("text", { x: at - 7, y: p + 4, "text-anchor": "end", class: "tick-label", text: format(v) }, g);
    }
  }
  if (label) {
    const mid = (r0 + r1) / 2;
    if (horizontal) {
      el("text", { x: mid, y: belowAxis(at, em).title, "text-anchor": "middle", class: "axis-label", text: label }, g);
    } else {
      const text = el("text", { x: at - 40, y: mid, "text-anchor": "middle", class: "axis-label y-label",
        transform: `rotate(-90 ${at - 40} ${mid})`, text: label }, g);
      placeYLabel(text);
    }
  }
  return g;
}

/** SVG user coordinates (of `node`'s parent) under a pointer event. */
export function localPoint(node, event) {
  const ctm = node.parentNode.getScreenCTM();
  if (!ctm) return [event.clientX, event.clientY];
  const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(ctm.inverse());
  return [p.x, p.y];
}

/**
 * Make `handle` draggable in its parent's user coordinates, by pointer and by keyboard.
 * get() → [x, y] the handle's current position; set([x, y], {source}) applies a move (clamp it
 * there). step: keyboard step in user units (Shift × 10). axis: "xy" | "x" | "y".
 * label: the accessible name, e.g. "green block, 12 cm right, 40 cm up".
 * Returns a function that removes the listeners.
 */
export function draggable(handle, { get, set, step = 1, axis: axes = "xy", label = "",
  onStart = null, onEnd = null } = {}) {
  attrs(handle, { tabindex: 0, role: "button", "aria-roledescription": "draggable",
    "aria-label": label || null, class: `${handle.getAttribute("class") ?? ""} drag-handle`.trim() });
  const stopHit = touchTarget(handle);
  let offset = null;
  const down = (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    handle.focus({ preventScroll: true });
    handle.setPointerCapture(event.pointerId);
    const [px, py] = localPoint(handle, event);
    const [x, y] = get();
    offset = [x - px, y - py];
    handle.classList.add("dragging");
    onStart?.();
  };
  const move = (event) => {
    if (!offset) return;
    const [px, py] = localPoint(handle, event);
    const [x0, y0] = get();
    set([axes === "y" ? x0 : px + offset[0], axes === "x" ? y0 : py + offset[1]], { source: "pointer" });
  };
  const up = (event) => {
    if (!offset) return;
    offset = null;
    handle.classList.remove("dragging");
    if (handle.hasPointerCapture(event.pointerId)) handle.releasePointerCapture(event.pointerId);
    onEnd?.();
  };
  const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const key = (event) => {
    const d = KEYS[event.key];
    if (!d || (axes === "x" && d[0] === 0) || (axes === "y" && d[1] === 0)) return;
    event.preventDefault();
    const s = step * (event.shiftKey ? 10 : 1);
    const [x, y] = get();
    set([x + d[0] * s, y + d[1] * s], { source: "keyboard" });
    onEnd?.();
  };
  handle.addEventListener("pointerdown", down);
  handle.addEventListener("pointermove", move);
  handle.addEventListener("pointerup", up);
  handle.addEventListener("pointercancel", up);
  handle.addEventListener("keydown", key);
  handle.addEventListener("touchstart", keepTouch, { passive: false });
  return () => {
    for (const [type, fn] of [["pointerdown", down], ["pointermove", move], ["pointerup", up],
      ["pointercancel", up], ["keydown", key], ["touchstart", keepTouch]]) {
      handle.removeEventListener(type, fn);
    }
    stopHit();
  };
}

// Chromium ignores `touch-action` on SVG children, and `touch-action: none` on the whole <svg>
// would stop the page from scrolling under a finger anywhere on a figure. A finger that lands
// on a handle instead cancels its own touchstart: the browser then never starts a pan or zoom
// for that touch, the pointer events (captured) carry the drag, and a finger beside the
// handles scrolls the page as usual.
const keepTouch = (event) => event.preventDefault();

const TOUCH_PX = 44; // the smallest touch target, in screen px (WCAG 2.5.5)

/**
 * An invisible circle under `handle`'s drawing, TOUCH_PX across on screen whatever the SVG's
 * scale (kept so by a ResizeObserver on the owner <svg>). Returns a function that removes it.
 */
function touchTarget(handle) {
  const hit = el("circle", { r: 0, class: "touch-hit" });
  handle.insertBefore(hit, handle.firstChild);
  const svg = handle.ownerSVGElement;
  const fit = () => {
    const ctm = handle.getScreenCTM();
    const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 1;
    if (scale > 0) hit.setAttribute("r", (TOUCH_PX / 2 / scale).toFixed(1));
  };
  fit();
  const watch = svg && typeof ResizeObserver === "function" ? new ResizeObserver(fit) : null;
  watch?.observe(svg);
  return () => {
    watch?.disconnect();
    hit.remove();
  };
}

/** A polyline path "M x y L x y …" from points, skipping non-finite ones (a gap). */
export function pathData(points, x, y) {
  let d = "";
  let pen = false;
  for (const [a, b] of points) {
    const px = x(a);
    const py = y(b);
    if (!Number.isFinite(px) || !Number.isFinite(py)) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${px.toFixed(1)} ${py.toFixed(1)}`;
    pen = true;
  }
  return d;
}
