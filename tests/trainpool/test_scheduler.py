"""Fair shares: counted in charged seconds, not timed (the scheduler has no clock)."""

from __future__ import annotations

from collections import Counter

from attnlab.trainpool.scheduler import FairShare


def _simulate(share: FairShare, rounds: int, cost: dict[int, float], due) -> Counter:
    """Each round: pick among the sessions `due(r)` names, charge it its chunk's cost."""
    picked: Counter = Counter()
    for r in range(rounds):
        sid = share.pick(due(r))
        if sid is not None:
            picked[sid] += 1
            share.charge(sid, cost[sid])
    return picked


def test_sessions_that_all_want_more_get_equal_time() -> None:
    share = FairShare()
    for sid in (1, 2, 3):
        share.add(sid)
    cost = {1: 0.005, 2: 0.005, 3: 0.010}  # session 3's chunks take twice as long
    picked = _simulate(share, 400, cost, lambda r: [1, 2, 3])
    seconds = {sid: picked[sid] * cost[sid] for sid in cost}
    assert max(seconds.values()) - min(seconds.values()) <= 0.010  # within one chunk
    assert picked[1] == picked[2] == 2 * picked[3]


def test_a_paced_session_is_served_as_soon_as_its_frame_is_due() -> None:
    share = FairShare()
    for sid in (1, 2, 3):  # 1 and 2 unpaced; 3 paced: a frame falls due every 10th round
        share.add(sid)
    cost = {1: 0.005, 2: 0.005, 3: 0.002}
    waited, due_since = [], None
    for r in range(1000):
        if r % 10 == 0:
            due_since = r
        sid = share.pick([1, 2] + ([3] if due_since is not None else []))
        share.charge(sid, cost[sid])
        if sid == 3:
            waited.append(r - due_since)
            due_since = None
    assert len(waited) == 100 and waited[0] <= 2  # at first all are level: one turn each
    assert max(waited[1:]) == 0  # then served at the round its frame falls due: never starved
    assert share.charged(1) - share.charged(2) in (-0.005, 0.0, 0.005)


def test_a_session_that_joins_starts_level_and_takes_no_burst() -> None:
    share = FairShare()
    share.add(1)
    share.charge(1, 5.0)  # session 1 has trained for a while
    share.add(2)
    assert share.charged(2) == share.charged(1)
    picked = _simulate(share, 100, {1: 0.01, 2: 0.01}, lambda r: [1, 2])
    assert abs(picked[1] - picked[2]) <= 1  # no catching up: turns alternate at once


def test_a_resumed_session_cannot_bank_its_pause() -> None:
    share = FairShare()
    share.add(1), share.add(2)
    share.remove(2)  # paused
    share.charge(1, 3.0)
    share.add(2)  # resumed
    assert share.charged(2) == 3.0
    assert share.pick([]) is None and share.pick([7]) is None
