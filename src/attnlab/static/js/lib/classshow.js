// What a learner sees of the class: the seat ("Seat 7", and a name to type for the teacher,
// optional), and what the teacher shows everyone (attnlab.classroom.show): "FIG 3 at
// d_k = 256" or a try-it. The page offers to go there; with the teacher's "follow me" it goes
// at once. Going sets the figure's settings through the ONE state (lib/state.js: the same
// checks as a link) and scrolls there. The learner can always go back to where they were,
// and stop following; nothing here is sent anywhere but the name the learner types.

import { encodeValue } from "./state.js";
import { clear, html } from "./svg.js";

/** "FIG 3 (d_k = 256)": the teacher's message in words. */
export function showText(msg) {
  const settings = Object.entries(msg.settings ?? {}).map(([k, v]) => `${k} = ${encodeValue(v)}`).join(", ");
  return settings ? `FIG ${msg.number} (${settings})` : `FIG ${msg.number}`;
}

/**
 * The class box, fixed at the page's corner and hidden until the page has a seat.
 * onName(name): the learner typed a name. Returns {message(msg), relabel()}.
 */
export function createClassShow({ t, store, onName }) {
  const box = html("section", { class: "class-show", hidden: true, "data-class": "" });
  document.body.append(box);
  // The link notice is docked at the bottom too: it stands above this box (CSS --class-show-space:
  // the box's height, its own gap to the edge, and a gap between them; 0 while it is hidden).
  const GAP_PX = 8;
  new ResizeObserver(() => {
    const space = box.hidden ? 0 : box.offsetHeight + parseFloat(getComputedStyle(box).bottom) + GAP_PX;
    document.documentElement.style.setProperty("--class-show-space", `${Math.ceil(space)}px`);
  }).observe(box);
  let seat = null; // {number, name}
  let offer = null; // the teacher's latest message not yet acted on
  let following = true; // the learner has not said "stop following"
  let went = null; // {msg, from: scrollY before going}

  function go(msg) {
    const from = window.scrollY;
    store.set(msg.figure, msg.settings ?? {});
    const target = document.getElementById(msg.try ? `try-${msg.try}` : `fig-${msg.figure}`);
    target?.scrollIntoView({ block: "start" });
    target?.focus?.({ preventScroll: true });
    went = { msg, from };
    offer = null;
    render();
  }

  function button(parent, role, label, onClick) {
    html("button", { type: "button", class: "btn", "data-role": role, text: label }, parent)
      .addEventListener("click", onClick);
  }

  // built once: re-drawing the news must not take the name field from under the learner's typing
  const seatLine = html("div", { class: "class-show-seat" }, box);
  const seatLabel = html("span", { "data-role": "class-seat" }, seatLine);
  const nameLabel = html("label", {}, seatLine);
  const nameText = html("span", { class: "sr-only" }, nameLabel);
  const nameInput = html("input", { type: "text", maxlength: 24, autocomplete: "off", "data-role": "class-name" }, nameLabel);
  nameInput.addEventListener("change", () => onName(nameInput.value));
  const news = html("p", { class: "class-show-news", role: "status" }, box);
  const actions = html("div", { class: "class-show-actions" }, box);

  function render() {
    box.hidden = !seat;
    if (!seat) return;
    box.setAttribute("aria-label", t("class.label"));
    seatLabel.textContent = t("class.seat", { n: seat.number });
    nameText.textContent = t("class.nameLabel");
    nameInput.placeholder = t("class.namePlaceholder");
    clear(actions);
    news.textContent = "";
    delete box.dataset.offer;
    if (offer) {
      box.dataset.offer = offer.id;
      news.textContent = offer.seed !== undefined ? t("class.seeds", { seed: offer.seed, steps: offer.steps })
        : t(offer.try ? "class.offerTry" : "class.offer", { what: showText(offer) });
      button(actions, "class-go", t("class.go"), () => go(offer));
      button(actions, "class-not-now", t("class.notNow"), () => { offer = null; render(); });
    } else if (went) {
      box.dataset.at = went.msg.id;
      const followed = went.msg.follow && following;
      news.textContent = t(followed ? "class.following" : "class.there", { what: showText(went.msg) });
      button(actions, "class-back", t("class.back"), () => { window.scrollTo({ top: went.from }); went = null; render(); });
      if (followed) button(actions, "class-stop", t("class.stopFollowing"), () => { following = false; render(); });
    }
  }

  return {
    message(msg) {
      if (msg.type === "seat") {
        seat = { number: msg.number, name: msg.name };
        if (document.activeElement !== nameInput) nameInput.value = msg.name ?? "";
      }
      else if (msg.type === "show" && msg.follow && following) return go(msg);
      else if (msg.type === "show") offer = msg;
      else if (msg.type === "seeds" && seat && Number.isInteger(msg.seeds?.[String(seat.number)])) {
        // FIG 2 trains the seat's seed meanwhile (lib/classseeds.js); going there is the learner's choice
        offer = { id: msg.id, figure: "training", number: 2, settings: {}, seed: msg.seeds[String(seat.number)], steps: msg.steps };
      }
      render();
    },
    relabel: render,
  };
}
