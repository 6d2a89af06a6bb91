// FIG 7 (§6, §5 "compute and memory"): from camera pixels to tokens, and the n² wall.
// Left: one synthetic 224 × 224 camera frame cut into ViT patches; the picked patch (hover, or
// arrow keys) is enlarged beside the token it becomes. Right: one layer's forward FLOPs against
// the token count n on log–log axes: linear parts 24nd² (blue), attention 4n²d (amber), the
// crossover n = 6d (teal, dashed) and the current setting (dots). Readouts: tokens, FLOPs,
// attention's share, KV cache. Data: GET /api/figures/tokens (attnlab.figures.tokens).
// Beyond the wall: shared KV heads (MHA / GQA / MQA) shrink the cache; m latent tokens
// (Perceiver) turn attention's 4n²d into 4nmd (dashed curves); one attention layer is timed on
// the server (lib/layertiming.js); the reader's own frame replaces the synthetic one
// (lib/framepicker.js, POST /api/tokens/frame).

import { lineChart } from "../lib/chart.js";
import { PALETTE } from "../lib/colours.js";
import { segmented, stepper } from "../lib/controls.js";
import { count, num } from "../lib/format.js";
import { framePicker } from "../lib/framepicker.js";
import { hl } from "../lib/highlight.js";
import { layerTiming } from "../lib/layertiming.js";
import { patchImage } from "../lib/patchimage.js";
import { everyNthPower } from "../lib/powers.js";
import { readoutList } from "../lib/readouts.js";
import { settledAnnouncer } from "../lib/settledannounce.js";
import { slider } from "../lib/slider.js";
import { el, html } from "../lib/svg.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("tokens");

const N_DOMAIN = [10, 1e6];
const FLOP_DOMAIN = [1e5, 1e17]; // fixed: switching the model moves the curves, not the axes
const CHART = { width: 470, height: 340, margin: { top: 14, right: 18, bottom: 46, left: 58 } };
const PREFIXES = ["", "k", "M", "G", "T", "P", "E", "Z"];
const ANNOUNCE_MS = 500;

/** A quantity in SI units: 2.85e9, "FLOP" → "2.85 GFLOP"; 4927488, "B" → "4.93 MB". */
export function si(x, unit) {
  if (!Number.isFinite(x)) return "—";
  const p = Math.min(Math.max(Math.floor(Math.log10(Math.abs(x) || 1) / 3), 0), PREFIXES.length - 1);
  return `${num(x / 1000 ** p, 3)} ${PREFIXES[p]}${unit}`;
}

function legendItem(ul, draw) {
  const li = html("li", {}, ul);
  draw(el("svg", { width: 26, height: 12, "aria-hidden": "true" }, li));
  return html("span", {}, li);
}

/** The FLOP chart with its crossover line, current-setting dots and legend. */
function flopChart(parent, t) {
  const svg = el("svg", { class: "chart flop-chart", role: "img" }, parent);
  const chart = lineChart(svg, { ...CHART, x: { domain: N_DOMAIN, log: true, label: t("tk.x") },
    y: { domain: FLOP_DOMAIN, log: true, label: t("tk.y"), format: everyNthPower(2) } });
  chart.series("linear", { colour: PALETTE.value, width: 2.5, className: "linear" });
  hl(chart.series("attention", { colour: PALETTE.attention, width: 2.5, className: "attention" }), "n2");
  chart.series("latent-linear", { colour: PALETTE.value, width: 2, dash: "7 4", className: "latent-linear" });
  chart.series("latent-attention", { colour: PALETTE.attention, width: 2, dash: "7 4", className: "latent-attention" });
  const over = el("g", { class: "flop-marks" }, svg);
  const cross = el("line", { class: "crossover", stroke: PALETTE.teal, "stroke-dasharray": "6 4",
    "stroke-width": 1.8 }, over);
  const crossLabel = el("text", { class: "crossover-label", "text-anchor": "start" }, over);
  const nowLine = el("line", { class: "now-line" }, over);
  const dots = { linear: el("circle", { r: 5, fill: PALETTE.value, class: "now-dot linear" }, over),
    attention: hl(el("circle", { r: 5, fill: PALETTE.attention, class: "now-dot attention" }, over), "n2"),
    // the same n with m latents: hollow dots on the dashed curves
    latentLinear: el("circle", { r: 4.5, fill: "#fff", stroke: PALETTE.value, "stroke-width": 2,
      class: "latent-dot" }, over),
    latentAttention: el("circle", { r: 4.5, fill: "#fff", stroke: PALETTE.attention, "stroke-width": 2,
      class: "latent-dot" }, over) };
  const nowLabel = el("text", { class: "now-label", "text-anchor": "middle" }, over);
  const ul = html("ul", { class: "legend" }, parent);
  const line = (stroke) => (s) => el("line", { x1: 1, x2: 25, y1: 6, y2: 6, stroke, "stroke-width": 2.5 }, s);
  const items = {
    linear: legendItem(ul, line(PALETTE.value)),
    attention: legendItem(ul, line(PALETTE.attention)),
    crossover: legendItem(ul, (s) => el("line", { x1: 13, x2: 13, y1: 0, y2: 12, stroke: PALETTE.teal,
      "stroke-width": 1.8, "stroke-dasharray": "4 2" }, s)),
    now: legendItem(ul, (s) => el("circle", { cx: 13, cy: 6, r: 4, fill: PALETTE.ink }, s)),
    latent: legendItem(ul, (s) => el("line", { x1: 1, x2: 25, y1: 6, y2: 6, stroke: PALETTE.attention,
      "stroke-width": 2, "stroke-dasharray": "7 4" }, s)),
  };
  hl(items.attention.parentNode, "n2");
  let last = null; // the marks' data, to re-place them when the chart re-fits its margins
  chart.onRedraw(() => last && view.draw(last));

  const view = {
    svg,
    draw(d) {
      last = d;
      const c = d.curve;
      chart.setLabels({ x: t("tk.x"), y: t("tk.y") });
      chart.setPoints("linear", c.n.map((n, i) => [n, c.linear[i]]));
      chart.setPoints("attention", c.n.map((n, i) => [n, c.attention[i]]));
      const lc = d.latent?.curve; // m latents reading the n tokens: dashed
      chart.setPoints("latent-linear", lc ? c.n.map((n, i) => [n, lc.linear[i]]) : []);
      chart.setPoints("latent-attention", lc ? c.n.map((n, i) => [n, lc.attention[i]]) : []);
      chart.draw();
      const s = chart.scales();
      const { top, bottom } = chart.box();
      const xc = s.x(d.crossover_n);
      Object.entries({ x1: xc, x2: xc, y1: top, y2: bottom }).forEach(([k, v]) => cross.setAttribute(k, v));
      crossLabel.setAttribute("x", xc + 5);
      crossLabel.setAttribute("y", top + 12);
      crossLabel.textContent = t("tk.crossover.label", { n: count(d.crossover_n) });
      const xn = s.x(d.point.n);
      Object.entries({ x1: xn, x2: xn, y1: s.y(d.point.attention), y2: s.y(d.point.linear) })
        .forEach(([k, v]) => nowLine.setAttribute(k, v));
      dots.linear.setAttribute("cx", xn);
      dots.linear.setAttribute("cy", s.y(d.point.linear));
      dots.attention.setAttribute("cx", xn);
      dots.attention.setAttribute("cy", s.y(d.point.attention));
      for (const [dot, key] of [[dots.latentLinear, "linear"], [dots.latentAttention, "attention"]]) {
        dot.style.display = d.latent ? "" : "none";
        if (d.latent) {
          dot.setAttribute("cx", xn);
          dot.setAttribute("cy", s.y(d.latent.point[key]));
        }
      }
      nowLabel.setAttribute("x", xn);
      nowLabel.setAttribute("y", Math.min(s.y(d.point.linear), s.y(d.point.attention)) - 10);
      nowLabel.textContent = `n = ${count(d.point.n)}`;
      svg.setAttribute("data-n", String(d.point.n));
      svg.setAttribute("aria-label", t("tk.chart.aria", { n: count(d.n), share: num(100 * d.attention_share, 3),
        cross: count(d.crossover_n) }));
      items.linear.textContent = t("tk.legend.linear");
      items.attention.textContent = t("tk.legend.attention");
      items.crossover.textContent = t("tk.legend.crossover");
      items.now.textContent = t("tk.legend.now");
      items.latent.textContent = d.latent ? t("tk.legend.latent", { m: count(d.latent.m) }) : "";
      items.latent.parentNode.hidden = !d.latent;
      svg.setAttribute("data-latents", String(d.latent?.m ?? 0));
    },
  };
  return view;
}

/** The picked patch, enlarged, and what it becomes. */
function patchCard(parent, image, t) {
  const card = html("div", { class: "patch-card" }, parent);
  const zoom = image.zoom(el("svg", { class: "patch-zoom", width: 84, height: 84, "aria-hidden": "true" }, card));
  html("span", { class: "patch-arrow", text: "→", "aria-hidden": "true" }, card);
  const token = html("span", { class: "patch-token", "aria-hidden": "true" }, card);
  const text = html("div", { class: "patch-text" }, card);
  const where = html("p", { class: "patch-where", "data-key": "patch" }, text);
  const numbers = html("p", { class: "patch-numbers", "data-key": "numbers" }, text);
  let last = null;
  return {
    zoom,
    show(p) {
      if (!p) return;
      last = p;
      where.textContent = t("tk.patch.where", { row: p.row + 1, col: p.col + 1, rows: p.rows, cols: p.cols,
        x0: p.x0, x1: p.x0 + p.size - 1, y0: p.y0, y1: p.y0 + p.size - 1 });
      numbers.textContent = t("tk.patch.numbers", { p: p.size, n: count(p.numbers), i: count(p.index + 1),
        total: count(p.rows * p.cols) });
      Object.entries({ row: p.row, col: p.col, value: p.numbers }).forEach(([k, v]) => card.setAttribute(`data-${k}`, v));
      token.style.background = p.rgb ? `rgb(${p.rgb.join(",")})` : "";
    },
    text: () => `${where.textContent}. ${numbers.textContent}`,
    relabel() {
      if (last) this.show(last);
    },
  };
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  const s = () => ctx.settings;
  const spec = (name) => ctx.params.find((p) => p.name === name); // ranges and choices: the server's
  let data = null;
  const speak = settledAnnouncer(ctx.announce, { delay: ANNOUNCE_MS });
  root.classList.add("fig-tokens");

  // ---- controls ------------------------------------------------------------------------------
  const bar = html("div", { class: "toolbar" }, root);
  const camerasCtl = stepper(bar, { name: "tk-cameras", label: t("tk.cameras"), value: s().cameras, min: spec("cameras").min,
    max: spec("cameras").max, onChange: (v) => change({ cameras: v }) });
  const patchCtl = segmented(bar, { name: "tk-patch", label: t("tk.patch"), value: s().patch,
    options: spec("patch").choices.map((p) => ({ value: p, label: String(p) })), onChange: (v) => change({ patch: Number(v) }) });
  const framesCtl = stepper(bar, { name: "tk-frames", label: t("tk.frames"), value: s().frames, min: spec("frames").min,
    max: spec("frames").max, onChange: (v) => change({ frames: v }) });
  const bar2 = html("div", { class: "toolbar" }, root);
  const actionsCtl = slider(bar2, { name: "tk-actions", label: t("tk.actions"), value: s().actions, min: spec("actions").min,
    max: spec("actions").max, onChange: (v) => change({ actions: v }) });
  const modelCtl = segmented(bar2, { name: "tk-model", label: t("tk.model"), value: s().model,
    options: spec("model").choices.map((m) => ({ value: m, label: t(`tk.model.${m}`) })), onChange: (v) => change({ model: v }) });
  const bar3 = html("div", { class: "toolbar" }, root);
  const kvCtl = segmented(bar3, { name: "tk-kv", label: t("tk.kv"), value: s().kv,
    options: spec("kv").choices.map((k) => ({ value: k, label: t(`tk.kv.${k}`) })), onChange: (v) => change({ kv: v }) });
  const choices = (name) => spec(name).choices ?? [];
  const kvHeadsCtl = segmented(bar3, { name: "tk-kv-heads", label: t("tk.kvheads"), value: s().kv_heads,
    options: choices("kv_heads").map((h) => ({ value: h, label: String(h) })),
    onChange: (v) => change({ kv_heads: Number(v) }) });
  const latentLabels = () => choices("latents").map((m) => (m === 0 ? t("tk.latents.none") : String(m)));
  const latentsCtl = segmented(bar3, { name: "tk-latents", label: t("tk.latents"), value: s().latents,
    options: choices("latents").map((m, i) => ({ value: m, label: latentLabels()[i] })),
    onChange: (v) => change({ latents: Number(v) }) });

  // ---- panels --------------------------------------------------------------------------------
  const panels = html("div", { class: "panels" }, root);
  const left = html("div", { class: "panel camera-panel" }, panels);
  const camTitle = html("p", { class: "panel-title" }, left);
  const camSvg = el("svg", { class: "camera-svg", viewBox: "0 0 336 336" }, left);
  let card = null;
  const image = patchImage(camSvg, { x: 0, y: 0, size: 336, onPick: (p, source) => {
    card?.show(p);
    if (source === "keyboard") ctx.announce(card.text());
    camSvg.setAttribute("aria-label", t("tk.image.aria", { row: p.row + 1, col: p.col + 1, n: count(p.numbers) }));
  } });
  card = patchCard(left, image, t);
  const hint = html("p", { class: "hint", text: t("tk.hint") }, left);
  let frame = null; // the reader's own frame (POST /api/tokens/frame's answer), or null
  const picker = framePicker(left, { t, dropOn: camSvg, limits: ctx.constants?.frame, onFrame: (answer) => {
    frame = answer;
    root.dataset.frame = answer ? "own" : "synthetic";
    if (data) draw(data);
  } });
  const right = html("div", { class: "panel flop-panel" }, panels);
  const chartTitle = html("p", { class: "panel-title" }, right);
  const chart = flopChart(right, t);
  const timing = layerTiming(right, { t, si });

  const KEYS = ["tokens", "linear", "attention", "share", "crossover", "model", "kv", "latent"];
  const rows = () => KEYS.map((key) => ({ key, label: t(`tk.ro.${key}`), hl: key === "attention" ? "n2" : undefined }));
  const readouts = readoutList(root, rows(), { className: "tokens-readouts" });
  const dd = (key) => readouts.el.querySelector(`[data-readout="${key}"]`);
  const shareBar = html("span", { class: "share-bar", "aria-hidden": "true" });
  const shareFill = hl(html("span", { class: "share-fill" }, shareBar), "n2");

  // ---- reacting to the reader ----------------------------------------------------------------
  function change(partial) {
    speak.arm();
    ctx.set(partial);
    syncControls();
  }

  function syncControls() {
    camerasCtl.set(s().cameras);
    patchCtl.set(s().patch);
    framesCtl.set(s().frames);
    actionsCtl.set(s().actions);
    modelCtl.set(s().model);
    kvCtl.set(s().kv);
    kvHeadsCtl.set(s().kv_heads);
    kvHeadsCtl.el.hidden = s().kv !== "gqa";
    latentsCtl.set(s().latents);
  }

  function value(key, text, v) {
    readouts.set(key, text);
    dd(key).setAttribute("data-value", String(v));
  }

  function draw(d) {
    const size = d.model_size;
    const tok = d.tokens;
    const grid = frame?.grids.find((g) => g.size === d.patches.size) ?? d.patches;
    image.update(frame ? frame.image : d.image, grid);
    camTitle.textContent = t(frame ? "tk.image.title.own" : "tk.image.title", { p: grid.size, rows: grid.rows,
      cols: grid.cols, n: count(grid.count) });
    chartTitle.textContent = t("tk.chart.title", { L: size.n_layers, d: count(size.d) });
    chart.draw(d);
    value("tokens", t("tk.ro.tokens.value", { n: count(d.n), image: count(tok.image), proprio: count(tok.proprio),
      actions: count(tok.actions) }), d.n);
    value("linear", si(d.layer_flops.linear, "FLOP"), d.layer_flops.linear);
    value("attention", si(d.layer_flops.attention, "FLOP"), d.layer_flops.attention);
    value("share", `${num(100 * d.attention_share, 3)} %`, d.attention_share);
    shareFill.style.width = `${(100 * d.attention_share).toFixed(1)}%`;
    dd("share").append(shareBar);
    value("crossover", t("tk.ro.crossover.value", { n: count(d.crossover_n), d: count(size.d) }), d.crossover_n);
    value("model", t("tk.ro.model.value", { flops: si(d.model_flops.total, "FLOP"), L: size.n_layers }),
      d.model_flops.total);
    const kv = d.kv;
    value("kv", t(`tk.ro.kv.${kv.sharing}`, { bytes: si(d.kv_cache_bytes.total, "B"), h: kv.kv_heads, H: kv.n_heads,
      g: kv.queries_per_kv_head, frac: num(kv.fraction, 3), mha: si(kv.bytes_mha, "B") }), d.kv_cache_bytes.total);
    const lat = d.latent;
    value("latent", lat ? t(lat.crossover_n === null ? "tk.ro.latent.never" : "tk.ro.latent.value", {
      m: count(lat.m), flops: si(lat.layer_flops.attention, "FLOP"), share: num(100 * lat.attention_share, 3),
      ratio: num(lat.attention_vs_full, 3), cross: lat.crossover_n === null ? "" : count(lat.crossover_n) })
      : t("tk.ro.latent.none"), lat ? lat.layer_flops.attention : 0);
    timing.request(d.n, d.settings?.model ?? s().model);
    speak.say(() => t("tk.announce", { n: count(d.n), share: num(100 * d.attention_share, 3),
      kv: si(d.kv_cache_bytes.total, "B") }));
  }

  function relabel() {
    camerasCtl.relabel(t("tk.cameras"));
    patchCtl.relabel(t("tk.patch"));
    framesCtl.relabel(t("tk.frames"));
    actionsCtl.relabel(t("tk.actions"));
    modelCtl.relabel(t("tk.model"), spec("model").choices.map((m) => t(`tk.model.${m}`)));
    kvCtl.relabel(t("tk.kv"), spec("kv").choices.map((k) => t(`tk.kv.${k}`)));
    kvHeadsCtl.relabel(t("tk.kvheads"));
    latentsCtl.relabel(t("tk.latents"), latentLabels());
    picker.relabel();
    timing.relabel();
    hint.textContent = t("tk.hint");
    readouts.relabel(rows());
    image.group.setAttribute("aria-label", t("tk.image.keys"));
    card.relabel();
    if (data) draw(data);
  }

  syncControls();
  image.group.setAttribute("aria-label", t("tk.image.keys"));

  return {
    update(d) {
      data = d;
      draw(d);
    },
    relabel,
    destroy() {
      speak.cancel();
      timing.destroy();
    },
  };
}
