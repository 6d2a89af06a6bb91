// The reader's progress, kept in this browser only (localStorage): which stages of each "try it"
// task have ticked, and which options of each exercise were chosen. Nothing leaves the machine.
// A page whose storage is blocked (private mode, file://) still works; it just forgets.

const KEY = "attnlab.progress.v1";

function read(storage) {
  try {
    const saved = JSON.parse(storage?.getItem(KEY) ?? "null");
    if (saved && typeof saved === "object") {
      return { tries: saved.tries ?? {}, exercises: saved.exercises ?? {} };
    }
  } catch {
    // unreadable (old format, edited by hand): start afresh
  }
  return { tries: {}, exercises: {} };
}

/**
 * The progress store: {tries: {tryId: [stage ticked?...]}, exercises: {exId: [chosen option
 * indices, in order]}}. Subscribers are called after every change with the whole state.
 */
export function createProgress(storage = globalThis.localStorage) {
  let state = read(storage);
  const subscribers = new Set();
  const save = () => {
    try {
      storage?.setItem(KEY, JSON.stringify(state));
    } catch {
      // full or blocked storage: keep the progress for this visit only
    }
    subscribers.forEach((fn) => fn(state));
  };
  return {
    get state() { return state; },
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    ticked: (tryId, stage) => Boolean(state.tries[tryId]?.[stage]),
    /** Tick one stage of a try-it task; true if it was not ticked before. */
    tick(tryId, stage, stages) {
      const list = state.tries[tryId] ?? Array(stages).fill(false);
      if (list[stage]) return false;
      list[stage] = true;
      state.tries[tryId] = list;
      save();
      return true;
    },
    chosen: (exId) => state.exercises[exId] ?? [],
    choose(exId, option) {
      const list = state.exercises[exId] ?? [];
      if (list.includes(option)) return;
      state.exercises[exId] = [...list, option];
      save();
    },
    reset() {
      state = { tries: {}, exercises: {} };
      save();
    },
  };
}
