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
