"""The "try it" condition language: small expressions evaluated on a figure's live data.

A try-it task of the lesson ticks itself when its condition holds for the data the engine
returned, e.g. `settings.mode == "softmax" and max(weights) > 0.9`. Grammar: dotted paths (a path
through a list maps over it), numbers, strings in double quotes, `true`/`false`, functions
max min count abs last at len, comparisons > >= < <= == != (element-wise against a list),
`and`, `or`, parentheses, unary minus. A recursive-descent parser, never eval(): the page
implements the same grammar in JavaScript. Missing data evaluates to false.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any


class ConditionError(ValueError):
    """A condition that does not parse, or that compares things that cannot be compared."""


TOKEN_RE = re.compile(
    r'\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<str>"[^"]*")'
    r"|(?P<name>[A-Za-z_]\w*(?:\.\w+)*)|(?P<op>>=|<=|==|!=|[<>(),-]))"
)
FUNCTIONS = {"max": 1, "min": 1, "count": 1, "abs": 1, "last": 1, "at": 2, "len": 1}
COMPARE = (">=", "<=", "==", "!=", ">", "<")
KEYWORDS = {"and", "or", "true", "false"}


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text.rstrip()):
        m = TOKEN_RE.match(text, pos)
        if not m or m.end() == pos:
            raise ConditionError(f"cannot read {text[pos:].strip()!r} in {text!r}")
        kind = m.lastgroup or ""
        out.append((kind, m[kind]))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent: or → and → comparison → unary → primary. Nodes are tuples."""

    def __init__(self, text: str) -> None:
        self.text, self.toks, self.i = text, _tokens(text), 0

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.toks) or (want and self.toks[self.i][1] != want):
            raise ConditionError(f"expected {want or 'more'} in {self.text!r}")
        self.i += 1
        return self.toks[self.i - 1]

    def parse(self) -> tuple:
        node = self.or_()
        if self.i != len(self.toks):
            raise ConditionError(f"unexpected {self.peek()!r} in {self.text!r}")
        return node

    def or_(self) -> tuple:
        node = self.and_()
        while self.peek() == "or":
            self.take()
            node = ("or", node, self.and_())
        return node

    def and_(self) -> tuple:
        node = self.cmp()
        while self.peek() == "and":
            self.take()
            node = ("and", node, self.cmp())
        return node

    def cmp(self) -> tuple:
        node = self.unary()
        if self.peek() in COMPARE:
            node = ("cmp", self.take()[1], node, self.unary())
            if self.peek() in COMPARE:
                raise ConditionError(f"chained comparison in {self.text!r}; use 'and'")
        return node

    def unary(self) -> tuple:
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        return self.primary()

    def primary(self) -> tuple:
        kind, tok = self.take()
        if kind == "num":
            return ("lit", float(tok))
        if kind == "str":
            return ("lit", tok[1:-1])
        if tok == "(":
            node = self.or_()
            self.take(")")
            return node
        if kind != "name" or tok in ("and", "or"):
            raise ConditionError(f"unexpected {tok!r} in {self.text!r}")
        if tok in ("true", "false"):
            return ("lit", tok == "true")
        if self.peek() != "(":
            return ("path", tuple(tok.split(".")))
        if tok not in FUNCTIONS:
            raise ConditionError(f"unknown function {tok}(); one of {', '.join(FUNCTIONS)}")
        self.take("(")
        args = [self.or_()]
        while self.peek() == ",":
            self.take()
            args.append(self.or_())
        self.take(")")
        if len(args) != FUNCTIONS[tok]:
            raise ConditionError(f"{tok}() takes {FUNCTIONS[tok]} argument(s) in {self.text!r}")
        return ("call", tok, tuple(args))


@lru_cache(maxsize=256)  # the lesson's try-it conditions (a few dozen), parsed once each
def parse_condition(text: str) -> tuple:
    """The syntax tree of a try-it condition; ConditionError if it does not parse."""
    if not text.strip():
        raise ConditionError("empty condition")
    return _Parser(text).parse()


def condition_paths(text: str) -> set[str]:
    """The data paths a condition reads (e.g. {"settings.mode", "weights"})."""

    def walk(node: tuple) -> set[str]:
        if node[0] == "path":
            return {".".join(node[1])}
        kids = node[2] if node[0] == "call" else node[1:]
        return set().union(*(walk(k) for k in kids if isinstance(k, tuple)))

    return walk(parse_condition(text))


def evaluate(condition: str, data: Mapping[str, Any]) -> bool:
    """Is the try-it condition met by the figure's live data? Missing data counts as not met."""
    result = _eval(parse_condition(condition), data)
    if result is None or isinstance(result, bool):
        return bool(result)
    raise ConditionError(f"{condition!r} gives {result!r}, not true or false")


def _is_num(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _flat(x: Any) -> list[Any]:
    return [y for item in x for y in _flat(item)] if isinstance(x, list | tuple) else [x]


def _path(data: Any, segments: tuple[str, ...]) -> Any:
    for seg in segments:
        if isinstance(data, Mapping):
            data = data.get(seg)
        elif isinstance(data, list | tuple):  # a number picks an item; a name maps over items
            if seg.isdigit():
                data = data[int(seg)] if int(seg) < len(data) else None
            else:
                data = [_path(item, (seg,)) for item in data]
        else:
            return None
    return data


def _compare(op: str, a: Any, b: Any) -> Any:
    if isinstance(a, list | tuple) or isinstance(b, list | tuple):
        if isinstance(a, list | tuple) and isinstance(b, list | tuple):
            raise ConditionError("cannot compare two lists; compare max(), min() or count()")
        if isinstance(a, list | tuple):
            return [_compare(op, x, b) for x in a]
        return [_compare(op, a, y) for y in b]
    if a is None or b is None:
        return False
    if op in ("==", "!="):
        same = (a == b) if (_is_num(a) and _is_num(b)) or type(a) is type(b) else False
        return same if op == "==" else not same
    if not (_is_num(a) and _is_num(b)):
        raise ConditionError(f"{a!r} {op} {b!r}: only numbers can be ordered")
    return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]


def _eval(node: tuple, data: Any) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "path":
        return _path(data, node[1])
    if kind in ("and", "or"):
        left = _truth(_eval(node[1], data))
        if left == (kind == "or"):
            return left
        return _truth(_eval(node[2], data))
    if kind == "cmp":
        return _compare(node[1], _eval(node[2], data), _eval(node[3], data))
    if kind == "neg":
        return _map(_eval(node[1], data), lambda x: -x)
    return _call(node[1], [_eval(arg, data) for arg in node[2]])


def _truth(x: Any) -> bool:
    if x is None or isinstance(x, bool):
        return bool(x)
    raise ConditionError(f"'and'/'or' need true or false, got {x!r}")


def _map(x: Any, f: Any) -> Any:
    if isinstance(x, list | tuple):
        return [_map(y, f) for y in x]
    if x is None:
        return None
    if not _is_num(x):
        raise ConditionError(f"{x!r} is not a number")
    return f(x)


def _call(name: str, args: list[Any]) -> Any:
    x = args[0]
    if x is None:
        return None
    if name == "abs":
        return _map(x, abs)
    if name == "count":
        return sum(1 for y in _flat(x) if y is True or (_is_num(y) and y != 0))
    if not isinstance(x, list | tuple) and name != "at":
        if name in ("max", "min"):
            return _map(x, lambda y: y)
        raise ConditionError(f"{name}() needs a list, got {x!r}")
    if name in ("max", "min"):
        nums = [y for y in _flat(x) if _is_num(y)]
        return (max if name == "max" else min)(nums) if nums else None
    if name == "last":
        return x[-1] if x else None
    if name == "len":
        return len(x)
    i = args[1]  # at(x, i); negative i counts from the end
    if not isinstance(x, list | tuple) or not _is_num(i) or int(i) != i:
        raise ConditionError(f"at() needs a list and a whole number, got {x!r}, {i!r}")
    return x[int(i)] if -len(x) <= int(i) < len(x) else None
