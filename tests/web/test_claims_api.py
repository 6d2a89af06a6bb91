"""`/api/claims`: the lesson's numbers, as `attnlab.claims.run_claims` measures them."""

from __future__ import annotations

import pytest

from attnlab.claims import run_claims
from attnlab.plain import plain

FAST = "F1.1,F3.3"  # two quick checks from different figures


def test_selected_claims_are_the_registry_s_results(client) -> None:
    answer = client.get("/api/claims", params={"only": FAST})
    assert answer.status_code == 200
    expected = plain([r.to_dict() for r in run_claims(FAST.split(","), False)])
    assert answer.json() == expected
    assert [c["id"] for c in expected] == ["F1.1", "F3.3"]
    fields = {"id", "statement", "lesson", "measured", "ok", "condition", "values"}
    assert set(expected[0]) == fields
    assert client.get("/api/claims", params={"only": FAST, "full": "false"}).json() == expected


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ({"only": "F1.1,F99.1"}, "only"),
        ({"only": "<script>"}, "only"),
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
