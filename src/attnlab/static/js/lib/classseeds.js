// "One seed each" on a learner's page (attnlab.classroom.seeds): the teacher's message gives
// every seat a seed; this page's FIG 2 trains its own to the experiment's step, as a shared
// link with training.step would (lib/trainlink.js: a fresh model, trained by the server's pool),
// and reports the final record's errors once. The page computes nothing: the numbers are the
// engine's, as FIG 2 drew them.

import { encodeHash } from "./state.js";

/** The hash that sets FIG 2 to the task, heads and seed and trains it to `steps`. */
export function seedHash(store, { task, heads, seed, steps }) {
  const training = { ...store.settings("training"), task, heads, seed, step: steps };
  return encodeHash({ lang: store.state.lang, figs: { ...store.state.figs, training } }, store.specs);
}

/**
 * The page's part: message(msg) takes the server's "seat" and "seeds" messages; send(obj)
 * writes to the class socket. Listens to FIG 2's "attnlab:figure-data" for the final record.
 */
export function createClassSeeds({ store, send }) {
  let seat = null;
  let mine = null; // {id, task, heads, seed, steps} while this page's seed trains
  document.addEventListener("attnlab:figure-data", (event) => {
    const { name, settings, data } = event.detail ?? {};
    if (!mine || name !== "training") return;
    const last = data?.history?.at?.(-1);
    const same = settings?.task === mine.task && Number(settings?.heads) === mine.heads && settings?.seed === mine.seed;
    if (!same || last?.step !== mine.steps) return;
    send({ type: "result", id: mine.id, seed: mine.seed, step: last.step, attn_err_cm: last.attn_err_cm,
      mlp_err_cm: last.mlp_err_cm });
    mine = null; // once
  });
  return {
    message(msg) {
      if (msg.type === "seat") seat = msg.number;
      if (msg.type !== "seeds" || seat === null) return;
      const seed = msg.seeds?.[String(seat)];
      if (!Number.isInteger(seed)) return;
      mine = { id: msg.id, task: msg.task, heads: msg.heads, seed, steps: msg.steps };
      window.location.hash = seedHash(store, mine); // the page's hashchange trains it
    },
  };
}
