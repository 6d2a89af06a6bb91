// A status line of the teacher's page ("Sent to everyone: …", "Started: …", "Live") that a
// language switch rewrites: it keeps what to say (a function that asks the current strings),
// not the words said, so a line written before the switch does not stay in the old language.

/** The line in `box`: say(words) shows words() now and again at each relabel(). */
export function statusLine(box) {
  let words = null;
  return {
    say(next) {
      words = next;
      box.textContent = next();
    },
    relabel() {
      if (words) box.textContent = words();
    },
  };
}
