"""`/api/claims`: the lesson's numbers, as `attnlab.claims.run_claims` measures them — answered
by the claims runner at once: 200 with what is measured, 202 (ask again) while it measures."""

from __future__ import annotations

import time
from typing import Any

import pytest

from attnlab.claims import run_claims
from attnlab.plain import plain

FAST = "F1.1,F3.3"  # two quick checks from different figures
WAIT_S = 60.0


def _poll(client: Any, params: dict[str, str]) -> Any:
    """GET /api/claims until it answers 200 (each 202 says to ask again), within WAIT_S."""
    end = time.monotonic() + WAIT_S
    while True:
        answer = client.get("/api/claims", params=params)
        if answer.status_code != 202 or time.monotonic() > end:
            return answer
        assert answer.headers["retry-after"] == "1"
        assert set(answer.json()["pending"]) <= set(params.get("only", "").split(","))
        time.sleep(0.05)


def test_selected_claims_are_the_registry_s_results(client) -> None:
    answer = _poll(client, {"only": FAST})
    assert answer.status_code == 200
    expected = plain([r.to_dict() for r in run_claims(FAST.split(","), False)])
    assert answer.json() == expected
    assert [c["id"] for c in expected] == ["F1.1", "F3.3"]
    fields = {"id", "statement", "lesson", "measured", "ok", "condition", "values"}
    assert set(expected[0]) == fields
    again = client.get("/api/claims", params={"only": FAST, "full": "false"})
    assert again.status_code == 200 and again.json() == expected  # measured: answered at once


def test_a_full_request_is_queued_not_waited_for(client) -> None:
    first = client.get("/api/claims", params={"only": "F4.2", "full": "true"})
    assert first.status_code in (200, 202)  # 202 unless an earlier test measured it
    answer = _poll(client, {"only": "F4.2", "full": "true"})
    assert answer.status_code == 200
    assert answer.json() == plain([r.to_dict() for r in run_claims(["F4.2"], True)])


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ({"only": "F1.1,F99.1"}, "only"),
        ({"only": "<script>"}, "only"),
        ({"only": ""}, "only"),
        ({"only": "F1.1,"}, "only"),
        ({"full": "perhaps"}, "full"),
        ({"full": "1", "verbose": "1"}, "verbose"),
    ],
)
def test_bad_queries_are_refused(client, query, name) -> None:
    answer = client.get("/api/claims", params=query)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["query", name]


def test_a_repeated_option_is_refused(client) -> None:
    answer = client.get("/api/claims?only=F1.1&only=F1.2")
    assert answer.status_code == 422
