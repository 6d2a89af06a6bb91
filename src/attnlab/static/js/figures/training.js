// FIG 2 (§3, hands-on): live training of the cross-attention "fetch" model against the slot MLP.
// Left: the display scene (lib/trainscene.js). Right: test error over steps and each head's
// weight over steps (lib/headcurves.js). Under them, inside the model: the colour-match table
// (lib/colourmatch.js) and the strip of seeds that learn or fail (lib/seedstrip.js). The server trains
// (WebSocket /ws/train, web contract); this view only sends what the reader does and draws what
// comes back. The run is ONE object (lib/trainrun.js) that only the server's messages and the
// reader's resets change; the views below are drawn from it and from the figure's settings.
// Ranges, the heads offered, the scene's defaults and the Step size come from the figure's
// description (attnlab.figures.training: PARAMS, VIEW_PARAMS, CONSTANTS), none is written here.

import { expected as claimsExpected, onClaimValues } from "../lib/claimvalues.js";
import { colourMatch } from "../lib/colourmatch.js";
import { button, numberInput, segmented } from "../lib/controls.js";
import { errorCurves } from "../lib/errorcurves.js";
import { count } from "../lib/format.js";
import { headCurves } from "../lib/headcurves.js";
import { seedStrip } from "../lib/seedstrip.js";
import { html } from "../lib/svg.js";
import { linkedSteps, STEP_PARAM } from "../lib/trainlink.js";
import { trainingReadouts } from "../lib/trainreadouts.js";
import { applyMessage, applyStatus, clearRun, createRun, recordHistory, settle, statusState } from "../lib/trainrun.js";
import { displayScene, sceneFrom } from "../lib/trainscene.js";
import { trainSocket } from "../lib/trainsocket.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("training"); // queue, step limit, reconnecting

const RECONNECTED_MS = 6000; // how long "reconnected" stays under the figure

// The page's own settings (the server's come with the figure's description).
export const VIEW_PARAMS = [
  STEP_PARAM, // the step trained to, so that a link retrains to it (lib/trainlink.js)
];

/** The paces the page may ask for, in steps/s (0: as fast as it goes): the server's view setting. */
const paces = (ctx) => ctx.params.find((p) => p.name === "pace").choices;

/** Task, heads, seed, pace and Train/Pause, Step, Reset; `on` holds what each one does. */
function toolbar(root, { ctx, t, on }) {
  const s = ctx.settings;
  const spec = (name) => ctx.params.find((p) => p.name === name);
  const bar = html("div", { class: "toolbar" }, root);
  const task = segmented(bar, { name: "tr-task", label: t("tr.task"), value: s.task,
    options: spec("task").choices.map((v) => ({ value: v, label: t(`tr.${v}`) })), onChange: (v) => on.configure({ task: v }) });
  const heads = segmented(bar, { name: "tr-heads", label: t("tr.heads"), value: s.heads,
    options: spec("heads").choices.map((h) => ({ value: h, label: String(h) })), onChange: (v) => on.configure({ heads: Number(v) }) });
  let last = null; // the run as last shown, to redraw the buttons when the seed field changes
  const seed = numberInput(bar, { name: "tr-seed", label: t("tr.seed"), value: s.seed, min: spec("seed").min,
    max: spec("seed").max, onChange: (v) => on.configure({ seed: v }), why: (v) => t("tr.seed.invalid", v),
    onValidity: (ok) => {
      if (!ok) on.hold(); // never go on training a seed the field no longer shows
      if (last) view.show(last);
    } });
  const pace = segmented(bar, { name: "tr-pace", label: t("tr.pace"), value: s.pace,
    options: paces(ctx).map((p) => ({ value: p, label: t(`tr.pace.${p}`) })), onChange: (v) => on.pace(Number(v)) });
  const actions = html("div", { class: "actions" }, bar);
  const stepN = ctx.constants.eval_every; // one evaluation interval of the trainer
  const train = button(actions, { label: t("tr.train"), className: "primary", onClick: on.train });
  train.dataset.role = "train";
  const step = button(actions, { label: t("tr.step", { n: stepN }), onClick: () => on.step(stepN) });
  const reset = button(actions, { label: t("tr.reset"), onClick: on.reset });
  const view = {
    /** The controls as the settings stand (a seed of the strip sets task, heads and seed). */
    sync() {
      const now = ctx.settings;
      task.set(now.task);
      heads.set(now.heads);
      seed.set(now.seed);
    },
    /** The buttons as the run stands: Train / Pause / waiting, Step off while busy. */
    show(run) {
      last = run;
      train.textContent = run.queued ? t("tr.queued.button") : run.running ? t("tr.pause") : t("tr.train");
      train.setAttribute("aria-pressed", String(run.running || Boolean(run.queued)));
      step.disabled = run.running || Boolean(run.queued) || !seed.valid();
      train.disabled = !seed.valid() && !run.running && !run.queued; // Pause stays possible
    },
    relabel() {
      task.relabel(t("tr.task"), spec("task").choices.map((v) => t(`tr.${v}`)));
      heads.relabel(t("tr.heads"));
      pace.relabel(t("tr.pace"), paces(ctx).map((p) => t(`tr.pace.${p}`)));
      seed.relabel(t("tr.seed"));
      step.textContent = t("tr.step", { n: stepN });
      reset.textContent = t("tr.reset");
    },
  };
  return view;
}

/** The line under the figure: what is happening (queued, limit, reconnecting, an error). */
function statusLine(root, { ctx, run }) {
  const node = html("div", { class: "status", role: "status" }, root);
  return {
    node,
    set(text, { action = null, kind = "is-error" } = {}) {
      node.replaceChildren(document.createTextNode(text));
      node.classList.remove("is-error", "is-waiting");
      if (text) node.classList.add(kind);
      node.dataset.state = statusState(run, text);
      if (action) button(node, { label: action.label, onClick: action.onClick });
      if (text) ctx.announce(text);
    },
  };
}

export function mount(root, ctx) {
  const fig = { ctx, t: viewTranslator(STRINGS, ctx), run: createRun(), root, socket: null, link: null };
  fig.send = (msg) => fig.socket.send(msg);
  fig.actions = readerActions(fig);
  root.classList.add("fig-training");
  fig.bar = toolbar(root, { ctx, t: fig.t, on: fig.actions });
  const panels = html("div", { class: "panels" }, root);
  fig.scene = displayScene(panels, { ctx, t: fig.t, prediction: () => fig.run.prediction, onScene: fig.actions.scene });
  const curvesPanel = html("div", { class: "panel curves-panel" }, panels);
  fig.curves = errorCurves(curvesPanel, fig.t, { onDraw: (records, steps) => fig.heads?.draw(records, steps) });
  fig.heads = headCurves(curvesPanel, fig.t);
  fig.readouts = trainingReadouts(root, fig.t, ctx.constants.thresholds_cm);
  fig.status = statusLine(root, { ctx, run: fig.run });
  const inside = html("div", { class: "inside" }, root);
  fig.table = colourMatch(inside, { t: fig.t, names: ctx.constants.colours });
  fig.strip = seedStrip(inside, { t: fig.t, defaultSeed: ctx.params.find((p) => p.name === "seed").default,
    expected: claimsExpected(), onLoad: (setting) => fig.actions.configure(setting) });
  const stopValues = onClaimValues((values) => fig.strip.values(values));
  fig.views = runViews(fig);
  fig.socket = trainSocket({ onMessage: (msg) => {
    fig.link.before(msg);
    onServerMessage(fig, msg);
    fig.link.after(fig.run.step);
  }, onStatus: (state, detail) => onSocketStatus(fig, state, detail), onOpen: fig.actions.greet });
  fig.link = linkedSteps({ ctx, send: fig.send }); // a link's step, retrained

  fig.scene.draw();
  fig.bar.show(fig.run);
  fig.views.progress();
  fig.views.inside();
  fig.socket.connect();
  return {
    update: (data) => fig.readouts.figureData(data),
    relabel: fig.views.relabel,
    destroy() {
      stopValues();
      fig.socket.close();
    },
  };
}

/** fn at most once a frame (a drag moves a block at every pointer event). */
function oncePerFrame(fn) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      fn();
    });
  };
}

/** What the reader's controls do: messages to the server, then the views redrawn. */
function readerActions(fig) {
  const { ctx, run, send } = fig;
  const s = () => ctx.settings;
  const config = () => ({ type: "config", task: s().task, heads: Number(s().heads), seed: s().seed });
  const sendScene = oncePerFrame(() => send(fig.scene.message()));
  const start = () => send({ type: "start", pace: Number(s().pace) });
  return {
    /** On every (re)connect: this view's config and scene start the server's session. */
    greet() {
      send(config());
      sendScene();
      fig.link.begin(); // a link's trained step (again after a reconnect: the new session is at 0)
    },
    configure(partial) {
      ctx.set(partial);
      fig.bar.sync();
      const wasRunning = run.running;
      fig.views.clear();
      send(config());
      sendScene();
      if (wasRunning) start();
      fig.scene.draw();
    },
    pace(pace) {
      ctx.set({ pace });
      if (run.running) start(); // new pace, same run
    },
    train: () => (run.running || run.queued ? send({ type: "pause" }) : start()), // while waiting: leave the line
    hold() {
      if (run.running || run.queued) send({ type: "pause" });
    },
    step: (n) => send({ type: "step", n }),
    reset() {
      send({ type: "reset" });
      run.limited = false;
      fig.status.set("");
      fig.views.clear();
    },
    /** The display scene's settings changed; `moved`: a block is being dragged. */
    scene(partial, { moved = false } = {}) {
      ctx.set(partial);
      if (moved) fig.scene.drawAnswers();
      else {
        fig.scene.draw();
        fig.views.inside(); // the instruction's rows (its scores come with the server's reply)
      }
      sendScene();
      if (!moved) fig.views.emit([]);
    },
  };
}

/** The views as functions of the run: each redraws a part of the figure from `fig.run`. */
function runViews(fig) {
  const { ctx, t, run, root, status, curves, readouts } = fig;
  const task = () => ctx.settings.task;
  return {
    progress: () => readouts.progress(run.step, curves.latest(), task(), curves.firstBelow),
    showRunning() {
      fig.bar.show(run);
      root.classList.toggle("is-running", run.running);
      // what the class's teacher sees of this page (lib/classlink.js): training, or in line
      root.dispatchEvent(new CustomEvent("attnlab:train-state", { bubbles: true,
        detail: { running: run.running, queued: Boolean(run.queued) } }));
    },
    showQueued: () => run.queued && status.set(t("tr.queued", run.queued), { kind: "is-waiting" }),
    showLimit: () => status.set(t("tr.limit", { step: count(run.step) }),
      { action: { label: t("tr.startover"), onClick: fig.actions.reset } }),
    clear() {
      if (clearRun(run)) status.set("");
      curves.clear();
      readouts.progress(0, null, task(), curves.firstBelow);
      fig.scene.drawAnswers();
      fig.views.inside();
    },
    /** The colour-match table (the run's latest readout), the heads' lines and the strip. */
    inside() {
      const s = ctx.settings;
      const heads = Number(s.heads);
      const sc = sceneFrom(s, ctx.constants.slot_colours); // the instruction the scene shows
      const under = run.colourMatchScene; // the instruction the server's scores are under
      const current = !under || (under.target === sc.target && (s.task !== "vector" || under.second === sc.second));
      const cm = current || !run.colourMatch ? run.colourMatch : { ...run.colourMatch, scores: null }; // until it replies
      fig.table.set(cm, { task: s.task, heads, target: sc.target, second: sc.second });
      fig.heads.show(s.task, heads);
      fig.strip.show(s);
    },
    /**
     * The lesson's try-its read FIG 2 like any figure ("attnlab:figure-data", see lib/tries.js),
     * with data {history: records so far, colour_match: the latest readout}. One event per new
     * record: a frame may carry several evaluations, and a condition such as "attention below
     * 2 cm while the MLP is above 20 cm" holds at one of them, not necessarily at the frame's
     * last. The readout is the frame's (the table is sent once a frame, after its records).
     */
    emit(records) {
      const send = (history) => root.dispatchEvent(new CustomEvent("attnlab:figure-data", { bubbles: true,
        detail: { name: "training", settings: { ...ctx.settings }, data: { history, colour_match: run.colourMatch },
          acted: !fig.link?.replaying } }));
      if (!records.length) send(run.history.slice());
      recordHistory(run, records).forEach(send);
    },
    /** The attention model's error under the task's goal: said once a run. */
    announceMilestones() {
      const r = curves.latest();
      const goal = task() === "vector" ? 3 : 2;
      if (!run.crossed && r && r.attn_err_cm < goal) {
        run.crossed = true;
        ctx.announce(t("tr.crossed", { cm: goal, step: r.step }));
      }
    },
    relabel() {
      fig.bar.relabel();
      fig.views.showRunning();
      curves.relabel(t);
      readouts.relabel();
      fig.views.progress();
      fig.scene.relabel();
      fig.heads.relabel();
      fig.table.relabel();
      fig.strip.relabel();
      if (run.queued) fig.views.showQueued();
      else if (run.limited) fig.views.showLimit();
    },
  };
}

/** One message from the server: the run changes (lib/trainrun.js), then the views it touched. */
function onServerMessage(fig, msg) {
  const { ctx, t, run, views, status, curves } = fig;
  const change = applyMessage(run, msg);
  if (msg.type === "state") {
    if (change.unqueued) status.set("");
    if (change.restarted) views.clear();
    views.showRunning();
  } else if (msg.type === "progress") {
    if (change.fresh) curves.clear(); // a whole history replaces whatever run was drawn
    curves.add(change.records);
    views.emit(change.records);
    fig.scene.drawAnswers();
    views.inside();
    views.progress();
    views.announceMilestones();
  } else if (msg.type === "queued") {
    views.showRunning();
    views.showQueued();
  } else if (msg.type === "done") {
    views.showRunning();
    if (change.done === "step_limit") views.showLimit();
    else ctx.announce(t("tr.done.idle", { step: run.step }));
  } else if (msg.type === "error") {
    status.set(t("tr.error", { message: msg.message }));
  }
}

/** The socket's state (lib/trainsocket.js): reconnecting, back again, or closed for good. */
function onSocketStatus(fig, state, detail) {
  const { t, run, views, status } = fig;
  const { reconnected } = applyStatus(run, state, detail);
  if (reconnected) {
    views.clear();
    const said = t("tr.reconnected");
    status.set(said, { kind: "is-waiting" });
    setTimeout(() => { if (status.node.firstChild?.textContent === said) status.set(""); }, RECONNECTED_MS);
  } else if (state === "open") status.set("");
  if (state === "open") settle(run);
  if (state === "reconnecting") {
    views.showRunning();
    status.set(t("tr.reconnecting", { seconds: Math.round(detail.delayMs / 1000) }));
  }
  if (state === "closed" && !detail.intended) {
    views.showRunning();
    if (!status.node.textContent) status.set(t("tr.disconnected"), { action: { label: t("tr.reconnect"), onClick: () => {
      status.set("");
      views.clear();
      fig.socket.connect();
    } } });
  }
}
