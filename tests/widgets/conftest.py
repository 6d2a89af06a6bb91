"""Widgets without a front-end: what a view would receive is caught by replacing `send`."""

from __future__ import annotations

from typing import Any

import pytest


class Sent(list):
    """Every custom message a widget sent, by channel."""

    def of(self, channel: str) -> list[dict[str, Any]]:
        return [c["message"] for c in self if c["channel"] == channel]


@pytest.fixture
def catch() -> Any:
    """catch(widget) → the list its `send` now appends to (no comm, no kernel)."""

    def attach(widget: Any) -> Sent:
        sent = Sent()
        widget.send = lambda content, buffers=None: sent.append(content)
        return sent

    return attach


def from_view(widget: Any, channel: str, message: dict[str, Any]) -> None:
    """A custom message as the front-end sends it (anywidget's model.send)."""
    widget._on_message(widget, {"channel": channel, "message": message}, [])
