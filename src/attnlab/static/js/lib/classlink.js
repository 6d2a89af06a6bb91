// The page in a class with a teacher's view (issue 20): once the server says there is one
// (presence's answer, `teaching`), the page opens /ws/class (attnlab.web.class_socket), says
// hello with its random tab id (lib/presence.js) and keeps the teacher's view current with
// what it does: shown or hidden, FIG 2 training or in line ("attnlab:train-state"), the try-its
// it has ticked through and the first option it chose in each exercise (lib/progress.js).
// Nothing else leaves the page, and the server forgets the seat when the page closes.
// What the teacher sends everyone comes back through onMessage (lib/classshow.js shows it).

import { readerId } from "./presence.js";
import { socketURL, trainSocket } from "./trainsocket.js";

export const ALIVE_MS = 15_000; // the server forgets a seat not heard from for 45 s

/** {tries: [ids with every stage ticked], exercises: {id: first option chosen}} */
export function progressReport(state) {
  const tries = Object.entries(state.tries ?? {})
    .filter(([, stages]) => Array.isArray(stages) && stages.length && stages.every(Boolean))
    .map(([id]) => id);
  const exercises = Object.fromEntries(Object.entries(state.exercises ?? {})
    .filter(([, chosen]) => Array.isArray(chosen) && Number.isInteger(chosen[0]))
    .map(([id, chosen]) => [id, chosen[0]]));
  return { tries, exercises };
}

/**
 * Join the class. progress: lib/progress.js; onMessage(msg): each message of the server
 * ("seat", "show", "seeds"). Returns {send(msg), setName(name), close()}.
 */
export function joinClass({ progress, onMessage, id = readerId() }) {
  let name = "";
  const training = { running: false, queued: false };
  const status = () => ({ type: "status", shown: !document.hidden, training: training.running,
    queued: training.queued });
  const report = () => ({ type: "progress", ...progressReport(progress.state) });
  const socket = trainSocket({
    url: socketURL("/ws/class"),
    onMessage,
    onOpen: () => {
      socket.send({ type: "hello", seat: id, name });
      socket.send(status());
      socket.send(report());
    },
  });
  const onTrain = (event) => {
    Object.assign(training, { running: Boolean(event.detail?.running), queued: Boolean(event.detail?.queued) });
    socket.send(status());
  };
  const onShown = () => socket.send(status());
  document.addEventListener("attnlab:train-state", onTrain);
  document.addEventListener("visibilitychange", onShown);
  const unsubscribe = progress.subscribe(() => socket.send(report()));
  const alive = setInterval(() => socket.send(status()), ALIVE_MS);
  socket.connect();
  return {
    send: (msg) => socket.send(msg),
    setName(next) {
      name = String(next).trim();
      socket.send({ type: "name", name });
    },
    close() {
      clearInterval(alive);
      unsubscribe();
      document.removeEventListener("attnlab:train-state", onTrain);
      document.removeEventListener("visibilitychange", onShown);
      socket.close();
    },
  };
}
