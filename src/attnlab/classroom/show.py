""" "Show everyone": the teacher's choice of a figure and its settings, or of a try-it, checked.

The settings are read as a figure's own settings are (`attnlab.params`: its PARAMS and the
VIEW_PARAMS the page keeps), so "everyone: FIG 3 at d_k = 256" is refused here, with the same
sentence a link would get, if 256 is out of FIG 3's range. Only the settings named are sent:
a learner's others stay as they are.
"""

from __future__ import annotations

import secrets
from typing import Any

from attnlab.classroom.lessonids import lesson_ids
from attnlab.figures import figure_module
from attnlab.figures.registry import by_name, names
from attnlab.params import ParamError, coerce
from attnlab.plain import plain


def show_message(raw: dict[str, Any]) -> dict[str, Any]:
    """{figure, settings?, follow?} or {try, follow?} → the message every page gets.
    ParamError(field, sentence) when something does not fit."""
    unknown = set(raw) - {"figure", "settings", "try", "follow"}
    if unknown or ("figure" in raw) == ("try" in raw):
        raise ParamError("body", 'expected {"figure", "settings", "follow"} or {"try", "follow"}')
    follow = raw.get("follow", False)
    if not isinstance(follow, bool):
        raise ParamError("follow", "expected true or false")
    if "try" in raw:
        figure = dict(lesson_ids().tries).get(raw["try"]) if isinstance(raw["try"], str) else None
        if figure is None:
            raise ParamError("try", "not a try-it of the lesson")
        target = {"figure": figure, "settings": {}, "try": raw["try"]}
    else:
        target = {**figure_settings(raw["figure"], raw.get("settings", {})), "try": None}
    number = by_name(target["figure"]).number
    head = {"type": "show", "id": secrets.token_hex(6), "follow": follow, "number": number}
    return {**head, **target}


def figure_settings(figure: Any, settings: Any) -> dict[str, Any]:
    """{figure, settings} with each named setting checked (text or JSON values)."""
    if not isinstance(figure, str) or figure not in names():
        raise ParamError("figure", f"not a figure; one of {', '.join(names())}")
    if not isinstance(settings, dict):
        raise ParamError("settings", 'expected an object of settings, e.g. {"d_k": 256}')
    module = figure_module(figure)
    known = {p.name: p for p in (*module.PARAMS, *getattr(module, "VIEW_PARAMS", ()))}
    checked = {}
    for name, value in settings.items():
        if name not in known:
            raise ParamError(name, f"unknown setting of {figure}; allowed: {', '.join(known)}")
        source = "text" if isinstance(value, str) else "json"
        checked[name] = coerce(known[name], value, source)
    return {"figure": figure, "settings": plain(checked)}
