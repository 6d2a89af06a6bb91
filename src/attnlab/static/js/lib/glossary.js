// The glossary (content/{en,zh}/glossary.md), English ↔ Chinese: a section near the end of the
// page, reachable from every term the text links (<a class="gloss" data-gloss=ID>). Hovering or
// focusing a term shows its definition on the spot; following the link goes to the entry, and a
// "back" button returns to the place in the text. The URL hash holds the page's state, so these
// links scroll instead of changing it.

import { escapeHTML } from "./format.js";

const esc = escapeHTML;
const FLASH_MS = 1600;

/**
 * The glossary controller. render(container, entries, lang) fills the section (entries from
 * /api/lesson: {id, term, other, html}); renderHTML(html) renders the formulas of a definition.
 */
export function createGlossary({ t, renderHTML, root = document }) {
  const tip = document.createElement("div");
  tip.className = "gloss-tip";
  tip.id = "gloss-tip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.appendChild(tip);
  let container = null;
  let backTo = null; // the term the reader followed into the glossary
  let showing = null;

  function render(into, entries, lang) {
    container = into;
    const other = lang === "zh" ? "en" : "zh-Hans";
    const items = entries.map((g) => `<div class="gloss-entry" id="gloss-${esc(g.id)}" data-gloss-entry="${esc(g.id)}"`
      + ` data-anchor="gloss:${esc(g.id)}" tabindex="-1"><dt><dfn>${esc(g.term)}</dfn>`
      + ` <span class="gloss-other" lang="${other}">${esc(g.other)}</span></dt><dd>${renderHTML(g.html)}</dd></div>`);
    into.innerHTML = `<p class="gloss-back-wrap"><button type="button" class="btn gloss-back" hidden>${esc(t("gloss.back"))}</button></p>`
      + `<dl class="glossary">${items.join("")}</dl>`;
    into.querySelector(".gloss-back").addEventListener("click", goBack);
  }

  function entry(id) {
    return container?.querySelector(`[data-gloss-entry="${CSS.escape(id)}"]`) ?? null;
  }

  function show(link) {
    const found = entry(link.dataset.gloss);
    if (!found) return;
    showing = link;
    tip.innerHTML = `<p class="gloss-tip-term">${found.querySelector("dt").innerHTML}</p>`
      + `<div class="gloss-tip-def">${found.querySelector("dd").innerHTML}</div>`
      + `<p class="gloss-tip-hint">${esc(t("gloss.hint"))}</p>`;
    tip.hidden = false;
    link.setAttribute("aria-describedby", tip.id);
    const r = link.getBoundingClientRect();
    const width = Math.min(360, window.innerWidth - 16);
    tip.style.width = `${width}px`;
    const left = Math.max(8, Math.min(r.left, window.innerWidth - width - 8));
    const below = r.bottom + 8 + tip.offsetHeight < window.innerHeight;
    tip.style.left = `${left + window.scrollX}px`;
    tip.style.top = `${(below ? r.bottom + 6 : r.top - tip.offsetHeight - 6) + window.scrollY}px`;
  }

  function hide() {
    showing?.removeAttribute("aria-describedby");
    showing = null;
    tip.hidden = true;
  }

  function jump(link) {
    const found = entry(link.dataset.gloss);
    if (!found) return;
    hide();
    backTo = link;
    container.querySelector(".gloss-back").hidden = false;
    found.scrollIntoView({ block: "center" });
    found.focus({ preventScroll: true });
    found.classList.add("flash");
    setTimeout(() => found.classList.remove("flash"), FLASH_MS);
  }

  function goBack() {
    if (backTo?.isConnected) {
      backTo.scrollIntoView({ block: "center" });
      backTo.focus({ preventScroll: true });
    }
    backTo = null;
    container.querySelector(".gloss-back").hidden = true;
  }

  const termOf = (event) => event.target.closest?.("a.gloss[data-gloss]") ?? null;
  root.addEventListener("mouseover", (e) => { const a = termOf(e); if (a && a !== showing) show(a); });
  root.addEventListener("focusin", (e) => { const a = termOf(e); if (a) show(a); });
  root.addEventListener("mouseout", (e) => { if (termOf(e) && !termOf({ target: e.relatedTarget ?? root })) hide(); });
  root.addEventListener("focusout", (e) => { if (termOf(e)) hide(); });
  root.addEventListener("keydown", (e) => { if (e.key === "Escape") hide(); });
  root.addEventListener("click", (e) => {
    const a = termOf(e);
    if (!a) return;
    e.preventDefault(); // the hash is the page's state, not a place
    jump(a);
  });

  return { render, hide };
}
