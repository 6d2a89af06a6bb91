// At most one request in flight per view; the newest setting wins. A drag changes a figure's
// settings dozens of times a second, and a busy server (a class dragging while it trains) takes
// longer than a frame to answer: every request sent is computed, so sending each one piles them
// up in the server and every reader waits longer. Aborting the old one would not help (an
// abort ends the browser's wait, not the server's work, and costs a new connection). So:
//   - idle, a request goes out on the next frame (the settings of one frame count once);
//   - while one is out, a new setting replaces the one waiting: the ones in between are never
//     sent, and a setting equal to the one out is not sent again;
//   - when the answer comes it is drawn (answers come one at a time, in order, so it is never
//     older than what is shown: the numbers follow the drag a round trip behind instead of
//     freezing until it ends), and then the waiting setting goes out at once.
// A drag therefore always ends on the reader's last setting, whatever the server's pace.
// One request that never comes back must not stop the view for good: after `patienceMs` it is
// given up (an error, unless a newer setting waits) and its late answer, if any, is ignored.

// requestAnimationFrame does not fire in a hidden tab; a timer keeps the page answering there.
export function nextFrame(fn) {
  if (typeof document !== "undefined" && document.hidden) return setTimeout(fn, 16);
  return requestAnimationFrame(fn);
}

/**
 * A latest-only sender over send(settings) → Promise(answer). request(settings) asks for an
 * answer to these settings. onAnswer(answer, settings, {newer}) gets every answer (newer: a
 * newer setting is already waiting); onError(error) a failure, unless a newer setting is waiting
 * (its answer decides what is shown); onBusy(bool): whether a request is out or waiting.
 * key(settings) → a string equal for equal settings; schedule(fn) runs fn on the next frame;
 * patienceMs: how long one answer is waited for.
 * Returns {request(settings)}.
 */
export function latestOnly(send, { onAnswer, onError = () => {}, onBusy = () => {},
  key = JSON.stringify, schedule = nextFrame, patienceMs = 20_000 } = {}) {
  let flying = null; // key of the request out, or null
  let waiting = null; // {settings, key}: the newest setting not sent yet
  let scheduled = false;

  async function fly(settings, k) {
    flying = k;
    let outcome;
    let timer = null;
    const givenUp = new Promise((_, fail) => {
      timer = setTimeout(() => fail(new Error(`no answer within ${patienceMs / 1000} s`)), patienceMs);
    });
    try {
      outcome = { answer: await Promise.race([send(settings), givenUp]) };
    } catch (error) {
      outcome = { error };
    } finally {
      clearTimeout(timer);
    }
    flying = null;
    const newer = waiting !== null;
    try {
      if ("answer" in outcome) onAnswer(outcome.answer, settings, { newer });
      else if (!newer) onError(outcome.error);
    } catch (error) {
      console.error("drawing an answer failed", error); // said, not thrown into nowhere
    } finally { // a drawing that throws must not keep the next setting from going out
      if (waiting !== null) launch();
      else onBusy(false);
    }
  }

  function launch() {
    const next = waiting;
    waiting = null;
    fly(next.settings, next.key);
  }

  return {
    request(settings) {
      const k = key(settings);
      // the answer on its way is the one wanted: nothing more to send
      waiting = k === flying ? null : { settings, key: k };
      if (waiting === null) return;
      onBusy(true);
      if (flying !== null || scheduled) return;
      scheduled = true;
      schedule(() => {
        scheduled = false;
        if (flying === null && waiting !== null) launch();
      });
    },
  };
}
