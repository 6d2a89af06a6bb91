// FIG 2 readouts under the panels: the step, the four current test errors, each head's mean
// weight on the target (fetch) or on A and on B (vector), and the F2.8 gradient check that the
// "training" figure computes when the page loads (max relative error over every parameter of
// the 2-head vector model). Each value element carries data-key / data-value for tests.

import { count, fixed, num, weight } from "./format.js";
import { html } from "./svg.js";

const ROWS = [
  ["step", "ro.step"],
  ["attn", "ro.attn"],
  ["mlp", "ro.mlp"],
  ["first", "ro.first"],
  ["weights", "ro.weights"],
  ["params", "ro.params"],
  ["gradcheck", "ro.gradcheck"],
];

/** "head 1 .97 · head 2 .02" (fetch) or "head 1 A .98 B .01 · …" (vector). */
function headWeights(hw, t) {
  if (!Array.isArray(hw) || !hw.length) return "—";
  return hw.map((w, h) => {
    const name = t("ro.head", { h: h + 1 });
    if (Array.isArray(w)) return `${name}: A ${weight(w[0])}, B ${weight(w[1])}`;
    return `${name}: ${weight(w)}`;
  }).join(" · ");
}

/** Build the readout list in `parent`; thresholds: the errors (cm) whose first crossing is named. */
export function trainingReadouts(parent, t, thresholds) {
  const dl = html("dl", { class: "readouts" }, parent);
  const cells = {};
  for (const [key, label] of ROWS) {
    const dt = html("dt", { text: t(label) }, dl);
    const dd = html("dd", { "data-key": key }, dl);
    cells[key] = { dt, dd, label };
  }
  let gradcheck = null;
  let counts = null;

  function value(key, text, attrsMap = {}) {
    const dd = cells[key].dd;
    dd.textContent = text;
    for (const [name, v] of Object.entries(attrsMap)) {
      if (v === undefined || v === null) dd.removeAttribute(name);
      else dd.setAttribute(name, String(v));
    }
  }

  function showCounts() {
    if (!counts) {
      value("params", "—");
      return;
    }
    value("params", t("ro.params.value", { attn: count(counts.attn), heads: counts.heads, mlp: count(counts.mlp) }),
      { "data-value": counts.attn });
  }

  function showGradcheck() {
    if (!gradcheck) {
      value("gradcheck", "—");
      return;
    }
    const { rel, n } = gradcheck;
    value("gradcheck", t("ro.gradcheck.value", { err: num(rel, 2), n: count(n) }), { "data-value": rel });
  }

  return {
    /**
     * Redraw from the latest history record (null before the first one); firstBelow(cm) gives
     * the first record under cm (attention, 2–5 blocks) so the lesson's thresholds can be read.
     */
    progress(step, record, task, firstBelow = () => null) {
      value("step", count(step), { "data-value": step });
      const cm = (k) => (record && Number.isFinite(record[k]) ? `${fixed(record[k], 1)} cm` : "—");
      value("attn", t("ro.err", { a: cm("attn_err_cm"), b: cm("attn_err6_cm") }),
        { "data-value": record?.attn_err_cm, "data-value6": record?.attn_err6_cm });
      value("mlp", t("ro.err", { a: cm("mlp_err_cm"), b: cm("mlp_err6_cm") }),
        { "data-value": record?.mlp_err_cm, "data-value6": record?.mlp_err6_cm });
      const hits = thresholds.map((cm) => [cm, firstBelow(cm)]).filter(([, r]) => r);
      const at2 = firstBelow(2);
      // the MLP's error is quoted at the 2 cm crossing, so it follows that item (F2.2)
      value("first", hits.length
        ? hits.map(([cm, r]) => t("ro.first.item", { cm, step: count(r.step) })
          + (cm === 2 ? t("ro.first.mlp", { mlp: fixed(r.mlp_err_cm, 1) }) : "")).join(" · ")
        : "—", { "data-step2": at2?.step });
      cells.weights.dt.textContent = t(task === "vector" ? "ro.weights.vector" : "ro.weights");
      value("weights", headWeights(record?.head_weight, t));
    },
    /**
     * The "training" figure's answer (attnlab.figures.training): gradcheck {max_rel_error,
     * n_params} and the models' sizes params.{attention, mlp}.total.
     */
    figureData(data) {
      gradcheck = { rel: data.gradcheck.max_rel_error, n: data.gradcheck.n_params };
      showGradcheck();
      counts = { attn: data.params.attention.total, mlp: data.params.mlp.total, heads: data.settings.heads };
      showCounts();
    },
    relabel() {
      for (const { dt, label } of Object.values(cells)) dt.textContent = t(label);
      showGradcheck();
      showCounts();
    },
  };
}
