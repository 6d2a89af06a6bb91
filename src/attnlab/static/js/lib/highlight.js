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
 * Formula symbols become focusable so keyboard readers get the same link. Returns a function
 * that makes newly rendered formula symbols focusable (call it after rendering math).
 */
export function initHighlight(root = document) {
  let current = null;
  const enter = (event) => {
    const node = event.target.closest?.("[data-hl]");
    const key = node?.getAttribute("data-hl") ?? null;
    if (key === current) return;
    if (current) lightKey(root, current, false);
    current = key;
    if (key) lightKey(root, key, true);
  };
  const leave = (event) => {
    const to = event.relatedTarget?.closest?.("[data-hl]");
    if (current && to?.getAttribute("data-hl") !== current) {
      lightKey(root, current, false);
      current = null;
    }
  };
  root.addEventListener("mouseover", enter);
  root.addEventListener("focusin", enter);
  root.addEventListener("mouseout", leave);
  root.addEventListener("focusout", leave);
  return (scope = root) => {
    for (const node of scope.querySelectorAll(".katex [data-hl]")) {
      if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "0");
      node.classList.add("hl-symbol");
    }
  };
}
