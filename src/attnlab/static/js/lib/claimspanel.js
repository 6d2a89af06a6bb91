// "Check the numbers": every claim of the lesson (shared/CLAIMS.md) as the server measured it,
// in three columns named for what they hold — what the textbook states (its own numbers), what
// this page measures (the engine's values, as number slots in the text's own formats, so the
// panel and the text always show the same numbers) and the condition checked — and a button that
// measures the fast ones again, live. The same measurements fill the number slots of the text,
// so the panel polls GET /api/claims/measured while a run is going on and hands every snapshot's
// values on. Also here: the reader's own progress (try-its, exercises) and the button that resets it.

import { getJSON } from "./api.js";
import { escapeHTML } from "./format.js";
import { slotsHTML } from "./lessonvalues.js";
import { renderMath } from "./math.js";
import { hasSeedPlot, seedPlot } from "./seedplot.js";

const POLL_MS = 700; // while a run goes on (slower than Playwright's 500 ms "network idle")
const esc = (s) => escapeHTML(s ?? "");

/** "F2.6" → "F2", "M1" → "M", "E3" → "E": the group a claim is shown in. */
const groupOf = (id) => (id.startsWith("F") ? id.split(".")[0] : id[0]);

async function errorText(response) {
  try {
    const body = await response.json();
    return typeof body.detail === "string" ? body.detail : `${response.status}`;
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

/**
 * The panel in `container`. onValues(values) receives {claim: {name: value}} after every
 * snapshot; counts() → {tries: [done, total], exercises: [done, total]}; progress: lib/progress.js.
 */
export function createClaimsPanel(container, { t, announce, onValues, counts, progress }) {
  let snapshot = null;
  let polling = null;
  let fresh = new Set(); // claims re-measured by the reader's own run (flash once)
  let message = ""; // a refusal (409) or a network error, shown in the status line
  let myRun = null; // the run this page asked for
  let shownClaims = null; // the claims' HTML now in the page (redrawn only when it changes)
  const claims = new Map(); // id → the latest result, in the server's order
  const values = {}; // claim → {name: value}, for the text's number slots
  let seq = 0; // the server's count of results we have seen

  function statusText() {
    if (message) return message;
    const s = snapshot?.state;
    if (!s) return t("check.waiting");
    if (s.error) return t("check.error", { message: s.error });
    if (snapshot.running) {
      const key = s.phase === "sweeps" ? "check.running.sweeps" : "check.running";
      return t(key, { id: s.current ?? "…", done: s.done + 1, total: s.total });
    }
    const list = snapshot.claims;
    const ok = list.filter((c) => c.ok).length;
    const key = s.kind === "rerun" ? "check.done.rerun" : "check.done.start";
    return t(key, { ok, total: list.length, seconds: (s.seconds ?? 0).toFixed(1) });
  }

  /** A catalogue string with its {{claim.name:fmt}} placeholders as the text's number slots. */
  const withSlots = (text) => slotsHTML(esc(text), values);

  /** The catalogue's string for `key`, or null when it has none. */
  const own = (key) => (t(key) === key ? null : t(key));

  /** How we test it: the catalogue's sentence (the sweep's when the result is a sweep's: the
   * key attnlab.claims.text.condition_key names), its thresholds the engine's values; the
   * engine's English sentence where the catalogue has none (a claim still being added). */
  function condition(c) {
    const sweep = c.values && "n_seeds" in c.values ? own(`claimcondition.${c.id}.sweep`) : null;
    const template = sweep ?? (c.values && "n_seeds" in c.values ? null : own(`claimcondition.${c.id}`));
    return template === null ? `<p lang="en">${esc(c.condition)}</p>` : `<p data-col="condition">${withSlots(template)}</p>`;
  }

  function row(c) {
    const title = own(`claim.${c.id}`) ?? c.statement;
    // The textbook's words, kept in both catalogues (the English one is tested to match the
    // registry's); what this page measures and the condition: the engine's values (thresholds
    // included) in the catalogue's sentences.
    const said = own(`claimlesson.${c.id}`) ?? c.lesson;
    const template = own(`claimmeasured.${c.id}`);
    const measured = template === null ? `<dd data-col="measured" lang="en">${esc(c.measured)}</dd>`
      : `<dd data-col="measured">${withSlots(template)}</dd>`;
    const nums = c.error ? `<p class="claim-error" lang="en">${esc(c.error)}</p>`
      : `<dl class="claim-nums"><dt>${esc(t("check.lesson"))}</dt><dd data-col="textbook">${esc(said)}</dd>`
        + `<dt>${esc(t("check.measured"))}</dt>${measured}</dl>`
        + `<details class="claim-test"><summary>${esc(t("check.test"))}</summary>${condition(c)}</details>`
        + (hasSeedPlot(c.id, values[c.id]) ? `<figure class="seed-plot-box" data-claim="${esc(c.id)}">`
          + `<figcaption>${esc(t(`seedplot.${c.id}.caption`, { n: values[c.id].per_seed.seed.length,
            seed: values[c.id].seed }))}</figcaption></figure>` : "");
    const mark = c.ok ? "✓" : "✗";
    const seconds = typeof c.seconds === "number" ? `${c.seconds.toFixed(c.seconds < 0.1 ? 3 : 2)} s` : "";
    return `<li class="claim ${c.ok ? "ok" : "fail"}${fresh.has(c.id) ? " fresh" : ""}" data-claim="${esc(c.id)}" data-ok="${c.ok}">`
      + `<span class="claim-mark" aria-hidden="true">${mark}</span>`
      + `<div class="claim-main"><p class="claim-title"><span class="claim-id">${esc(c.id)}</span> ${esc(title)}`
      + ` <span class="sr-only">${esc(t(c.ok ? "check.holds" : "check.fails"))}</span></p>${nums}</div>`
      + `<span class="claim-time" title="${esc(t("check.time"))}">${seconds}</span></li>`;
  }

  function claimsHTML() {
    const groups = new Map();
    for (const c of snapshot?.claims ?? []) {
      const g = groupOf(c.id);
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(c);
    }
    return [...groups].map(([g, list]) => `<section class="claims-group" data-group="${esc(g)}">`
      + `<h3>${esc(t(`check.group.${g}`))}</h3><ul class="claims-list">${list.map(row).join("")}</ul></section>`).join("");
  }

  function progressHTML() {
    const { tries, exercises } = counts();
    return `<p>${esc(t("progress.summary", { tries: tries[0], triesTotal: tries[1], ex: exercises[0], exTotal: exercises[1] }))}</p>`
      + `<button type="button" class="btn" data-role="reset-progress">${esc(t("progress.reset"))}</button>`;
  }

  /** The panel's frame, built once per language; update() fills in what changes. */
  function render() {
    container.innerHTML = `<p class="check-intro">${esc(t("check.intro"))}</p>`
      + `<p class="check-note">${esc(t("check.englishOnly"))}</p>`
      + `<div class="check-bar"><button type="button" class="btn primary" data-role="rerun"></button>`
      + `<span class="check-status" role="status"></span><progress class="check-progress" hidden></progress></div>`
      + `<div class="claims"></div><div class="progress-box" aria-live="polite">${progressHTML()}</div>`;
    shownClaims = null;
    update();
  }

  function update() {
    const running = Boolean(snapshot?.running);
    const button = container.querySelector("button[data-role=rerun]");
    if (!button) return;
    button.disabled = running;
    button.textContent = t(running ? "check.rerunning" : "check.rerun");
    container.querySelector(".check-status").textContent = statusText();
    const bar = container.querySelector(".check-progress");
    bar.hidden = !running;
    bar.max = snapshot?.state?.total || 1;
    bar.value = Math.min(snapshot?.state?.done ?? 0, bar.max);
    const html = claimsHTML();
    if (html !== shownClaims) {
      const list = container.querySelector(".claims");
      list.innerHTML = shownClaims = html;
      renderMath(list); // d_k ≥ 256, q_m·k_n, α_i typeset as in the text
      for (const box of list.querySelectorAll(".seed-plot-box")) {
        box.prepend(seedPlot(box.dataset.claim, values[box.dataset.claim], t));
      }
    }
  }

  function renderProgress() {
    const box = container.querySelector(".progress-box");
    if (box) box.innerHTML = progressHTML();
  }

  /** Merge an answer of /api/claims/measured (only what changed after `seq`) into what we have. */
  function merge(answer) {
    for (const c of answer.claims) claims.set(c.id, c);
    Object.assign(values, answer.values);
    seq = answer.seq;
    snapshot = { ...answer, claims: [...claims.values()], values };
  }

  async function poll() {
    try {
      merge(await getJSON(`/api/claims/measured?since=${seq}`));
      message = "";
    } catch (error) {
      message = t("check.unreachable", { message: error.message || String(error) });
    }
    onValues(values);
    clearTimeout(polling);
    polling = snapshot?.running ? setTimeout(poll, POLL_MS) : null;
    const state = snapshot?.state;
    if (!snapshot?.running && state && state.run === myRun) {
      myRun = null; // the reader's own run has ended: show which rows are fresh, say so
      fresh = new Set(snapshot.claims.map((c) => c.id));
      update();
      announce(statusText());
      return;
    }
    update();
  }

  async function rerun() {
    message = "";
    let response;
    try {
      // The server takes a POST only as JSON from its own page (attnlab.web.guard).
      response = await fetch("/api/claims/rerun", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
      });
    } catch (error) {
      response = { ok: false, status: 0, statusText: error.message, json: async () => ({}) };
    }
    if (!response.ok) {
      message = await errorText(response); // 409: a run is going on
      update();
      announce(message);
      return;
    }
    fresh = new Set();
    merge(await response.json());
    myRun = snapshot.state?.run ?? null;
    update();
    announce(t("check.started"));
    clearTimeout(polling);
    polling = setTimeout(poll, POLL_MS);
  }

  container.addEventListener("click", (event) => {
    const role = event.target.closest?.("button[data-role]")?.dataset.role;
    if (role === "rerun") rerun();
    if (role === "reset-progress") {
      progress.reset();
      announce(t("progress.wasReset"));
    }
  });
  progress.subscribe(renderProgress);

  return {
    start: poll,
    render,
    renderProgress,
  };
}
