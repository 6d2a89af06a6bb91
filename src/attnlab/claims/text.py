"""The claims' sentences as a terminal shows them (`attnlab reproduce`, its --json).

A check states its condition once, as the catalogue's template (`claimcondition.F2.2` in
static/i18n/en.json, `claimcondition.F2.2.sweep` for a seed sweep's result), with its thresholds
as `{{F2.2.race_cm}}` slots filled from the values the check returns: the page fills the same
template in either language, `condition()` fills the English one here. `plain_text()` turns the
lesson's inline TeX (`$d_k \\ge 256$`) into Unicode (dₖ ≥ 256) for a terminal.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from attnlab.lesson.blocks import PLACEHOLDER_RE as SLOT
from attnlab.lesson.values import format_value

CATALOGUE = Path(__file__).parents[1] / "static" / "i18n" / "en.json"
# SLOT: {{F2.2.steps}} or {{F2.2.mlp_cm:.0f}}, the lesson's own placeholder syntax, not a copy


@lru_cache(maxsize=1)
def catalogue() -> dict[str, str]:
    return json.loads(CATALOGUE.read_text("utf-8"))


def condition_key(cid: str, values: Mapping[str, Any]) -> str:
    """The catalogue key of a result's condition: a seed sweep's (its values count `n_seeds`)
    has a sentence of its own. static/js/lib/claimspanel.js picks the same key."""
    return f"claimcondition.{cid}" + (".sweep" if "n_seeds" in values else "")


def fill(template: str, cid: str, values: Mapping[str, Any]) -> str:
    """A catalogue sentence with its slots filled; a slot the check does not return is an error."""

    def value(m: re.Match[str]) -> str:
        if m[1] != cid or m[2] not in values:
            raise KeyError(f"{cid}: the sentence names {m[0]}, which the check does not return")
        return format_value(values[m[2]], m[3])

    return SLOT.sub(value, template)


def condition(cid: str, values: Mapping[str, Any]) -> str:
    """The condition a check holds itself to, in English, its thresholds filled from `values`."""
    return plain_text(fill(catalogue()[condition_key(cid, values)], cid, values))


# --- inline TeX as Unicode --------------------------------------------------------------------

# Relations stand between spaces; other symbols close up (2·L·n, 3.8×10⁴, ~10⁻¹⁶).
RELATIONS = {"ge": "≥", "le": "≤", "ne": "≠", "approx": "≈", "leftarrow": "←", "to": "→"}
SYMBOLS = {
    "alpha": "α", "varepsilon": "ε", "omega": "ω", "Delta": "Δ", "sum": "Σ", "partial": "∂",
    "sim": "~", "times": "×", "cdot": "·", "ldots": "…", "|": "‖", ",": " ", ";": " ",
    "lceil": "⌈", "rceil": "⌉",
    **{name: f" {sign} " for name, sign in RELATIONS.items()},
}  # fmt: skip
SUPER = dict(zip("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", strict=True))
SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
# \mathbf{q}, \mathrm q, \hat{y}, \sqrt{64}, x^{-16}, d_k: a command or script with its argument
ARG = r"(?:\{([^{}]*)\}|\\([A-Za-z]+)|([^\s\\{}]))"
FONT = re.compile(r"\\(?:mathbf|mathrm|text|boldsymbol)\s*" + ARG)
HAT = re.compile(r"\\hat\s*" + ARG)
SQRT = re.compile(r"\\sqrt\s*" + ARG)
SCRIPT = re.compile(r"([_^])" + ARG)
COMMAND = re.compile(r"\\([A-Za-z]+) ?|\\(.)")  # a space ends a command's name
MATH = re.compile(r"\$([^$]*)\$")


def _arg(m: re.Match[str], first: int) -> str:
    braced, command, char = m[first], m[first + 1], m[first + 2]
    return braced if braced is not None else f"\\{command}" if command else char


def _script(m: re.Match[str]) -> str:
    body = _tex(_arg(m, 2))
    table = SUPER if m[1] == "^" else SUB
    if all(c in table for c in body):
        return "".join(table[c] for c in body)
    return f"{m[1]}({body})" if len(body) > 1 else f"{m[1]}{body}"


def _root(m: re.Match[str]) -> str:
    body = _tex(_arg(m, 1))
    return f"√{body}" if body.isalnum() else f"√({body})"


def _tex(tex: str) -> str:
    """One formula's TeX as Unicode text (unknown commands are kept, backslash and all)."""
    tex = COMMAND.sub(lambda m: SYMBOLS.get(m[1] or m[2], m[0]), tex)
    tex = FONT.sub(lambda m: _arg(m, 1), tex)
    tex = HAT.sub(lambda m: _tex(_arg(m, 1)) + "\u0302", tex)
    tex = SQRT.sub(_root, tex)
    tex = SCRIPT.sub(_script, tex)
    return re.sub(" +", " ", tex.replace("{", "").replace("}", ""))


def plain_text(text: str) -> str:
    """A sentence with inline math ($…$) as Unicode: `$\\sqrt{64} = 8$` → `√64 = 8`."""
    text = MATH.sub(lambda m: _tex(m[1]).replace("-", "−"), text)
    return unicodedata.normalize("NFC", re.sub("  +", " ", text))  # y + ̂ → ŷ where one exists
