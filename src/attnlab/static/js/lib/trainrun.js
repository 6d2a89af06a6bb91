// FIG 2's run as the page knows it: ONE object, changed here only — by the server's messages,
// the socket's status and the reader's resets. The views (figures/training.js) are drawn from
// it; each function returns what changed, so the view knows what to redraw.

/** A run before the first message: nothing trained, nothing drawn. */
export function createRun() {
  return {
    step: 0,
    running: false,
    queued: null, // {place, capacity} while waiting for a seat
    limited: false, // the server's step limit was reached
    reconnecting: false,
    prediction: null, // both models' answers on the display scene
    colourMatch: null, // the latest colour-match readout (tabletop/colour_match.py via Trainer)
    colourMatchScene: null, // the scene its `scores` are under ({target, second}, the server's)
    maxSteps: null,
    crossed: false, // the attention model's error went below the goal (announced once)
    history: [], // the records of this run so far, for the lesson's try-its
    stale: false, // after a clear, until the server's fresh history: late records are not this run's
  };
}

/** Forget the run (a new config, a reset, a reconnect); returns whether it had hit the limit. */
export function clearRun(run) {
  const wasLimited = run.limited;
  Object.assign(run, { step: 0, limited: false, prediction: null, colourMatch: null, colourMatchScene: null,
    crossed: false, history: [], stale: true });
  return wasLimited;
}

/**
 * One server message. Returns {restarted?, unqueued?, fresh?, records?, done?} for the views:
 * restarted — the server is back at step 0 (the view clears the run); unqueued — a seat came;
 * fresh — a whole history replaces the drawn one; records — new evaluations; done — "idle" |
 * "step_limit".
 */
export function applyMessage(run, msg) {
  if (msg.type === "state") {
    const unqueued = Boolean(run.queued);
    run.running = Boolean(msg.running);
    run.queued = null;
    run.maxSteps = msg.max_steps ?? run.maxSteps;
    const restarted = msg.step === 0 && run.step !== 0;
    run.step = msg.step ?? run.step;
    return { restarted, unqueued };
  }
  if (msg.type === "progress") {
    const records = msg.records ?? [];
    const fresh = records[0]?.step === 0; // on connect, config, reset
    if (fresh) Object.assign(run, { crossed: false, history: [], stale: false });
    run.step = msg.step ?? run.step;
    if (msg.prediction) run.prediction = msg.prediction;
    if (msg.colour_match) {
      run.colourMatch = msg.colour_match;
      run.colourMatchScene = msg.scene ?? null;
    }
    return { fresh, records };
  }
  if (msg.type === "queued") {
    run.queued = { place: msg.place, capacity: msg.capacity };
    return {};
  }
  if (msg.type === "done") {
    run.running = false;
    if (msg.reason === "step_limit") run.limited = true;
    return { done: msg.reason === "step_limit" ? "step_limit" : "idle" };
  }
  return {};
}

/**
 * The socket's status (lib/trainsocket.js): "open" | "reconnecting" | "closed". Returns
 * {reconnected} on "open": the socket came back after a loss (the view clears the run and says
 * so, then calls settle(run)).
 */
export function applyStatus(run, state, detail) {
  if (state === "reconnecting") Object.assign(run, { reconnecting: true, running: false, queued: null });
  if (state === "closed" && !detail.intended) run.running = false;
  return { reconnected: state === "open" && run.reconnecting };
}

/** The socket is open again and the view has said so. */
export function settle(run) {
  run.reconnecting = false;
}

/** Records for the try-its: each new one extends the history (none while the run is stale). */
export function recordHistory(run, records) {
  if (run.stale) return [];
  return records.map((record) => {
    run.history.push(record);
    return run.history.slice();
  });
}

/** The line under the figure names what it says about the run (for tests and styles). */
export function statusState(run, text) {
  if (!text) return "";
  if (run.queued) return "queued";
  if (run.limited) return "limit";
  return run.reconnecting ? "reconnecting" : "other";
}
