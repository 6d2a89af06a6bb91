// FIG 7, left: one camera frame (the API's PNG) cut into ViT patches. Hovering a patch, or
// moving over the grid with the arrow keys once it has focus, picks that patch: it is outlined
// on the frame and shown enlarged next to the token it becomes. The picked spot is kept as a
// pixel, so a new patch size picks the patch under the same spot.

import { clamp } from "./format.js";
import { attrs, clear, el, localPoint } from "./svg.js";

const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * Build the frame in `svg` at px box {x, y, size}. onPick(patch, source) gets
 * {row, col, index, x0, y0, size, rows, cols, numbers, rgb} whenever the picked patch is drawn;
 * source is "pointer", "keyboard" or "data" (new figure data).
 * Returns {update(image, patches), zoom(svg) (draws the picked patch enlarged into
 * another svg), group (the focusable grid)}.
 */
export function patchImage(svg, { x = 0, y = 0, size = 336, start = [84, 136], onPick = () => {} } = {}) {
  const group = el("g", { class: "patch-image", tabindex: 0, role: "group" }, svg);
  const image = el("image", { x, y, width: size, height: size, preserveAspectRatio: "none",
    class: "camera" }, group);
  const lines = el("g", { class: "patch-lines", "pointer-events": "none" }, group);
  const hit = el("rect", { x, y, width: size, height: size, fill: "transparent", class: "patch-hit" }, group);
  const mark = el("rect", { class: "patch-mark", "pointer-events": "none" }, group);
  const zooms = [];
  let spot = [...start]; // the picked spot in image pixels
  let state = null; // {url, imageSize, patches}

  const scale = () => size / (state?.imageSize ?? 224);

  function current() {
    if (!state) return null;
    const p = state.patches;
    const col = clamp(Math.floor(spot[0] / p.size), 0, p.cols - 1);
    const row = clamp(Math.floor(spot[1] / p.size), 0, p.rows - 1);
    return { row, col, index: row * p.cols + col, x0: col * p.size, y0: row * p.size, size: p.size,
      rows: p.rows, cols: p.cols, numbers: p.numbers_per_patch, rgb: p.mean_rgb?.[row]?.[col] ?? null };
  }

  function show(source = "data") {
    const c = current();
    if (!c) return;
    const k = scale();
    attrs(mark, { x: x + c.x0 * k, y: y + c.y0 * k, width: c.size * k, height: c.size * k,
      "data-row": c.row, "data-col": c.col });
    for (const z of zooms) attrs(z, { viewBox: `${c.x0} ${c.y0} ${c.size} ${c.size}` });
    onPick(c, source);
  }

  function drawGrid() {
    clear(lines);
    const p = state.patches;
    const k = scale();
    for (let i = 1; i < p.cols; i += 1) {
      const at = x + i * p.size * k;
      el("line", { x1: at, x2: at, y1: y, y2: y + size, class: "patch-line" }, lines);
    }
    for (let i = 1; i < p.rows; i += 1) {
      const at = y + i * p.size * k;
      el("line", { x1: x, x2: x + size, y1: at, y2: at, class: "patch-line" }, lines);
    }
  }

  function pickAt(event) {
    const [px, py] = localPoint(hit, event);
    const k = scale();
    const last = (state?.imageSize ?? 224) - 1;
    spot = [clamp((px - x) / k, 0, last), clamp((py - y) / k, 0, last)];
    show("pointer");
  }

  hit.addEventListener("pointermove", pickAt);
  hit.addEventListener("pointerdown", pickAt);
  group.addEventListener("keydown", (event) => {
    const d = KEYS[event.key];
    const c = current();
    if (!d || !c) return;
    event.preventDefault();
    const col = clamp(c.col + d[0], 0, c.cols - 1);
    const row = clamp(c.row + d[1], 0, c.rows - 1);
    spot = [(col + 0.5) * c.size, (row + 0.5) * c.size];
    show("keyboard");
  });

  return {
    group,
    update(img, patches) {
      const url = img.png;
      if (!state || state.url !== url) attrs(image, { href: url });
      for (const z of zooms) if (!state || state.url !== url) attrs(z.firstChild, { href: url });
      state = { url, imageSize: img.size, patches };
      drawGrid();
      show();
    },
    /** Enlarge the picked patch into `target` (an <svg>): it shows exactly that patch's pixels. */
    zoom(target) {
      attrs(target, { preserveAspectRatio: "none" });
      el("image", { x: 0, y: 0, width: 224, height: 224, class: "camera pixelated" }, target);
      zooms.push(target);
      return target;
    },
  };
}
