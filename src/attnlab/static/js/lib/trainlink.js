// FIG 2 in a shared link: the URL carries the step the model was trained to (training.step=1500),
// and opening the link trains a fresh model to it. Training is deterministic by seed (however the
// steps are split), so the reader gets the teacher's model; 1500 steps take well under a second.
//
// The socket's own messages do it: {"type": "step", n} at most `max_step_n` at a time (the
// server states it in every "state" message: WebSettings.max_step_n), the next
// one when the server reports the last done. The replay stops as soon as the server reports
// anything else (the reader paused, pressed Train or Step, changed a setting): the reader's
// action wins. While it runs, its records are not the reader's doing (try-its do not tick on
// them) and the URL keeps the link's step; afterwards the URL follows the model's step.

/** The view-only setting (VIEW_PARAMS); its upper bound is the server's max_steps. */
export const STEP_PARAM = Object.freeze({ name: "step", kind: "int", min: 0, default: 0 });

/**
 * The replay for one mounted view. ctx: the view's ctx (settings, set); send(msg) writes to the
 * socket. begin() after the config message; before(msg) for every server message, after(step)
 * once it is handled; `replaying` tells whether the records now arriving are the link's.
 */
export function linkedSteps({ ctx, send }) {
  const given = Number(ctx.settings.step) || 0;
  let target = given;
  let awaiting = null; // the step our last request ends at
  let started = false; // the server has begun that request (a "running" state after it)
  let active = target > 0;
  let chunk = 0; // the server's max_step_n, from its first "state" message
  let waiting = false; // begin() came before the server stated it

  function next(from) {
    awaiting = Math.min(target, from + chunk);
    started = false;
    send({ type: "step", n: awaiting - from });
  }

  function clamp(maxSteps) {
    if (!(maxSteps >= 0) || target <= maxSteps) return;
    target = maxSteps;
    const spec = { ...STEP_PARAM, max: maxSteps };
    ctx.set({ step: target });
    document.dispatchEvent(new CustomEvent("attnlab:link-problem", {
      detail: { key: "training.step", fig: "training", spec, given: String(given), reason: "invalid" } }));
  }

  return {
    get replaying() { return active; },
    begin() {
      if (!active) return;
      if (chunk) next(0);
      else waiting = true;
    },
    before(msg) {
      if (!active) return;
      if (msg.type === "state" && msg.max_steps !== undefined) clamp(msg.max_steps);
      if (msg.type === "state" && msg.max_step_n > 0) {
        chunk = msg.max_step_n;
        if (waiting) { waiting = false; next(0); } // after the config already sent: in order
      }
      if (msg.type === "done") active = false; // the step limit
      if (msg.type !== "state") return;
      if (msg.running) {
        active = !started; // a second "running": the reader pressed Train or Step
        started = true;
      } else if (started) {
        // ours ended: go on, or stop (reached, or the reader paused, reset, reconfigured)
        if (msg.step === awaiting && msg.step < target) next(msg.step);
        else active = false;
      }
    },
    after(step) {
      if (!active && step !== ctx.settings.step) ctx.set({ step });
    },
  };
}
