""" "Show everyone": a figure's settings are checked against its own ranges, a try-it must be
the lesson's, and only the settings named are sent."""

from __future__ import annotations

import pytest

from attnlab.classroom.show import show_message
from attnlab.params import ParamError


def test_a_figure_at_settings_read_as_a_link_reads_them() -> None:
    msg = show_message({"figure": "scaling", "settings": {"d_k": "256"}, "follow": True})
    shown = (msg["type"], msg["figure"], msg["number"], msg["settings"])
    assert shown == ("show", "scaling", 3, {"d_k": 256})
    assert msg["follow"] is True and msg["try"] is None and len(msg["id"]) == 12


def test_a_try_it_goes_to_its_figure() -> None:
    msg = show_message({"try": "rope-shift"})
    assert (msg["figure"], msg["try"], msg["settings"], msg["follow"]) == (
        "position", "rope-shift", {}, False)  # fmt: skip


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"figure": "scaling", "settings": {"d_k": "99999"}}, "d_k"),
        ({"figure": "scaling", "settings": {"nope": 1}}, "nope"),
        ({"figure": "no-such"}, "figure"),
        ({"try": "no-such"}, "try"),
        ({"figure": "scaling", "try": "rope-shift"}, "body"),
        ({}, "body"),
        ({"figure": "scaling", "follow": "yes"}, "follow"),
        ({"figure": "scaling", "settings": [1]}, "settings"),
    ],
)
def test_what_does_not_fit_is_refused_naming_the_field(body, field: str) -> None:
    with pytest.raises(ParamError) as err:
        show_message(body)
    assert err.value.name == field
