// The page's whole state in ONE object, saved to the URL hash and restored from it:
//   { lang: "en" | "zh", figs: { lookup: {...settings}, training: {...}, ... } }
// A shared link therefore reproduces the same figures, seeds and settings. Defaults come from the
// server's parameter descriptions (GET /api/figures → Param.describe()), plus the few view-only
// settings a view declares itself (e.g. FIG 2's task and heads, which go over the socket).
// The hash holds only values that differ from the defaults, e.g.
//   #lang=zh&training.task=vector&training.heads=2&lookup.q=1.5,0.2

export const LANGS = Object.freeze(["en", "zh"]);

// Text is read as attnlab.params reads it (tests/cases/settings.json holds the two together):
// a number is a decimal literal (Python's float(): digits may be grouped with "_"), a boolean
// is true/false/1/0 in any case, and spaces around a value do not count.
const DECIMAL = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const BOOL_TEXT = Object.freeze({ true: true, 1: true, false: false, 0: false });

/** A number from a JSON number or a decimal text, else NaN. */
function readNumber(x) {
  if (typeof x === "number") return x;
  const text = typeof x === "string" ? x.trim() : "";
  return DECIMAL.test(text) ? Number(text.replace(/_/g, "")) : NaN;
}

/**
 * A checked value for one parameter description (`{name, kind, default, min, max, choices,
 * length}`), or `undefined` when `raw` does not fit (then the default stays).
 */
export function coerce(spec, raw) {
  const inRange = (x) => Number.isFinite(x) && !(spec.min !== undefined && x < spec.min)
    && !(spec.max !== undefined && x > spec.max);
  switch (spec.kind) {
    case "int": {
      const x = readNumber(raw);
      return Number.isInteger(x) && inRange(x) ? x : undefined;
    }
    case "float": {
      const x = readNumber(raw);
      return inRange(x) ? x : undefined;
    }
    case "bool":
      if (typeof raw === "boolean") return raw;
      if (typeof raw !== "string") return undefined;
      return Object.hasOwn(BOOL_TEXT, raw.trim().toLowerCase()) ? BOOL_TEXT[raw.trim().toLowerCase()] : undefined;
    case "choice":
      return (spec.choices ?? []).find((c) => c === raw || String(c) === String(raw).trim());
    case "vector": {
      const items = Array.isArray(raw) ? raw : String(raw).replace(/ /g, "").split(",").filter((s) => s !== "");
      const xs = items.map(readNumber);
      return xs.length === spec.length && xs.every(inRange) ? xs : undefined;
    }
    default:
      return undefined;
  }
}

/** A value as it appears in a URL: vectors comma-separated, floats without float noise. */
export function encodeValue(value) {
  const one = (x) => (typeof x === "number" ? String(+x.toPrecision(6)) : String(x));
  return Array.isArray(value) ? value.map(one).join(",") : one(value);
}

function same(a, b) {
  return encodeValue(a) === encodeValue(b);
}

/** decodeURIComponent, or undefined for text cut in the middle of an escape ("%E0%A4%A", "%"). */
function decode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The language as a parameter description, so a bad `lang=` is reported like any setting. */
export const LANG_SPEC = Object.freeze({ name: "lang", kind: "choice", choices: LANGS, default: "en" });

/**
 * `{lang, figs, problems}` from a hash string. Every piece stands alone: one that is malformed
 * (a broken % escape), unknown or out of its range is left out and reported in `problems`
 * ([{key, given, reason: "malformed" | "unknown" | "invalid" | "unreadable", fig?, spec?}]; key
 * is the setting's name when it could be read; "unreadable": no `key=value` at all), and every
 * other piece is kept.
 */
export function decodeHash(hash, specs) {
  const out = { lang: undefined, figs: {}, problems: [] };
  const text = hash.replace(/^#/, "");
  if (!text.includes("=")) {
    // a place on the page (#s-why), unless it cannot even be read (a link cut mid-escape: #%%)
    if (text && decode(text) === undefined) out.problems.push({ key: text, reason: "unreadable" });
    return out;
  }
  for (const part of text.split("&")) {
    const eq = part.indexOf("=");
    if (eq < 0) {
      if (part) out.problems.push({ key: part, reason: "unreadable" }); // "&junk&": no setting=value
      continue;
    }
    const piece = readPiece(part.slice(0, eq), part.slice(eq + 1), specs);
    if (piece.problem) out.problems.push(piece.problem);
    else if (piece.fig === null) out.lang = piece.value;
    else (out.figs[piece.fig] ??= {})[piece.spec.name] = piece.value;
  }
  return out;
}

/** One `key=value` piece → {fig, spec, value} (fig null for the language) or {problem}. */
function readPiece(rawKey, rawValue, specs) {
  const key = decode(rawKey);
  if (key === undefined) return { problem: { key: rawKey, given: rawValue, reason: "malformed" } };
  const [fig, name] = key === "lang" ? [null, "lang"] : splitKey(key);
  const list = fig !== null && Object.hasOwn(specs, fig) ? specs[fig] : []; // not "constructor" & co.
  const spec = fig === null ? LANG_SPEC : list.find((p) => p.name === name);
  if (!spec) return { problem: { key, given: rawValue, reason: "unknown" } };
  const raw = decode(rawValue);
  const value = raw === undefined ? undefined : coerce(spec, raw);
  if (value === undefined) {
    return { problem: { key, fig, spec, given: raw ?? rawValue, reason: raw === undefined ? "malformed" : "invalid" } };
  }
  return { fig, spec, value };
}

/** "training.heads" → ["training", "heads"] (the first dot separates figure and setting). */
function splitKey(key) {
  const dot = key.indexOf(".");
  return dot < 0 ? [key, ""] : [key.slice(0, dot), key.slice(dot + 1)];
}

/** The hash for a state: language first, then every non-default setting in figure order. */
export function encodeHash(state, specs) {
  const parts = [`lang=${state.lang}`];
  for (const [fig, list] of Object.entries(specs)) {
    const settings = state.figs[fig] ?? {};
    for (const spec of list) {
      const value = settings[spec.name];
      if (value === undefined || same(value, spec.default)) continue;
      const text = encodeURIComponent(encodeValue(value)).replace(/%2C/g, ",");
      parts.push(`${encodeURIComponent(fig)}.${spec.name}=${text}`);
    }
  }
  return `#${parts.join("&")}`;
}

/** Default settings of every figure from its parameter descriptions. */
export function defaults(specs) {
  const figs = {};
  for (const [fig, list] of Object.entries(specs)) {
    figs[fig] = Object.fromEntries(list.map((p) => [p.name, structuredClone(p.default)]));
  }
  return figs;
}

/**
 * The state store. specs: `{figName: [param descriptions]}`; hash: the URL hash (it wins over
 * the defaults; what it holds that cannot be used is in linkProblems()); lang: the language to
 * use when the hash names none.
 * set(fig, partial) keeps only values that fit their description; subscribers receive
 * `{kind: "settings", fig, changed: [names]}` or `{kind: "lang"}`.
 */
export function createStore(specs, { hash = "", lang = "en" } = {}) {
  const fromHash = decodeHash(hash, specs);
  let problems = fromHash.problems; // what the last link held that could not be used
  const state = { lang: fromHash.lang ?? lang, figs: defaults(specs) };
  for (const [fig, values] of Object.entries(fromHash.figs)) Object.assign(state.figs[fig], values);
  const subscribers = new Set();
  const notify = (event) => subscribers.forEach((fn) => fn(event, state));

  return {
    state,
    specs,
    settings: (fig) => state.figs[fig] ?? {},
    hash: () => encodeHash(state, specs),
    /** The pieces of the last link (the first hash, or the last load()) that were left out. */
    linkProblems: () => problems,
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    set(fig, partial) {
      const list = specs[fig] ?? [];
      const current = (state.figs[fig] ??= {});
      const changed = [];
      for (const [name, raw] of Object.entries(partial)) {
        const spec = list.find((p) => p.name === name);
        const value = spec ? coerce(spec, raw) : undefined;
        if (value === undefined || same(value, current[name])) continue;
        current[name] = value;
        changed.push(name);
      }
      if (changed.length) notify({ kind: "settings", fig, changed });
      return changed;
    },
    setLang(next) {
      if (!LANGS.includes(next) || next === state.lang) return;
      state.lang = next;
      notify({ kind: "lang" });
    },
    /** Replace the state from a new hash (the reader pasted a link); returns changed figures. */
    load(newHash) {
      const next = decodeHash(newHash, specs);
      problems = next.problems;
      const base = defaults(specs);
      const changedFigs = [];
      for (const fig of Object.keys(specs)) {
        const merged = { ...base[fig], ...(next.figs[fig] ?? {}) };
        if (encodeHash({ lang: "", figs: { [fig]: merged } }, { [fig]: specs[fig] })
          !== encodeHash({ lang: "", figs: { [fig]: state.figs[fig] } }, { [fig]: specs[fig] })) {
          state.figs[fig] = merged;
          changedFigs.push(fig);
        }
      }
      changedFigs.forEach((fig) => notify({ kind: "settings", fig, changed: ["*"] }));
      if (next.lang && next.lang !== state.lang) this.setLang(next.lang);
      return changedFigs;
    },
  };
}
