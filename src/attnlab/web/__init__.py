"""The local lesson server: `create_app()` builds it, `attnlab serve` runs it.

HTTP: `/` the page, `/static/...` its files, `/api/figures[/NAME]` figure data, `/api/claims`
the lesson's numbers; WebSocket `/ws/train` FIG 2's live training. The contract between this
server and the page is written down in briefs/web_contract.md.
"""

from __future__ import annotations

from attnlab.web.app import create_app
from attnlab.web.config import WebSettings

__all__ = ["WebSettings", "create_app"]
