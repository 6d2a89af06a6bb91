"""A slow server for tests: every figure request waits `WebSettings.figure_delay_s` first.

The page's drags must not pile requests up however slowly the server answers (issue 19); an
end-to-end test proves it against a server that takes 200 ms a request. Only tests set the
delay (it has no CLI flag or environment variable, and WebSettings bounds it); at 0 the app
does not add this middleware at all.
"""

from __future__ import annotations

from asyncio import sleep

from starlette.types import ASGIApp, Receive, Scope, Send

FIGURE_PATHS = "/api/figures/"  # one figure's data; the list (/api/figures) is not delayed


def delayed(scope: Scope) -> bool:
    """Whether this request waits: one figure's data, not the list nor anything else."""
    return scope["type"] == "http" and scope["path"].startswith(FIGURE_PATHS)


class FigureDelay:
    def __init__(self, app: ASGIApp, delay_s: float) -> None:
        self.app, self.delay_s = app, delay_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if delayed(scope):
            await sleep(self.delay_s)
        await self.app(scope, receive, send)
