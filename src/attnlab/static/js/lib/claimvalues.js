// The engine's measured claim values ({claim: {name: value}}, GET /api/claims/measured) for the
// figure views that draw them (FIG 2's seed strip draws F2.11's per-seed numbers). The page's
// controller (main.js) publishes every answer the claims panel receives; each publication is
// also the document event "attnlab:claim-values" (detail: the values). A view that mounts after
// the values arrived gets the latest at once. In a notebook widget nobody publishes: there the
// page's claims are not measured, and expected() tells a view so.

const EVENT = "attnlab:claim-values";
let latest = null;
let awaited = false;

/** The page will publish claim values (main.js, before the views mount). */
export function expectClaimValues() {
  awaited = true;
}

/** Whether claim values will come (false in a notebook widget). */
export const expected = () => awaited;

/** Every answer of the claims panel: kept, and dispatched as "attnlab:claim-values". */
export function publishClaimValues(values) {
  latest = values;
  document.dispatchEvent(new CustomEvent(EVENT, { detail: values }));
}

/** fn(values) now if values arrived already, and on every publication. Returns the unsubscribe. */
export function onClaimValues(fn) {
  const listener = (event) => fn(event.detail);
  document.addEventListener(EVENT, listener);
  if (latest) fn(latest);
  return () => document.removeEventListener(EVENT, listener);
}
