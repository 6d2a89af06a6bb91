// Names for the teacher's bars, from the lesson's own text (GET /api/lesson/LANG): a try-it is
// "FIG 3 · <the first clause of its task>", an exercise "Exercise 2 · <the start of its
// question>". The ids stay the keys; only the words come from here.

const MAX_CHARS = 70;
const CLAUSE_END = /[:：。；;!?！？]|——|\.(?=\s|$)/;

// A label has no room for KaTeX (not loaded here): a formula is shown as its TeX, with the
// commonest commands as their symbols and the other commands dropped ("\\mathbf q" → "q").
const TEX = { cdot: "·", times: "×", sqrt: "√", top: "ᵀ", to: "→", le: "≤", ge: "≥", sum: "Σ" };

function plainTeX(tex) {
  return tex.replace(/\\([a-zA-Z]+)\s*/g, (_, name) => TEX[name] ?? "")
    .replace(/\\[,;:! ]/g, " ") // TeX's spaces ("\,") are spaces here
    .replace(/[{}]/g, "");
}

/** The plain text of a block's HTML, without its markup. */
function plainText(htmlText) {
  const doc = new DOMParser().parseFromString(`<p>${htmlText}</p>`, "text/html");
  for (const math of doc.querySelectorAll(".math")) math.textContent = plainTeX(math.textContent);
  return doc.body.textContent.replace(/\s+/g, " ").trim();
}

function firstWords(blocks) {
  const first = (blocks ?? []).find((b) => typeof b.html === "string");
  if (!first) return "";
  const text = plainText(first.html);
  const end = CLAUSE_END.exec(text);
  const clause = end ? text.slice(0, end.index) : text;
  return clause.length > MAX_CHARS ? `${clause.slice(0, MAX_CHARS - 1)}…` : clause;
}

/** {tries: id → label, exercises: id → label} for the lesson `lesson` (the API's answer). */
export function lessonLabels(lesson, numbers, t) {
  const tries = {};
  const exercises = {};
  let n = 0;
  for (const part of lesson?.parts ?? []) {
    for (const block of part.blocks ?? []) {
      if (block.type === "try") {
        tries[block.id] = `FIG ${numbers[block.figure] ?? "?"} · ${firstWords(block.body)}`;
      } else if (block.type === "exercise") {
        n += 1;
        exercises[block.id] = `${t("teach.exercise", { n })} · ${firstWords(block.question)}`;
      }
    }
  }
  return { tries, exercises };
}
