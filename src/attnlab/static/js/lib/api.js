// Transport to the figure API (web contract: GET /api/figures, GET /api/figures/{name}?k=v).
// A drag fires dozens of setting changes per second; `figureRequester` keeps at most one request
// of a figure in flight and sends only the newest setting meanwhile (./latest.js). The page asks
// for every figure at its defaults in one request when it starts (askDefaults); a figure whose
// first request is at its defaults takes its answer from there.

import { latestOnly } from "./latest.js";

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
 * or an Error with the server's sentence (a 413's or 422's detail) and the answer's `status`. */
export async function postJSON(url, body, { signal } = {}) {
  const response = await fetch(url, { method: "POST", signal, body: JSON.stringify(body),
    headers: { Accept: "application/json", "Content-Type": "application/json" } });
  if (!response.ok) throw Object.assign(new Error(await errorMessage(response)), { status: response.status });
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

let atDefaults = null; // the promise of {figure: its answer at the defaults}, once asked

/** Ask for every figure at its defaults (GET /api/figures-at-defaults), once. */
export function askDefaults(url = "/api/figures-at-defaults") {
  atDefaults ??= getJSON(url).catch(() => ({})); // without it, each figure asks on its own
  return atDefaults;
}

/** Settings as sent, whatever the order of their names. */
const sentAs = (settings) => queryString(Object.fromEntries(Object.entries(settings).sort(([a], [b]) => (a < b ? -1 : 1))));

/** Figure `name`'s answer at the defaults, when `settings` are its defaults; taken once (a view
 *  may keep and change the object it is given). */
async function atDefaultsFor(name, settings) {
  const every = atDefaults ? await atDefaults : {};
  const answer = every[name];
  if (!answer || sentAs(answer.settings) !== sentAs(settings)) return null;
  delete every[name];
  return answer;
}

/**
 * A requester for figure `name` (lib/latest.js: at most one request out, the newest setting
 * wins). request(settings) asks for the figure's data; onData(data, settings) gets each answer;
 * onError(message) a readable message instead of an exception; onBusy(bool) whether an answer
 * is outstanding (for aria-busy).
 */
export function figureRequester(name, onData, { onError = () => {}, onBusy = () => {},
  base = "/api/figures" } = {}) {
  const url = (qs) => `${base}/${encodeURIComponent(name)}${qs ? `?${qs}` : ""}`;
  const ask = async (settings) => (await atDefaultsFor(name, settings)) ?? getJSON(url(queryString(settings)));
  return latestOnly(ask, {
    key: queryString, // what is sent: settings equal as sent are one request
    onAnswer: (data, settings) => onData(data, settings),
    onError: (error) => onError(error.message || String(error)),
    onBusy,
  });
}
