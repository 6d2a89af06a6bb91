// The link between a formula's symbols and a figure's elements (§5 "hover a shaded symbol").
// Both carry data-hl="KEY"; hovering or focusing either lights every element with the same key
// (class "lit"). The lesson writes \hl{q}{\mathbf q} (= \htmlData{hl=q}{…}) in its formulas;
// views mark their drawing with hl(node, "q"). One delegated listener serves the whole page,
// so views added later need no wiring.

export const HL_KEYS = Object.freeze([
  "q", "k", "v", "alpha", "sqrtd", "pe", "rope", "res", "ln", "mask", "kv", "n2",
]);

/** Mark `node` as showing concept `key` (one of HL_KEYS). Returns the node. */
export function hl(node, key) {
  if (!HL_KEYS.includes(key)) throw new Error(`unknown highlight key ${key}`);
  node.setAttribute("data-hl", key);
  return node;
}

function lightKey(root, key, on) {
  for (const node of root.querySelectorAll(`[data-hl="${key}"]`)) node.classList.toggle("lit", on);
}

/**
 * Listen under `root` (the document) for hover/focus on [data-hl] and light the matching key.
 * Keyboard readers get the same link through the formula: its symbols sit inside KaTeX's
 * aria-hidden layer, where nothing may take focus, so the formula itself (.katex, outside that
 * layer) takes it, lights its first symbol, and ←/→ step through the others. Returns a function
 * that prepares newly rendered formulas (call it after rendering math).
 */
export function initHighlight(root = document) {
  let current = null;
  const light = (key) => {
    if (key === current) return;
    if (current) lightKey(root, current, false);
    current = key;
    if (key) lightKey(root, key, true);
  };
  const enter = (event) => {
    const formula = event.type === "focusin" ? event.target.closest?.(".hl-formula") : null;
    if (formula) return light(pick(formula, Number(formula.dataset.hlAt ?? 0)));
    const node = event.target.closest?.("[data-hl]");
    light(node?.getAttribute("data-hl") ?? null);
  };
  const leave = (event) => {
    if (event.type === "focusout") event.target.closest?.(".hl-formula")?.querySelector(".hl-current")
      ?.classList.remove("hl-current");
    const to = event.relatedTarget?.closest?.("[data-hl]");
    if (current && to?.getAttribute("data-hl") !== current) light(null);
  };
  const step = (event) => {
    const formula = event.target.closest?.(".hl-formula");
    const d = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!formula || !d) return;
    event.preventDefault();
    light(pick(formula, Number(formula.dataset.hlAt ?? 0) + d));
  };
  root.addEventListener("mouseover", enter);
  root.addEventListener("focusin", enter);
  root.addEventListener("mouseout", leave);
  root.addEventListener("focusout", leave);
  root.addEventListener("keydown", step);
  const mark = (scope = root) => {
    for (const node of scope.querySelectorAll(".katex [data-hl]")) {
      node.classList.add("hl-symbol");
      const formula = node.closest(".katex");
      if (formula.classList.contains("hl-formula")) continue;
      formula.classList.add("hl-formula");
      formula.setAttribute("tabindex", "0");
    }
  };
  return mark;
}

/** Make symbol `i` (wrapping) of `formula` the current one; returns its key. */
function pick(formula, i) {
  const symbols = [...formula.querySelectorAll("[data-hl]")];
  if (!symbols.length) return null;
  const at = ((i % symbols.length) + symbols.length) % symbols.length;
  formula.dataset.hlAt = String(at);
  for (const [j, node] of symbols.entries()) node.classList.toggle("hl-current", j === at);
  return symbols[at].getAttribute("data-hl");
}
