// The client side of /ws/train (web contract, FIG 2 live training). It owns the socket only:
// messages out are queued until the socket opens; messages in are handed to the view as parsed
// objects; the connection status ("connecting" | "open" | "reconnecting" | "closed") is reported
// separately. A socket that closes without being asked to (a server restart, a dropped network)
// is reopened by itself after a growing delay (1 s, 2 s, 4 s … at most 30 s); the view's
// onOpen then starts a fresh session (config and scene again).

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
const REFUSED = new Set([1008]); // a foreign page: retrying cannot help

/** ws:// or wss:// URL of `path` on the page's own host (never another origin). */
export function socketURL(path = "/ws/train") {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}${path}`;
}

/**
 * Open a training socket. onMessage(msg) gets each server message; onStatus(status, detail)
 * reports "connecting" | "open" | "reconnecting" (detail: {code, delayMs, attempt}) | "closed"
 * (detail: {code, reason, intended}). onOpen() runs on every (re)connect before queued messages
 * are flushed, so the view can resend its config and scene.
 * Returns {send(obj), connect(), close(), status()}.
 */
export function trainSocket({ onMessage, onStatus = () => {}, onOpen = () => {}, url = socketURL() }) {
  let ws = null;
  let queue = [];
  let status = "closed";
  let closing = false;
  let attempt = 0;
  let retryTimer = null;

  const report = (next, detail = {}) => {
    status = next;
    onStatus(next, detail);
  };

  function connect() {
    if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) return;
    clearTimeout(retryTimer);
    retryTimer = null;
    closing = false;
    report("connecting");
    ws = new WebSocket(url);
    ws.addEventListener("open", () => {
      attempt = 0;
      report("open");
      onOpen();
      const pending = queue;
      queue = [];
      pending.forEach((m) => ws.send(m));
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; ignore anything else rather than break the view
      }
      onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      ws = null;
      if (closing || REFUSED.has(event.code) || event.code === 1000) {
        report("closed", { code: event.code, reason: event.reason, intended: closing });
        return;
      }
      const delayMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
      attempt += 1;
      report("reconnecting", { code: event.code, delayMs, attempt });
      retryTimer = setTimeout(connect, delayMs);
    });
    // "error" is always followed by "close"; the status report there is enough.
  }

  return {
    connect,
    status: () => status,
    send(obj) {
      const text = JSON.stringify(obj);
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(text);
      else {
        // Only the latest message of each type matters while waiting (config, scene, start…).
        queue = queue.filter((m) => JSON.parse(m).type !== obj.type);
        queue.push(text);
      }
    },
    close() {
      closing = true;
      queue = [];
      clearTimeout(retryTimer);
      if (ws) ws.close(1000, "view closed");
    },
  };
}
