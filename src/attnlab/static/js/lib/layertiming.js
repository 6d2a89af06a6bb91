// FIG 7: one attention layer timed on the server at (near) the figure's n, beside its FLOP count
// (GET /api/tokens/timing, attnlab.nn.timing). The server rounds n down to a grid of its own and
// measures each point once; this module only asks, after the reader has settled, and shows the
// answer with the machine that measured it.

import { getJSON, queryString } from "./api.js";
import { count, num } from "./format.js";
import { latestOnly } from "./latest.js";
import { readoutList } from "./readouts.js";
import { html } from "./svg.js";

const SETTLE_MS = 400;
const KEYS = ["timed", "plain", "tiled", "machine"];

/** Seconds as ms or s: 0.00061 → "0.61 ms". */
function duration(s) {
  return s < 1 ? `${num(1000 * s, 3)} ms` : `${num(s, 3)} s`;
}

/** Build the timing block in `parent`; t translates; si(x, unit) formats FLOPs; get(url) answers
 * the request (the page's server; a notebook's kernel). Returns {request(n, model), relabel(),
 * destroy()}. */
export function layerTiming(parent, { t, si, get = getJSON }) {
  const box = html("div", { class: "layer-timing" }, parent);
  const title = html("p", { class: "panel-title" }, box);
  const rows = () => KEYS.map((key) => ({ key, label: t(`tk.time.${key}`) }));
  const list = readoutList(box, rows(), { className: "timing-readouts" });
  const note = html("p", { class: "hint" }, box);
  let wanted = null;
  let last = null;
  let timer = null;
  let live = true; // false once destroyed: a late answer is not shown

  function show() {
    title.textContent = t("tk.time.title");
    if (!last) return;
    note.textContent = t("tk.time.note", { runs: last.runs });
    const a = last;
    list.set("timed", t("tk.time.timed.value", { n: count(a.n_timed), asked: count(a.n), flops: si(a.flops, "FLOP"),
      max: count(a.max_timed_n) }), a.n_timed);
    list.set("plain", t("tk.time.rate", { time: duration(a.plain.seconds), rate: num(a.plain.gflops, 3),
      pct: num(100 * a.plain.of_matmul, 2), mm: num(a.matmul.gflops, 3) }), a.plain.gflops);
    list.set("tiled", a.tiled ? t("tk.time.rate", { time: duration(a.tiled.seconds), rate: num(a.tiled.gflops, 3),
      pct: num(100 * a.tiled.of_matmul, 2), mm: num(a.matmul.gflops, 3) }) : t("tk.time.tiled.none"),
    a.tiled ? a.tiled.gflops : "none");
    const m = a.machine;
    list.set("machine", t("tk.time.machine.value", { cpu: m.cpu, cores: m.cores, usable: m.usable_cores,
      numpy: m.numpy, blas: m.blas }), m.cores);
  }

  // a timing takes the server a while: one request out at a time, the newest n waiting (./latest.js)
  const timing = latestOnly((asked) => get(`/api/tokens/timing?${queryString(asked)}`), {
    key: queryString,
    patienceMs: 60_000, // the server times one point at a time: a class may queue a few
    onAnswer: (answer) => {
      if (!live) return;
      last = answer;
      box.dataset.nTimed = String(answer.n_timed);
      show();
    },
    onError: (error) => {
      if (live) list.set("plain", t("tk.time.error", { message: error.message || String(error) }));
    },
    onBusy: (busy) => box.setAttribute("aria-busy", String(busy)),
  });

  return {
    request(n, model) {
      if (wanted && wanted.n === n && wanted.model === model) return;
      wanted = { n, model };
      clearTimeout(timer);
      timer = setTimeout(() => timing.request(wanted), SETTLE_MS);
    },
    relabel() {
      list.relabel(rows());
      show();
    },
    destroy() {
      clearTimeout(timer);
      live = false;
    },
  };
}
