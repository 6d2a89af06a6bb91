// Saying a view's new readouts to screen readers (ctx.announce) only after the reader changed
// something, and only once the drawing has settled: a slider drag or an animation redraws many
// times a second, and the page load itself should stay quiet.

/**
 * announce: ctx.announce. Call arm() when the reader acts; say(text) after each redraw — the
 * text of the last redraw is spoken `delay` ms after redraws stop, once per arm().
 * Returns {arm(), say(text | () => text), cancel()}.
 */
export function settledAnnouncer(announce, { delay = 400 } = {}) {
  let armed = false;
  let timer = null;
  return {
    arm() {
      armed = true;
    },
    say(text) {
      if (!armed) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        armed = false;
        announce(typeof text === "function" ? text() : text);
      }, delay);
    },
    cancel() {
      clearTimeout(timer);
    },
  };
}
