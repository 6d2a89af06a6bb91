"""The tests' slow server: figure answers wait `figure_delay_s`, bounded, and nothing else does."""

from __future__ import annotations

import time

import pytest

from attnlab.web import WebSettings, figure_delay
from attnlab.web.config import MAX_FIGURE_DELAY_S


def test_a_figure_answer_waits_the_delay(make_client) -> None:
    client = make_client(figure_delay_s=0.3)
    start = time.monotonic()
    assert client.get("/api/figures/lookup").status_code == 200
    assert time.monotonic() - start >= 0.3  # a lower bound: slowness only adds to it


@pytest.mark.parametrize(
    ("kind", "path", "waits"),
    [
        ("http", "/api/figures/lookup", True),
        ("http", "/api/figures/kv-cache", True),
        ("http", "/api/figures", False),  # the list
        ("http", "/api/lesson/en", False),
        ("http", "/", False),
        ("websocket", "/ws/train", False),
    ],
)
def test_only_a_figure_s_data_waits(kind: str, path: str, waits: bool) -> None:
    assert figure_delay.delayed({"type": kind, "path": path}) is waits


@pytest.mark.parametrize("delay", [-0.1, MAX_FIGURE_DELAY_S + 0.1])
def test_the_delay_is_bounded(delay: float) -> None:
    with pytest.raises(ValueError, match="figure_delay_s"):
        WebSettings(figure_delay_s=delay)
