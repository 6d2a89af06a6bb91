// The client side of /ws/train (web contract, FIG 2 live training). It owns the socket only:
// messages out are queued until the socket opens; messages in are handed to the view as parsed
// objects; the connection status ("connecting" | "open" | "closed") is reported separately so
// the view can offer to reconnect. The view decides what to send.

/** ws:// or wss:// URL of `path` on the page's own host (never another origin). */
export function socketURL(path = "/ws/train") {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}${path}`;
}

/**
 * Open a training socket. onMessage(msg) gets each server message; onStatus(status, detail)
 * reports "connecting" | "open" | "closed" (detail: {code, reason}). onOpen() runs on every
 * (re)connect before queued messages are flushed, so the view can resend its config and scene.
 * Returns {send(obj), connect(), close(), status()}.
 */
export function trainSocket({ onMessage, onStatus = () => {}, onOpen = () => {}, url = socketURL() }) {
  let ws = null;
  let queue = [];
  let status = "closed";
  let closing = false;

  const report = (next, detail = {}) => {
    status = next;
    onStatus(next, detail);
  };

  function connect() {
    if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) return;
    closing = false;
    report("connecting");
    ws = new WebSocket(url);
    ws.addEventListener("open", () => {
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
      report("closed", { code: event.code, reason: event.reason, intended: closing });
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
      if (ws) ws.close(1000, "view closed");
    },
  };
}
