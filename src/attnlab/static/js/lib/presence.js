// The page says it is open: POST /api/presence {reader: id} every EVERY_MS while it is shown,
// so that the capacity the server states counts the readers dragging beside the learners
// training (attnlab.web.presence_api). The id is random and the tab's own (sessionStorage: a
// reload keeps it, another tab has its own); it says nothing about the reader. The answer is
// the class against the capacity (lib/classnotice.js shows it). A failed ping is quiet: the
// figures work without it, and the next ping tries again.

import { postJSON } from "./api.js";

export const EVERY_MS = 20_000; // the server forgets a reader after 60 s: three pings a minute
const MIN_GAP_MS = 5_000; // a reader flipping tabs does not ping more often than this
const KEY = "attnlab.reader";

/** 32 hexadecimal digits from the browser's random source (crypto.randomUUID needs https). */
export function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This tab's id: kept in sessionStorage when the browser allows it, else new for this load. */
export function readerId(storage = globalThis.sessionStorage) {
  try {
    const kept = storage?.getItem(KEY);
    if (kept && /^[0-9a-f]{32}$/.test(kept)) return kept;
    const made = randomId();
    storage?.setItem(KEY, made);
    return made;
  } catch {
    return randomId(); // storage refused (a privacy mode): the id lasts as long as the page
  }
}

/**
 * Ping now and every `every` ms while the page is shown (again at once when it is shown after
 * being hidden); onLoad(answer) gets each answer. Returns {ping(), stop()}.
 */
export function startPresence({ onLoad, post = postJSON, every = EVERY_MS, id = readerId() }) {
  let last = -Infinity;
  async function ping() {
    if (document.hidden || performance.now() - last < MIN_GAP_MS) return;
    last = performance.now();
    try {
      onLoad(await post("/api/presence", { reader: id }));
    } catch {
      // quiet: a server without presence, or a moment of no network; the next ping tries again
    }
  }
  const onVisible = () => { if (!document.hidden) ping(); };
  const timer = setInterval(ping, every);
  document.addEventListener("visibilitychange", onVisible);
  ping();
  return {
    ping,
    stop() {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    },
  };
}
