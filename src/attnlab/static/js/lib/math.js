// Formulas with the vendored KaTeX (static/vendor/katex, loaded by index.html as classic
// scripts before the modules run). `$…$` inline and `$$…$$` display math in .prose, captions and
// .formula blocks. `trust` is granted to \htmlData only: that is how a formula symbol carries
// data-hl for the symbol ↔ figure link; nothing else may inject HTML.

const MACROS = Object.freeze({
  "\\hl": "\\htmlData{hl=#1}{#2}", // the lesson's shorthand: \hl{q}{\mathbf q}
  "\\R": "\\mathbb{R}",
});

const OPTIONS = Object.freeze({
  delimiters: [
    { left: "$$", right: "$$", display: true },
    { left: "$", right: "$", display: false },
  ],
  ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code", "option", "svg", "annotation"],
  throwOnError: false, // a typo shows red source text instead of breaking the page
  strict: "ignore",
  trust: (context) => context.command === "\\htmlData",
  macros: MACROS,
});

/** Whether KaTeX loaded (a page opened from disk without the server has no math). */
export function mathReady() {
  return typeof window.renderMathInElement === "function" && typeof window.katex === "object";
}

/**
 * Render every formula under `root`: `$…$` / `$$…$$` in text, and elements that hold plain TeX
 * (<span class="math"> inline, <div class="math"> or .math.display as a display formula — the
 * form attnlab.lesson gives its blocks). Safe to call again after the text changed.
 */
export function renderMath(root) {
  if (!mathReady() || !root) return;
  for (const node of root.querySelectorAll(".math:not([data-tex])")) {
    const tex = node.textContent;
    node.setAttribute("data-tex", tex); // keeps the source, and marks the node as rendered
    window.katex.render(tex, node, { ...OPTIONS, macros: { ...MACROS },
      displayMode: node.tagName === "DIV" || node.classList.contains("display") });
  }
  window.renderMathInElement(root, { ...OPTIONS, macros: { ...MACROS } });
}

/** One formula string → HTML string (for a view's own formula block). */
export function formulaHTML(tex, { display = false } = {}) {
  if (!mathReady()) return tex;
  return window.katex.renderToString(tex, { ...OPTIONS, displayMode: display, macros: { ...MACROS } });
}

/** A MathML tree as plain text: roots and fractions kept ("√64 = 8"), the TeX annotation left out. */
function mathText(node) {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent.replace(/[\u200b\u2061-\u2064]/g, ""); // invisible operators
  if (node.localName === "annotation") return "";
  const parts = [...node.childNodes].map(mathText);
  const group = (x = "") => (/^[\w.]*$/.test(x) ? x : `(${x})`);
  if (node.localName === "msqrt") return `√${group(parts.join(""))}`;
  if (node.localName === "mfrac") return `${group(parts[0])}/${group(parts[1])}`;
  return parts.join("");
}

/**
 * The text of `node` as a listener hears it in a live region: each formula once, from its
 * MathML ("dk" for d_k, "√64=8"), not KaTeX's TeX annotation nor its drawn glyphs
 * (textContent would give "dkd_kdk").
 */
export function spokenText(node) {
  const copy = node.cloneNode(true);
  for (const formula of copy.querySelectorAll(".katex")) {
    const mathml = formula.querySelector(".katex-mathml math");
    formula.replaceWith(document.createTextNode(` ${(mathml ? mathText(mathml) : "").trim()} `));
  }
  return copy.textContent.replace(/\s+/g, " ").replace(/ ([,.;:!?，。；：）)])/g, "$1").replace(/([（(]) /g, "$1").trim();
}
