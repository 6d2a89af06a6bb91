// The figures' shells, built from the server's figure descriptions (GET /api/figures: name,
// number, section, wide — attnlab.figures.registry), so that the page lists no figure itself:
//   <figure class="fig" id="fig-NAME" data-fig="NAME"> FIG n · title · body · caption </figure>
// Each goes after its section's text slot; lib/lesson.js then moves it where the text places it
// and gives it the text's title and caption. Built before the views mount (lib/view.js), with
// the figure's own stylesheet, css/figures/NAME.css (as its view is js/figures/NAME.js).

import { html } from "./svg.js";

/**
 * Link each figure's stylesheet after the shared ones (before lesson.css, which may override
 * them); resolves when all have loaded or failed. The page's bundle (link[data-bundle],
 * widgets/page.mjs) holds them already, in that place.
 */
export function linkStyles(list, root = document) {
  if (root.querySelector("link[data-bundle]")) return Promise.resolve([]);
  const anchor = root.querySelector('link[href$="/css/panels.css"]');
  let last = anchor;
  return Promise.all(list.map((f) => new Promise((resolve) => {
    const link = html("link", { rel: "stylesheet", href: `/static/css/figures/${f.name}.css` });
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve); // the figure still works, unstyled
    last.after(link);
    last = link;
  })));
}

/** Put one shell per figure into the page; returns the <figure> elements in lesson order. */
export function buildShells(list, root = document) {
  return list.map((f) => {
    const fig = html("figure", { class: f.wide ? "fig fig-wide" : "fig", id: `fig-${f.name}`,
      "data-fig": f.name, "aria-labelledby": `fig-${f.name}-title` });
    const head = html("div", { class: "fig-head" }, fig);
    html("span", { class: "fig-num", text: `FIG ${f.number}` }, head);
    head.append(" ");
    html("span", { class: "fig-title", id: `fig-${f.name}-title` }, head);
    html("div", { class: "fig-body" }, fig);
    html("figcaption", {}, fig);
    const section = root.querySelector(`#s-${f.section}`);
    const after = [...section.querySelectorAll("figure.fig[data-fig]")].pop() ?? section.querySelector(".prose");
    after.after(fig);
    return fig;
  });
}

/** name → "FIG n"'s n, for the lines that name a figure (try-its, link notices). */
export const figureNumbers = (list) => Object.freeze(Object.fromEntries(list.map((f) => [f.name, f.number])));
