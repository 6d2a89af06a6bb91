// The lesson's text in the page (§1–§9): GET /api/lesson/{lang} (attnlab.lesson's blocks), rendered
// into the .prose[data-part=ID] slots of index.html. Each figure's shell (lib/figureshells.js,
// from the server's figure descriptions) is moved to where the text places it (the mounted view keeps working) and gets the text's caption; formulas are drawn
// with KaTeX (symbols carry data-hl for lib/highlight.js); numbers are slots filled from the
// engine's measurements (lib/lessonvalues.js). Try-its, exercises and the glossary are built here
// and get their behaviour from lib/tries.js, lib/exercises.js and lib/glossary.js; each figure
// lists its own try-its (lib/figuretasks.js).

import { getJSON } from "./api.js";
import { createExercises } from "./exercises.js";
import { createFigureTasks } from "./figuretasks.js";
import { escapeHTML } from "./format.js";
import { createGlossary } from "./glossary.js";
import { fillSlots, hasSlot, texWithValues } from "./lessonvalues.js";
import { formulaHTML } from "./math.js";
import { createTries } from "./tries.js";

const esc = escapeHTML;
const unesc = (s) => s.replace(/&(lt|gt|quot|#x27|amp);/g, (m, e) => ({ lt: "<", gt: ">", quot: '"', "#x27": "'", amp: "&" })[e]);
const MATH_SPAN = /<span class="math">([^<]*)<\/span>/g;
const TITLE_LEAD = /^<strong>(.*?)<\/strong>\s*/;
const RESIZE_MS = 250;

/** Split TeX at the top-level (outside any braces) matches of `at`, dropping the matches. */
function splitTop(tex, at) {
  const out = [];
  const re = new RegExp(`\\\\[{}]|[{}]|${at.source}`, "g");
  let depth = 0;
  let start = 0;
  for (let m = re.exec(tex); m; m = re.exec(tex)) {
    if (m[0] === "{") depth += 1;
    else if (m[0] === "}") depth -= 1;
    else if (depth === 0 && !m[0].startsWith("\\{") && !m[0].startsWith("\\}")) {
      out.push(tex.slice(start, m.index));
      start = re.lastIndex;
    }
  }
  out.push(tex.slice(start));
  return out.map((x) => x.trim()).filter(Boolean);
}

const QUADS = /\\qquad|\\quad/;
/** A display formula too wide for the screen, one piece (between \quad or \qquad) a line. */
const stackQuads = (tex) => `\\begin{gathered}${splitTop(tex, QUADS).join(" \\\\ ")}\\end{gathered}`;
/** … and, if still too wide, each piece's chain of equalities one "=" a line. */
function stackEqualities(tex) {
  const lines = splitTop(tex, QUADS).map((piece) => {
    const [lhs, ...rhs] = splitTop(piece, /=/);
    if (!rhs.length) return piece;
    return `\\begin{aligned}${lhs} &= ${rhs.join(" \\\\ &= ")}\\end{aligned}`;
  });
  return `\\begin{gathered}${lines.join(" \\\\ ")}\\end{gathered}`;
}

/**
 * Run `change()` (which rewrites the text) without moving what the reader is looking at. The
 * element at the top of the view is found again by a key that survives re-rendering (a figure,
 * a heading, a box, the n-th block of a part), else by its section, and put back where it was.
 */
export function keepPlace(change) {
  const header = document.querySelector(".site-header")?.getBoundingClientRect().bottom ?? 0;
  const probe = document.elementFromPoint(window.innerWidth / 2, Math.min(header + 24, window.innerHeight / 3));
  const found = probe?.closest("[data-anchor], figure.fig[id]") ?? null;
  const keys = [found && (found.dataset.anchor ? `[data-anchor="${found.dataset.anchor}"]` : `#${found.id}`),
    probe?.closest("section[id]") ? `#${probe.closest("section[id]").id}` : null].filter(Boolean);
  const tops = keys.map((k) => document.querySelector(k)?.getBoundingClientRect().top);
  change();
  for (const [i, key] of keys.entries()) {
    const again = document.querySelector(key);
    if (again && tops[i] !== undefined) {
      window.scrollBy(0, again.getBoundingClientRect().top - tops[i]);
      return;
    }
  }
}

/**
 * The lesson controller. deps: {t, announce, markSymbols (lib/highlight.js), progress, numbers
 * (figure name → its number)}.
 * load(lang) fetches (and caches) one language; render(lesson) puts it in the page;
 * setValues(values) fills the number slots; tries/exercises count the reader's progress.
 */
export function createLesson({ t, announce, markSymbols, progress, numbers, root = document }) {
  const lessons = new Map(); // lang → Promise of the lesson
  const formulas = new Map(); // "display|tex" → KaTeX HTML (the two languages share most)
  let values = {};

  function formula(tex, display = false) {
    const filled = hasSlot(tex) ? texWithValues(tex, values) : tex;
    const key = `${display}|${filled}`;
    if (!formulas.has(key)) formulas.set(key, formulaHTML(filled, { display }));
    return formulas.get(key);
  }

  /** Server HTML (already escaped) with its formulas drawn and its web links opening apart. */
  function renderHTML(html) {
    return html
      .replace(MATH_SPAN, (m, src) => `<span class="math" data-tex="${src}">${formula(unesc(src))}</span>`)
      .replace(/<a href="(https?:)/g, '<a target="_blank" href="$1');
  }

  const counters = { exercise: 0, pitfall: 0 };
  const kinds = {
    heading: (b) => `<h${b.level + 1} id="l-${esc(b.id)}" data-anchor="h:${esc(b.id)}">${renderHTML(b.html)}</h${b.level + 1}>`,
    paragraph: (b, a) => `<p${a}>${renderHTML(b.html)}</p>`,
    list: (b, a) => {
      const tag = b.ordered ? "ol" : "ul";
      return `<${tag}${a}>${b.items.map((i) => `<li>${renderHTML(i)}</li>`).join("")}</${tag}>`;
    },
    math: (b, a) => `<div class="math display" data-tex="${esc(b.tex)}"${a}>${formula(b.tex, true)}</div>`,
    note: (b, a) => box(b, a, t("lesson.note")),
    insight: (b, a) => box(b, a, t("lesson.insight")),
    pitfall: (b, a) => box(b, a, t("lesson.pitfall", { n: ++counters.pitfall })),
    try: (b) => tries.renderBlock(b),
    exercise: (b) => exercises.renderBlock(b, ++counters.exercise),
  };

  function box(b, anchor, label) {
    const title = b.title ? ` ${renderHTML(b.title)}` : "";
    return `<aside class="box box-${b.type}"${anchor}><p class="box-title"><span class="box-label">${esc(label)}</span>${title}</p>`
      + `${renderBlocks(b.body)}</aside>`;
  }

  function renderBlocks(blocks, anchorOf = () => "") {
    return blocks.map((b, i) => kinds[b.type]?.(b, anchorOf(i)) ?? "").join("");
  }

  const tries = createTries({ progress, t, announce, renderBlocks, numbers, root });
  const exercises = createExercises({ progress, t, announce, renderBlocks, renderHTML, root });
  const glossary = createGlossary({ t, renderHTML, root });
  const figureTasks = createFigureTasks({ progress, t, root });

  /** A figure's caption from the text: its bold lead becomes the figure's title. */
  function placeCaption(fig, caption) {
    const [first, ...rest] = caption;
    const lead = first?.type === "paragraph" ? TITLE_LEAD.exec(first.html) : null;
    const title = fig.querySelector(".fig-title");
    if (lead && title) title.innerHTML = renderHTML(lead[1].replace(/[.。]$/, ""));
    const body = lead ? [{ ...first, html: first.html.slice(lead[0].length) }, ...rest] : caption;
    const figcaption = fig.querySelector("figcaption");
    if (figcaption) {
      figcaption.innerHTML = renderBlocks(body);
      figcaption.dataset.lesson = "";
    }
  }

  function renderPart(part) {
    const slot = root.querySelector(`.prose[data-part="${part.id}"]`);
    if (!slot) return;
    root.querySelectorAll(`.prose[data-chunk-of="${part.id}"]`).forEach((old) => old.remove());
    const title = root.querySelector(`#s-${part.id} [data-part-title]`);
    if (title) title.textContent = part.title;
    let chunk = slot;
    let html = "";
    part.blocks.forEach((b, i) => {
      if (b.type !== "figure") {
        html += renderBlocks([b], () => ` data-anchor="p:${part.id}:${i}"`);
        return;
      }
      const fig = root.getElementById?.(`fig-${b.name}`) ?? root.querySelector(`#fig-${b.name}`);
      if (!fig) return;
      chunk.innerHTML = html;
      html = "";
      placeCaption(fig, b.caption);
      if (chunk.nextElementSibling !== fig) chunk.after(fig); // moving a figure that is in place would drop its focus
      chunk = Object.assign(document.createElement("div"), { className: "prose" });
      chunk.dataset.chunkOf = part.id;
      fig.after(chunk);
    });
    chunk.innerHTML = html;
  }

  /**
   * Display formulas are as wide as the figures; one that still does not fit (a phone, the
   * longest lines of §5) is stacked where its author put \quad or \qquad, and if that is not
   * enough, one "=" a line. Widths are read for all formulas before any is redrawn, so each
   * step lays the page out once.
   */
  function fitFormulas(scope) {
    const nodes = [...scope.querySelectorAll(".math.display[data-tex]")];
    for (const node of nodes.filter((n) => n.dataset.stacked)) {
      node.innerHTML = formula(node.dataset.tex, true);
      node.style.fontSize = "";
      delete node.dataset.stacked;
    }
    const tooWide = (node) => {
      const box = node.querySelector(".katex-display") ?? node;
      return box.scrollWidth > box.clientWidth + 1;
    };
    for (const [level, stack] of [["quads", stackQuads], ["equalities", stackEqualities]]) {
      const wide = nodes.filter(tooWide);
      for (const node of wide) {
        node.innerHTML = formula(stack(node.dataset.tex), true);
        node.dataset.stacked = level;
      }
    }
    // a line that is still too wide (a phone): the whole formula a little smaller, never tiny
    for (const node of nodes.filter(tooWide)) {
      const box = node.querySelector(".katex-display") ?? node;
      node.style.fontSize = `${Math.max(0.75, (box.clientWidth - 2) / box.scrollWidth).toFixed(3)}em`;
      node.dataset.stacked = "smaller";
    }
  }

  function fill() {
    const main = root.querySelector("main") ?? root;
    const pending = fillSlots(main, values);
    let redrawn = false;
    for (const node of main.querySelectorAll("[data-tex]")) {
      const src = node.dataset.tex; // the attribute, decoded: the TeX source with its slots
      if (!hasSlot(src)) continue;
      const html = formula(src, node.classList.contains("display"));
      if (node.innerHTML !== html) {
        node.innerHTML = html;
        redrawn = true;
      }
    }
    if (redrawn) fitFormulas(main);
    markSymbols(main);
    document.documentElement.dataset.pendingValues = String(pending);
  }

  const refit = () => {
    fitFormulas(root.querySelector("main") ?? root);
    markSymbols(root.querySelector("main") ?? root);
  };
  let resizeTimer = null;
  let lastWidth = 0;
  // the text column's width, not the window's: a scroll bar coming or going changes it too
  new ResizeObserver(([entry]) => {
    if (Math.round(entry.contentRect.width) === lastWidth) return;
    lastWidth = Math.round(entry.contentRect.width);
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(refit, RESIZE_MS);
  }).observe(root.querySelector("main") ?? root.documentElement ?? root);
  // KaTeX loads a font when a formula first needs it: widths measured before it came are short
  document.fonts?.addEventListener("loadingdone", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(refit, RESIZE_MS);
  });

  return {
    tries,
    exercises,
    /** The lesson in one language (fetched once; a failed fetch is tried again next time). */
    load(lang) {
      if (!lessons.has(lang)) this.prime(lang, getJSON(`/api/lesson/${lang}`));
      return lessons.get(lang);
    },
    /** Use a fetch of /api/lesson/{lang} that is already on its way. */
    prime(lang, fetching) {
      lessons.set(lang, fetching.catch((error) => {
        lessons.delete(lang);
        throw error;
      }));
    },
    render(lesson) {
      counters.exercise = 0;
      counters.pitfall = 0;
      const blocks = lesson.parts.flatMap((p) => p.blocks);
      const tasks = blocks.filter((b) => b.type === "try");
      tries.setTasks(tasks);
      lesson.parts.forEach(renderPart);
      figureTasks.render(tasks); // after the text: each line is the first clause of its try box
      const list = root.querySelector("#glossary");
      glossary.hide(); // a definition on screen would be in the other language
      if (list) glossary.render(list, lesson.glossary, lesson.lang);
      tries.refresh();
      exercises.refresh();
      fill();
      refit();
    },
    setValues(next) {
      values = next ?? {};
      fill();
    },
  };
}
