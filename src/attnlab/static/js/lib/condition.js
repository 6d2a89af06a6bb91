// The "try it" condition language (lesson §2–§6): small expressions evaluated on a figure's live
// data, e.g.  settings.mode == "softmax" and max(weights) > 0.9. The same grammar as
// src/attnlab/lesson/conditions.py, and held to the same answers by tests/e2e/test_shared_cases.py:
// dotted paths (a path through a list maps over it; a number picks an item), numbers, "strings",
// true/false, unary minus, functions max min count abs last at len, comparisons > >= < <= == !=
// (element-wise against a list), and, or, parentheses. A recursive-descent parser, never eval().
// Missing data (null/undefined) makes a condition false.

export class ConditionError extends Error {
  constructor(message) {
    super(message);
    this.name = "ConditionError";
  }
}

const TOKEN = /\s*(?:((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|("[^"]*")|([A-Za-z_]\w*(?:\.\w+)*)|(>=|<=|==|!=|[<>(),-]))/y;
const KINDS = ["num", "str", "name", "op"];
const FUNCTIONS = { max: 1, min: 1, count: 1, abs: 1, last: 1, at: 2, len: 1 };
const COMPARE = [">=", "<=", "==", "!=", ">", "<"];
const show = (x) => JSON.stringify(x) ?? String(x);

function tokens(text) {
  const out = [];
  const end = text.trimEnd().length;
  let pos = 0;
  while (pos < end) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m || TOKEN.lastIndex === pos) throw new ConditionError(`cannot read ${show(text.slice(pos).trim())} in ${show(text)}`);
    const i = [1, 2, 3, 4].find((g) => m[g] !== undefined);
    out.push([KINDS[i - 1], m[i]]);
    pos = TOKEN.lastIndex;
  }
  return out;
}

/** Recursive descent: or → and → comparison → unary → primary. Nodes are arrays. */
function parser(text) {
  const toks = tokens(text);
  let i = 0;
  const peek = () => (i < toks.length ? toks[i][1] : null);
  const take = (want = null) => {
    if (i >= toks.length || (want && toks[i][1] !== want)) throw new ConditionError(`expected ${want ?? "more"} in ${show(text)}`);
    return toks[i++];
  };
  function or() {
    let node = and();
    while (peek() === "or") { take(); node = ["or", node, and()]; }
    return node;
  }
  function and() {
    let node = cmp();
    while (peek() === "and") { take(); node = ["and", node, cmp()]; }
    return node;
  }
  function cmp() {
    let node = unary();
    if (COMPARE.includes(peek())) {
      node = ["cmp", take()[1], node, unary()];
      if (COMPARE.includes(peek())) throw new ConditionError(`chained comparison in ${show(text)}; use 'and'`);
    }
    return node;
  }
  function unary() {
    if (peek() === "-") { take(); return ["neg", unary()]; }
    return primary();
  }
  function primary() {
    const [kind, tok] = take();
    if (kind === "num") return ["lit", Number(tok)];
    if (kind === "str") return ["lit", tok.slice(1, -1)];
    if (tok === "(") {
      const node = or();
      take(")");
      return node;
    }
    if (kind !== "name" || tok === "and" || tok === "or") throw new ConditionError(`unexpected ${show(tok)} in ${show(text)}`);
    if (tok === "true" || tok === "false") return ["lit", tok === "true"];
    if (peek() !== "(") return ["path", tok.split(".")];
    if (!(tok in FUNCTIONS)) throw new ConditionError(`unknown function ${tok}(); one of ${Object.keys(FUNCTIONS).join(", ")}`);
    take("(");
    const args = [or()];
    while (peek() === ",") { take(); args.push(or()); }
    take(")");
    if (args.length !== FUNCTIONS[tok]) throw new ConditionError(`${tok}() takes ${FUNCTIONS[tok]} argument(s) in ${show(text)}`);
    return ["call", tok, args];
  }
  const node = or();
  if (i !== toks.length) throw new ConditionError(`unexpected ${show(peek())} in ${show(text)}`);
  return node;
}

/** A reader of conditions with its own cache of syntax trees: {parse, evaluate}. */
export function conditions() {
  const trees = new Map();
  const parse = (text) => {
    if (!trees.has(text)) {
      if (!String(text).trim()) throw new ConditionError("empty condition");
      trees.set(text, parser(text));
    }
    return trees.get(text);
  };
  return {
    parse,
    /** Is the condition met by `data`? Missing data counts as not met; nonsense throws. */
    evaluate(text, data) {
      const result = run(parse(text), data);
      if (result === null || result === undefined || typeof result === "boolean") return Boolean(result);
      throw new ConditionError(`${show(text)} gives ${show(result)}, not true or false`);
    },
  };
}

const isNum = (x) => typeof x === "number";
const isList = Array.isArray;
const isMap = (x) => x !== null && typeof x === "object" && !isList(x);
const flat = (x) => (isList(x) ? x.flatMap(flat) : [x]);

function path(data, segments) {
  for (const seg of segments) {
    if (isMap(data)) data = Object.hasOwn(data, seg) ? data[seg] : null;
    else if (isList(data)) {
      if (/^\d+$/.test(seg)) data = Number(seg) < data.length ? data[Number(seg)] : null;
      else data = data.map((item) => path(item, [seg]));
    } else return null;
  }
  return data ?? null;
}

function same(a, b) {
  if (isNum(a) && isNum(b)) return a === b;
  if (typeof a !== typeof b || isList(a) !== isList(b)) return false;
  if (isMap(a)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

function compare(op, a, b) {
  if (isList(a) || isList(b)) {
    if (isList(a) && isList(b)) throw new ConditionError("cannot compare two lists; compare max(), min() or count()");
    return isList(a) ? a.map((x) => compare(op, x, b)) : b.map((y) => compare(op, a, y));
  }
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (op === "==" || op === "!=") return same(a, b) === (op === "==");
  if (!(isNum(a) && isNum(b))) throw new ConditionError(`${show(a)} ${op} ${show(b)}: only numbers can be ordered`);
  return { ">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b }[op];
}

function truth(x) {
  if (x === null || x === undefined || typeof x === "boolean") return Boolean(x);
  throw new ConditionError(`'and'/'or' need true or false, got ${show(x)}`);
}

function map(x, f) {
  if (isList(x)) return x.map((y) => map(y, f));
  if (x === null || x === undefined) return null;
  if (!isNum(x)) throw new ConditionError(`${show(x)} is not a number`);
  return f(x);
}

function call(name, args) {
  const x = args[0];
  if (x === null || x === undefined) return null;
  if (name === "abs") return map(x, Math.abs);
  if (name === "count") return flat(x).filter((y) => y === true || (isNum(y) && y !== 0)).length;
  if (!isList(x) && name !== "at") {
    if (name === "max" || name === "min") return map(x, (y) => y);
    throw new ConditionError(`${name}() needs a list, got ${show(x)}`);
  }
  if (name === "max" || name === "min") {
    const nums = flat(x).filter(isNum);
    return nums.length ? Math[name](...nums) : null;
  }
  if (name === "last") return x.length ? x[x.length - 1] : null;
  if (name === "len") return x.length;
  const i = args[1]; // at(x, i); a negative i counts from the end
  if (!isList(x) || !isNum(i) || !Number.isInteger(i)) throw new ConditionError(`at() needs a list and a whole number, got ${show(x)}, ${show(i)}`);
  return i >= -x.length && i < x.length ? x.at(i) : null;
}

function run(node, data) {
  const [kind] = node;
  if (kind === "lit") return node[1];
  if (kind === "path") return path(data, node[1]);
  if (kind === "and" || kind === "or") {
    const left = truth(run(node[1], data));
    if (left === (kind === "or")) return left;
    return truth(run(node[2], data));
  }
  if (kind === "cmp") return compare(node[1], run(node[2], data), run(node[3], data));
  if (kind === "neg") return map(run(node[1], data), (x) => -x);
  return call(node[1], node[2].map((arg) => run(arg, data)));
}
