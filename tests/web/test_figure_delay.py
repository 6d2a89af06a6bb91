"""The tests' slow server: figure answers wait `figure_delay_s`, bounded, and nothing else does."""

from __future__ import annotations

import time

import pytest

from attnlab.web import WebSettings
from attnlab.web.config import MAX_FIGURE_DELAY_S


def _seconds(client, url: str) -> float:
    start = time.perf_counter()
    assert client.get(url).status_code == 200
    return time.perf_counter() - start


def test_a_figure_answer_waits_the_delay_and_the_list_does_not(make_client) -> None:
    client = make_client(figure_delay_s=0.3)
    _seconds(client, "/api/figures/lookup")  # the first answer also starts the app's work
    assert _seconds(client, "/api/figures/lookup") >= 0.3
    assert _seconds(client, "/api/figures") < 0.3


@pytest.mark.parametrize("delay", [-0.1, MAX_FIGURE_DELAY_S + 0.1])
def test_the_delay_is_bounded(delay: float) -> None:
    with pytest.raises(ValueError, match="figure_delay_s"):
        WebSettings(figure_delay_s=delay)
