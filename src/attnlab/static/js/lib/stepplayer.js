// ◀ ▶ and Play/Pause for a figure that steps through numbered states 0 … last (FIG 8's tiles):
// real buttons, so keyboard and screen readers work, and a timer that moves one step per beat.
// The view keeps its own state; the player only asks where it is and asks it to move.

import { button } from "./controls.js";

/**
 * Build the buttons in `parent`. at() → the step drawn now; last() → the last step (null while
 * unknown); go(step) moves the view; busy() → true while the view waits for an answer (the
 * timer then skips a beat); label(key) → "back" | "forward" | "play" | "pause" in the current
 * language. Returns {sync(), stop(), playing(), destroy()}; call sync() after every redraw.
 */
export function stepPlayer(parent, { at, last, go, busy = () => false, label, beatMs = 800 }) {
  let timer = null;
  const backBtn = button(parent, { label: "◀", onClick: () => go(at() - 1) });
  const fwdBtn = button(parent, { label: "▶", onClick: () => go(at() + 1) });
  const playBtn = button(parent, { label: label("play"), className: "primary", onClick: toggle });
  const end = () => last() ?? 0;

  function stop() {
    clearInterval(timer);
    timer = null;
    sync();
  }

  function toggle() {
    if (timer) return stop();
    if (at() >= end()) go(0);
    timer = setInterval(() => {
      if (busy()) return; // the last step's answer first
      if (at() >= end()) stop();
      else go(at() + 1);
    }, beatMs);
    return sync();
  }

  function sync() {
    if (timer && !busy() && at() >= end()) {
      clearInterval(timer); // the last step is in: nothing more to play
      timer = null;
    }
    // never disabled while an answer is pending: a focused button that is disabled drops focus
    backBtn.disabled = at() <= 0;
    fwdBtn.disabled = at() >= end();
    playBtn.textContent = label(timer ? "pause" : "play");
    playBtn.setAttribute("aria-pressed", String(Boolean(timer)));
    backBtn.setAttribute("aria-label", label("back"));
    fwdBtn.setAttribute("aria-label", label("forward"));
  }

  sync();
  return { sync, stop, playing: () => Boolean(timer), destroy: () => clearInterval(timer) };
}
