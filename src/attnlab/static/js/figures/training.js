// FIG 2 (§3, hands-on): live training of the cross-attention "fetch" model against the slot MLP.
// Left: the display scene (not used for training; blocks draggable) with both models' answers
// and the attention rings. Right: test error over steps. The server trains (WebSocket /ws/train,
// web contract); this view only sends what the reader does and draws what comes back.

import { objectColour, OBJECT_COLOURS } from "../lib/colours.js";
import { button, numberInput, segmented, select, stepper } from "../lib/controls.js";
import { errorCurves } from "../lib/errorcurves.js";
import { drawPrediction, sceneLegend } from "../lib/predictionmarks.js";
import { count } from "../lib/format.js";
import { html, el } from "../lib/svg.js";
import { tableScene } from "../lib/table.js";
import { trainSocket } from "../lib/trainsocket.js";
import { trainingReadouts } from "../lib/trainreadouts.js";
import { linkedSteps, STEP_PARAM } from "../lib/trainlink.js";
import { loadViewStrings, viewTranslator } from "../lib/viewstrings.js";

const STRINGS = await loadViewStrings("training"); // queue, step limit, reconnecting

// Colour indices (attnlab.tabletop.scenes.COLOURS) of the display scene's six slots, in order:
// the default four blocks are green, blue, red, yellow; orange only appears with six blocks.
const SLOT_COLOURS = [3, 4, 0, 2, 5, 1];
const DEFAULT_POS = [20, 58, 58, 66, 62, 24, 26, 22, 42, 44, 70, 48];
const STEP_N = 25; // the Step button trains one evaluation interval of the trainer

// Settings this view keeps in the URL. task, heads, seed and n_objects are also the "training"
// figure's API parameters (the API's descriptions win when present; these are the fallback when
// the server has no such figure); target, second and pos only shape the display scene.
const PACES = [50, 200, 0]; // steps per second: slow, watchable, unpaced

export const VIEW_PARAMS = [
  { name: "task", kind: "choice", choices: ["fetch", "vector"], default: "fetch" },
  { name: "heads", kind: "choice", choices: [1, 2, 4], default: 1 },
  // The trainer's own default and range (attnlab.tabletop.trainer: DEFAULT_SEED, MAX_SEED).
  { name: "seed", kind: "int", min: 0, max: 1_000_000, default: 9 },
  { name: "n_objects", kind: "int", min: 2, max: 6, default: 4 },
  { name: "target", kind: "int", min: 0, max: 5, default: 3 },
  { name: "second", kind: "int", min: 0, max: 5, default: 4 },
  { name: "pos", kind: "vector", length: 12, min: 0, max: 80, default: DEFAULT_POS },
  // Steps per second asked of the server. The engine trains ~3000 a second: unpaced, the curve
  // is over before the eye can follow it, so the page watches at a pace; 0 = as fast as it goes.
  { name: "pace", kind: "choice", choices: PACES, default: 200 },
  STEP_PARAM, // the step trained to, so that a link retrains to it (lib/trainlink.js)
];

/** The display scene from settings: blocks, valid target/second colours, B's index. */
function sceneFrom(s) {
  const colours = SLOT_COLOURS.slice(0, s.n_objects);
  const positions = colours.map((_, i) => [s.pos[2 * i], s.pos[2 * i + 1]]);
  const target = colours.includes(s.target) ? s.target : colours[0];
  let second = colours.includes(s.second) && s.second !== target ? s.second : colours.find((c) => c !== target);
  if (second === undefined) second = target;
  return { colours, positions, target, second, secondIndex: colours.indexOf(second) };
}

export function mount(root, ctx) {
  const t = viewTranslator(STRINGS, ctx);
  const s = () => ctx.settings;
  const colourName = (c) => t(`colour.${OBJECT_COLOURS[c].name}`);
  const run = { step: 0, running: false, queued: null, limited: false, reconnecting: false, prediction: null, maxSteps: null, crossed: false, sceneQueued: false,
    history: [], stale: false }; // the records of this run so far, for the lesson's try-its (emitData)
  root.classList.add("fig-training");

  // ---- controls: task, heads, seed; Train/Pause, Step, Reset --------------------------------
  const bar = html("div", { class: "toolbar" }, root);
  const taskCtl = segmented(bar, { name: "tr-task", label: t("tr.task"), value: s().task,
    options: [{ value: "fetch", label: t("tr.fetch") }, { value: "vector", label: t("tr.vector") }],
    onChange: (v) => reconfigure({ task: v }) });
  const headsCtl = segmented(bar, { name: "tr-heads", label: t("tr.heads"), value: s().heads,
    options: [1, 2, 4].map((h) => ({ value: h, label: String(h) })), onChange: (v) => reconfigure({ heads: Number(v) }) });
  const seedCtl = numberInput(bar, { name: "tr-seed", label: t("tr.seed"), value: s().seed, min: 0,
    max: 1_000_000, onChange: (v) => reconfigure({ seed: v }) });
  const paceCtl = segmented(bar, { name: "tr-pace", label: t("tr.pace"), value: s().pace,
    options: PACES.map((p) => ({ value: p, label: t(`tr.pace.${p}`) })), onChange: (v) => {
      ctx.set({ pace: Number(v) });
      if (run.running) socket.send({ type: "start", pace: Number(v) }); // new pace, same run
    } });
  const actions = html("div", { class: "actions" }, bar);
  const trainBtn = button(actions, { label: t("tr.train"), className: "primary", onClick: () => {
    const busy = run.running || run.queued; // pressing again while waiting leaves the line
    socket.send(busy ? { type: "pause" } : { type: "start", pace: Number(s().pace) });
  } });
  trainBtn.dataset.role = "train";
  const stepBtn = button(actions, { label: t("tr.step", { n: STEP_N }), onClick: () => socket.send({ type: "step", n: STEP_N }) });
  const resetBtn = button(actions, { label: t("tr.reset"), onClick: startOver });

  // ---- panels: the display scene (left) and the error curves (right) -------------------------
  const panels = html("div", { class: "panels" }, root);
  const left = html("div", { class: "panel scene-panel" }, panels);
  const svg = el("svg", { class: "scene", viewBox: "0 0 420 436", role: "group" }, left);
  const instruction = ctx.hl(el("text", { x: 34, y: 19, class: "instruction" }, svg), "q"); // the query's source
  const scene = tableScene(svg, { x: 34, y: 32, size: 360 });
  const sceneBar = html("div", { class: "toolbar scene-controls" }, left);
  const countCtl = stepper(sceneBar, { name: "tr-objects", label: t("tr.objects"), value: s().n_objects,
    min: 2, max: 6, onChange: (v) => setScene({ n_objects: v }) });
  const targetCtl = select(sceneBar, { name: "tr-target", label: t("tr.target"), options: [], onChange: (v) => setScene({ target: Number(v) }) });
  const secondCtl = select(sceneBar, { name: "tr-second", label: t("tr.second"), options: [], onChange: (v) => setScene({ second: Number(v) }) });
  const legend = sceneLegend(left, t);
  const hint = html("p", { class: "hint" }, left);
  const right = html("div", { class: "panel curves-panel" }, panels);
  const curves = errorCurves(right, t);
  const readouts = trainingReadouts(root, t);
  const status = html("div", { class: "status", role: "status" }, root);

  // ---- the socket ----------------------------------------------------------------------------
  const socket = trainSocket({ onMessage: (msg) => {
    link.before(msg);
    onMessage(msg);
    link.after(run.step);
  }, onStatus, onOpen: greet });
  const link = linkedSteps({ ctx, send: (msg) => socket.send(msg) }); // a link's step, retrained

  /** On every (re)connect: this view's config and scene start the server's session. */
  function greet() {
    const { task, heads, seed } = s();
    socket.send({ type: "config", task, heads: Number(heads), seed });
    sendScene();
    link.begin(); // a link's trained step (again after a reconnect: the new session is at 0)
  }

  function startOver() {
    socket.send({ type: "reset" });
    run.limited = false;
    setStatus("");
    clearRun();
  }

  function sendScene() {
    if (run.sceneQueued) return;
    run.sceneQueued = true;
    requestAnimationFrame(() => {
      run.sceneQueued = false;
      const sc = sceneFrom(s());
      socket.send({ type: "scene", positions: sc.positions.map((p) => p.map((v) => +v.toFixed(2))),
        colours: sc.colours, target: sc.target, second: sc.second });
    });
  }

  function onMessage(msg) {
    if (msg.type === "state") {
      run.running = Boolean(msg.running);
      if (run.queued) {
        run.queued = null;
        setStatus("");
      }
      run.maxSteps = msg.max_steps ?? run.maxSteps;
      if (msg.step === 0 && run.step !== 0) clearRun();
      run.step = msg.step ?? run.step;
      showRunning();
    } else if (msg.type === "progress") {
      const records = msg.records ?? [];
      if (records[0]?.step === 0) {
        // a whole history (on connect, config, reset): it replaces whatever run was drawn
        curves.clear();
        run.crossed = false;
        run.history = [];
        run.stale = false;
      }
      run.step = msg.step ?? run.step;
      curves.add(records);
      emitData(records);
      if (msg.prediction) run.prediction = msg.prediction;
      drawScenePrediction();
      readouts.progress(run.step, curves.latest(), s().task, curves.firstBelow);
      announceMilestones();
    } else if (msg.type === "queued") {
      run.queued = { place: msg.place, capacity: msg.capacity };
      showRunning();
      showQueued();
    } else if (msg.type === "done") {
      run.running = false;
      showRunning();
      if (msg.reason === "step_limit") {
        run.limited = true;
        showLimit();
      } else ctx.announce(t("tr.done.idle", { step: run.step }));
    } else if (msg.type === "error") {
      setStatus(t("tr.error", { message: msg.message ?? msg.code }));
    }
  }

  function showQueued() {
    if (run.queued) setStatus(t("tr.queued", run.queued), { kind: "is-waiting" });
  }

  function showLimit() {
    setStatus(t("tr.limit", { step: count(run.step) }), { action: { label: t("tr.startover"), onClick: startOver } });
  }

  function onStatus(state, detail) {
    if (state === "open") {
      if (run.reconnecting) {
        clearRun();
        const said = t("tr.reconnected");
        setStatus(said, { kind: "is-waiting" });
        setTimeout(() => { if (status.firstChild?.textContent === said) setStatus(""); }, 6000);
      } else setStatus("");
      run.reconnecting = false;
    }
    if (state === "reconnecting") {
      run.reconnecting = true;
      run.running = false;
      run.queued = null;
      showRunning();
      setStatus(t("tr.reconnecting", { seconds: Math.round(detail.delayMs / 1000) }));
    }
    if (state === "closed" && !detail.intended) {
      run.running = false;
      showRunning();
      if (!status.textContent) setStatus(t("tr.disconnected"), { action: { label: t("tr.reconnect"), onClick: () => {
        setStatus("");
        clearRun();
        socket.connect();
      } } });
    }
  }

  /** The line under the figure: what is happening (queued, limit, reconnecting, an error). */
  function setStatus(text, { action = null, kind = "is-error" } = {}) {
    status.replaceChildren(document.createTextNode(text));
    status.classList.remove("is-error", "is-waiting");
    if (text) status.classList.add(kind);
    status.dataset.state = !text ? "" : run.queued ? "queued" : run.limited ? "limit" : run.reconnecting ? "reconnecting" : "other";
    if (action) button(status, { label: action.label, onClick: action.onClick });
    if (text) ctx.announce(text);
  }

  // ---- reacting to the reader ----------------------------------------------------------------
  function reconfigure(partial) {
    ctx.set(partial);
    const wasRunning = run.running;
    clearRun();
    const { task, heads, seed } = s();
    socket.send({ type: "config", task, heads: Number(heads), seed });
    sendScene();
    if (wasRunning) socket.send({ type: "start", pace: Number(s().pace) });
    drawScene();
  }

  function setScene(partial) {
    ctx.set(partial);
    drawScene();
    sendScene();
    emitData([]);
  }

  /**
   * The lesson's try-its read FIG 2 like any figure ("attnlab:figure-data", see lib/tries.js),
   * with data {history: records so far}. One event per new record: a frame may carry several
   * evaluations, and a condition such as "attention below 2 cm while the MLP is above 20 cm"
   * holds at one of them, not necessarily at the frame's last.
   */
  function emitData(records) {
    const send = (history) => root.dispatchEvent(new CustomEvent("attnlab:figure-data", { bubbles: true,
      detail: { name: "training", settings: { ...s() }, data: { history }, acted: !link.replaying } }));
    if (!records.length) send(run.history.slice());
    if (run.stale) return;
    for (const record of records) {
      run.history.push(record);
      send(run.history.slice());
    }
  }

  function clearRun() {
    if (run.limited) {
      run.limited = false;
      setStatus("");
    }
    run.step = 0;
    run.prediction = null;
    run.crossed = false;
    run.history = [];
    run.stale = true; // until the server's fresh history: late records of the old run are not this run's
    curves.clear();
    readouts.progress(0, null, s().task, curves.firstBelow);
    drawScenePrediction();
  }

  function announceMilestones() {
    const r = curves.latest();
    const goal = s().task === "vector" ? 3 : 2;
    if (!run.crossed && r && r.attn_err_cm < goal) {
      run.crossed = true;
      ctx.announce(t("tr.crossed", { cm: goal, step: r.step }));
    }
  }

  function showRunning() {
    trainBtn.textContent = run.queued ? t("tr.queued.button") : run.running ? t("tr.pause") : t("tr.train");
    trainBtn.setAttribute("aria-pressed", String(run.running || Boolean(run.queued)));
    stepBtn.disabled = run.running || Boolean(run.queued);
    root.classList.toggle("is-running", run.running);
  }

  // ---- drawing the display scene ------------------------------------------------------------
  function blockLabel(c, pos) {
    return t("tr.block", { colour: colourName(c), x: Math.round(pos[0]), y: Math.round(pos[1]) });
  }

  function drawScene() {
    const sc = sceneFrom(s());
    const option = (c) => ({ value: c, label: colourName(c) });
    targetCtl.setOptions(sc.colours.map(option), sc.target);
    secondCtl.setOptions(sc.colours.filter((c) => c !== sc.target).map(option), sc.second);
    secondCtl.el.hidden = s().task !== "vector";
    countCtl.set(s().n_objects);
    setInstruction(s().task === "vector"
      ? t("tr.instruction.vector", { a: colourName(sc.target), b: colourName(sc.second) })
      : t("tr.instruction.fetch", { a: colourName(sc.target) }));
    const focused = [...scene.blocks.children].indexOf(document.activeElement);
    scene.setBlocks(sc.colours.map((c, i) => ({
      pos: sc.positions[i], colour: objectColour(c), label: blockLabel(c, sc.positions[i]),
      letter: t(`colour.${OBJECT_COLOURS[c].name}.letter`), ink: [1, 2].includes(c) ? "#1f2328" : "#fff",
    })), {
      onMove: (i) => {
        // the rings follow the block at once; the answers follow when the server replies
        const pos = [...s().pos];
        const p = scene.positions()[i];
        [pos[2 * i], pos[2 * i + 1]] = [+p[0].toFixed(1), +p[1].toFixed(1)];
        ctx.set({ pos });
        drawScenePrediction();
        sendScene();
      },
      onDrop: (i, p) => scene.handle(i)?.setAttribute("aria-label", blockLabel(sc.colours[i], p)),
      onActivate: (i) => setScene({ target: sc.colours[i] }),
    });
    if (focused >= 0) scene.handle(Math.min(focused, sc.colours.length - 1))?.focus({ preventScroll: true });
    hint.textContent = t("tr.hint");
    legend.update(s().task, Number(s().heads));
    drawScenePrediction();
  }

  /** The instruction line; "p_A" is written with a real subscript. */
  function setInstruction(text) {
    instruction.replaceChildren();
    text.split(/(p_[AB])/).forEach((part) => {
      if (!/^p_[AB]$/.test(part)) instruction.appendChild(document.createTextNode(part));
      else {
        el("tspan", { class: "math-p", text: "p" }, instruction);
        el("tspan", { "baseline-shift": "sub", "font-size": "10", text: part[2] }, instruction);
      }
    });
  }

  function drawScenePrediction() {
    const sc = sceneFrom(s());
    drawPrediction(scene, { task: s().task, positions: sc.positions, secondIndex: sc.secondIndex,
      prediction: run.prediction });
    svg.setAttribute("aria-label", t("tr.scene.aria", { n: sc.colours.length }));
  }

  function relabel() {
    taskCtl.relabel(t("tr.task"), [t("tr.fetch"), t("tr.vector")]);
    headsCtl.relabel(t("tr.heads"));
    paceCtl.relabel(t("tr.pace"), PACES.map((p) => t(`tr.pace.${p}`)));
    seedCtl.relabel(t("tr.seed"));
    countCtl.relabel(t("tr.objects"));
    targetCtl.relabel(t("tr.target"));
    secondCtl.relabel(t("tr.second"));
    stepBtn.textContent = t("tr.step", { n: STEP_N });
    resetBtn.textContent = t("tr.reset");
    showRunning();
    curves.relabel(t);
    readouts.relabel();
    readouts.progress(run.step, curves.latest(), s().task, curves.firstBelow);
    drawScene();
    if (run.queued) showQueued();
    else if (run.limited) showLimit();
  }

  drawScene();
  showRunning();
  readouts.progress(0, null, s().task, curves.firstBelow);
  socket.connect();

  return {
    update(data) {
      readouts.figureData(data);
    },
    relabel,
    destroy() {
      socket.close();
    },
  };
}
