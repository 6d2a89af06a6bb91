"""Who is reading: a tab says it is here (POST /api/presence) and counts for `expiry_s`.

The stated capacity counts readers as well as learners (issue 19), so the server must know how
many pages are open. Each tab sends a random id every ~20 s while it is shown (lib/presence.js);
an id not heard from for `expiry_s` has gone. The table is bounded: past `max_readers` ids the
one heard from longest ago makes room (a script inventing ids can only push readers out early,
never grow the memory).
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable

# what a page sends: 16-64 hexadecimal digits (lib/presence.js makes 32)
READER_ID = re.compile(r"[0-9a-f]{16,64}")


class Presence:
    """Reader id → when it was last heard from (monotonic seconds), oldest first."""

    def __init__(
        self,
        *,
        expiry_s: float,
        max_readers: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if expiry_s <= 0 or max_readers < 1:
            raise ValueError("presence needs expiry_s > 0 and max_readers ≥ 1")
        self.expiry_s, self.max_readers, self.clock = expiry_s, max_readers, clock
        self._heard: OrderedDict[str, float] = OrderedDict()

    def ping(self, reader: str) -> None:
        """`reader` is here now (a malformed id is a ValueError: the route says why)."""
        if not READER_ID.fullmatch(reader):
            raise ValueError("reader: expected 16 to 64 hexadecimal digits (0-9, a-f)")
        self._heard[reader] = self.clock()
        self._heard.move_to_end(reader)
        self._forget()

    def count(self) -> int:
        """Readers heard from within `expiry_s`."""
        self._forget()
        return len(self._heard)

    def _forget(self) -> None:
        # oldest first, so expired ids and ids past the bound are all at the front
        oldest = self.clock() - self.expiry_s
        while self._heard and (
            len(self._heard) > self.max_readers or next(iter(self._heard.values())) < oldest
        ):
            self._heard.popitem(last=False)
