// Transport to the figure API (web contract: GET /api/figures, GET /api/figures/{name}?k=v).
// A drag fires dozens of setting changes per second; `figureRequester` sends at most one request
// per animation frame (the latest settings of that frame), and drops answers that arrive after a
// newer one has been shown, so a slow answer never overwrites a fresh drawing.

/** The message of a failed answer: the API's 422 detail, or the HTTP status. */
async function errorMessage(response) {
  try {
    const body = await response.json();
    if (Array.isArray(body.detail)) return body.detail.map((d) => d.msg ?? String(d)).join("; ");
    if (typeof body.detail === "string") return body.detail;
  } catch {
    // not JSON: fall through to the status line
  }
  return `${response.status} ${response.statusText}`.trim();
}

/** GET a JSON document from our own server; throws an Error with a readable message. */
export async function getJSON(url, { signal } = {}) {
  const response = await fetch(url, { signal, headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(await errorMessage(response));
  return response.json();
}

/** POST a JSON body to our own server (the guard wants JSON from our page); the answer's JSON,
 * or an Error with the server's sentence (a 413's or 422's detail). */
export async function postJSON(url, body, { signal } = {}) {
  const response = await fetch(url, { method: "POST", signal, body: JSON.stringify(body),
    headers: { Accept: "application/json", "Content-Type": "application/json" } });
  if (!response.ok) throw new Error(await errorMessage(response));
  return response.json();
}

/** `{d_k: 64, q: [1.5, 0.2], scaled: false}` → "d_k=64&q=1.5,0.2&scaled=false". */
export function queryString(settings) {
  return Object.entries(settings)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => {
      const text = Array.isArray(v) ? v.map((x) => +(+x).toPrecision(8)).join(",") : String(v);
      return `${encodeURIComponent(k)}=${encodeURIComponent(text).replace(/%2C/g, ",")}`;
    })
    .join("&");
}

// requestAnimationFrame does not fire in a hidden tab; a timer keeps the page answering there.
function nextFrame(fn) {
  if (document.hidden) return setTimeout(fn, 16);
  return requestAnimationFrame(fn);
}

/**
 * A requester for figure `name`. request(settings) schedules a GET for the next frame; only the
 * latest settings of the frame are sent. onData(data, settings) gets each fresh answer;
 * onError(message) gets a readable message instead of an exception; onBusy(bool) tracks whether
 * an answer is outstanding (for aria-busy).
 */
export function figureRequester(name, onData, { onError = () => {}, onBusy = () => {},
  base = "/api/figures" } = {}) {
  let pending = null; // settings waiting for the next frame
  let scheduled = false;
  let sent = 0; // sequence number of the last request sent
  let shown = 0; // sequence number of the last answer applied
  let inFlight = 0;

  async function send(settings) {
    const seq = ++sent;
    inFlight += 1;
    onBusy(true);
    try {
      const qs = queryString(settings);
      const data = await getJSON(`${base}/${encodeURIComponent(name)}${qs ? `?${qs}` : ""}`);
      if (seq > shown) {
        shown = seq;
        onData(data, settings);
      }
    } catch (error) {
      if (seq > shown) {
        shown = seq;
        onError(error.message || String(error));
      }
    } finally {
      inFlight -= 1;
      if (inFlight === 0) onBusy(false);
    }
  }

  return {
    request(settings) {
      pending = { ...settings };
      if (scheduled) return;
      scheduled = true;
      nextFrame(() => {
        scheduled = false;
        const settingsNow = pending;
        pending = null;
        send(settingsNow);
      });
    },
  };
}
