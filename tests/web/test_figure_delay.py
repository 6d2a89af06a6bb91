"""The tests' slow server: figure answers wait `figure_delay_s`, bounded, and nothing else does."""

from __future__ import annotations

import time

import pytest

from attnlab.web import WebSettings, figure_delay
from attnlab.web.config import MAX_FIGURE_DELAY_S


def test_a_figure_answer_waits_the_delay_and_the_list_does_not(make_client, monkeypatch) -> None:
    waits: list[float] = []
    real_sleep = figure_delay.sleep

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(seconds)

    monkeypatch.setattr(figure_delay, "sleep", sleep)  # the middleware's waits alone
    client = make_client(figure_delay_s=0.3)
    start = time.monotonic()
    assert client.get("/api/figures/lookup").status_code == 200
    assert time.monotonic() - start >= 0.3  # a lower bound: slowness only adds to it
    assert waits == [0.3]
    assert client.get("/api/figures").status_code == 200
    assert waits == [0.3]  # the list waited for nothing


@pytest.mark.parametrize("delay", [-0.1, MAX_FIGURE_DELAY_S + 0.1])
def test_the_delay_is_bounded(delay: float) -> None:
    with pytest.raises(ValueError, match="figure_delay_s"):
        WebSettings(figure_delay_s=delay)
