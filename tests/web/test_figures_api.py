"""`/api/figures`: every figure's settings and data; bad input is a 422 that names the setting."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attnlab.figures import MODULES, compute_figure, figure_modules
from attnlab.figures.registry import FIGURES as REGISTRY

FIGURES = figure_modules()
NAMES = list(FIGURES)


def _query(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(repr(float(x)) for x in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_declared_figure_is_served() -> None:
    # The lead ensures every figure module exists; a missing one is a failure, not a skip.
    assert list(MODULES) == NAMES


def test_listing_gives_each_figure_its_params(client) -> None:
    listing = client.get("/api/figures").json()
    assert [f["name"] for f in listing] == NAMES
    for entry in listing:
        params = FIGURES[entry["name"]].PARAMS
        assert entry["params"] == json.loads(json.dumps([p.describe() for p in params]))


@pytest.mark.parametrize("name", NAMES)
def test_get_and_post_give_the_engine_s_data(client, name) -> None:
    expected = compute_figure(name, {})
    assert client.get(f"/api/figures/{name}").json() == expected
    assert client.post(f"/api/figures/{name}", json={}).json() == expected
    assert client.post(f"/api/figures/{name}").json() == expected  # empty body = defaults


@pytest.mark.parametrize("name", NAMES)
def test_every_setting_at_its_bounds_is_answered(client, name) -> None:
    """Each numeric setting at its lowest and highest value: 200 through GET and POST, no 500.

    The strict numerics of the test suite reach the app's threads; underflow (a weight that
    rounds to 0) is allowed here, as it is in the server, where NumPy ignores it by default.
    """
    with np.errstate(under="ignore"):
        _each_bound(client, name)


def _each_bound(client, name: str) -> None:
    for p in FIGURES[name].PARAMS:
        if p.kind == "choice":
            values = list(p.choices)
        elif p.kind == "bool":
            values = [False, True]
        elif p.kind == "vector":
            values = [[p.lo] * p.length, [p.hi] * p.length]
        else:
            values = [p.lo, p.hi]
        for value in values:
            got = client.get(f"/api/figures/{name}", params={p.name: _query(value)})
            assert got.status_code == 200, (p.name, value, got.text)
            posted = client.post(f"/api/figures/{name}", json={p.name: value})
            assert posted.status_code == 200, (p.name, value, posted.text)
            assert posted.json() == got.json()


def test_query_vectors_are_comma_separated(client) -> None:
    got = client.get("/api/figures/lookup", params={"q": "1.5,-0.25"}).json()
    assert got["settings"]["q"] == [1.5, -0.25]
    assert got == client.post("/api/figures/lookup", json={"q": [1.5, -0.25]}).json()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("body", [b"\n", b"  ", b"\r\n\t"])
def test_a_body_of_only_whitespace_is_not_json_and_is_refused(client, name, body) -> None:
    # the schema asks for an object (or no body at all): whitespace is neither
    answer = client.post(f"/api/figures/{name}", content=body)
    assert answer.status_code == 422, answer.text
    (detail,) = answer.json()["detail"]
    assert detail["loc"] == ["body"] and detail["msg"].startswith("invalid JSON")


def test_unknown_figure_is_404_json(client) -> None:
    for method in (client.get, client.post):
        answer = method("/api/figures/no-such-figure")
        assert answer.status_code == 404
        assert "no-such-figure" in answer.json()["detail"]


def _refusal(answer, where: str, name: str) -> str:
    assert answer.status_code == 422, answer.text
    (detail,) = answer.json()["detail"]
    assert detail["loc"] == [where, name]
    assert detail["type"] == "value_error"
    return detail["msg"]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("2000", "out of range"),
        ("0", "out of range"),
        ("nan", "finite"),
        ("inf", "finite"),
        ("-1e999", "finite"),
        ("1" * 400, "finite"),
        ("64.5", "not an integer"),
        ("sixty-four", "expected"),
        ("", "expected"),
    ],
)
def test_bad_query_values_are_refused_with_the_range(client, value, words) -> None:
    msg = _refusal(client.get("/api/figures/scaling", params={"d_k": value}), "query", "d_k")
    assert words in msg
    assert "[1, 1024]" in msg


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ('{"d_k": 2000}', "d_k"),
        ('{"d_k": NaN}', "d_k"),
        ('{"d_k": Infinity}', "d_k"),
        ('{"d_k": 1e999}', "d_k"),
        ('{"d_k": ' + "9" * 400 + "}", "d_k"),  # float(int) of this would overflow
        ('{"d_k": "64"}', "d_k"),  # a JSON body says 64 for an integer; "64" is text
        ('{"d_k": 64.5}', "d_k"),
        ('{"scaled": 0}', "scaled"),  # a boolean is a boolean
        ('{"scaled": "false"}', "scaled"),
        ('{"d_k": true}', "d_k"),
        ('{"d_k": null}', "d_k"),
        ('{"d_k": [64]}', "d_k"),
        ('{"d_k": {"x": 1}}', "d_k"),
        ('{"scaled": "maybe"}', "scaled"),
        ('{"scaled": 2}', "scaled"),
        ('{"typo": 1}', "typo"),
    ],
)
def test_bad_body_values_are_refused(client, body, name) -> None:
    answer = client.post(
        "/api/figures/scaling", content=body, headers={"content-type": "application/json"}
    )
    if name is None:
        assert answer.status_code == 200
        assert answer.json()["settings"]["d_k"] == 64
    else:
        assert name in _refusal(answer, "body", name)


@pytest.mark.parametrize("q", ["1,2,3", "1", "a,b", "nan,0", "1e999,0", "9,0", "[1,2]"])
def test_bad_vectors_are_refused(client, q) -> None:
    msg = _refusal(client.get("/api/figures/lookup", params={"q": q}), "query", "q")
    assert "2 numbers in [-8, 8]" in msg


def test_bad_vector_bodies_are_refused(client) -> None:
    for q in ([1, 2, 3], [1, "x"], [[1], [2]], {"0": 1, "1": 2}, 5, [math.inf, 0]):
        body = json.dumps({"q": q}, allow_nan=True)
        answer = client.post("/api/figures/lookup", content=body)
        _refusal(answer, "body", "q")


@pytest.mark.parametrize(
    "body",
    [b"{", b"[1, 2]", b'"settings"', b"42", b"null", b"\xff\xfe{}", b"[" * 30_000, b'{"d_k": 64,}'],
)
def test_bodies_that_are_not_a_json_object_are_refused(client, body) -> None:
    answer = client.post("/api/figures/scaling", content=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"] == ["body"]


def test_a_repeated_query_setting_is_refused(client) -> None:
    answer = client.get("/api/figures/scaling?d_k=4&d_k=8")
    assert "more than once" in _refusal(answer, "query", "d_k")


def test_a_huge_body_is_refused_before_it_is_read(make_client) -> None:
    client = make_client(max_body_bytes=1000)
    answer = client.post("/api/figures/scaling", content=b" " * 1001)
    assert answer.status_code == 413
    at_limit = b"{}" + b" " * 998  # an object, padded to exactly the limit: read and answered
    assert client.post("/api/figures/scaling", content=at_limit).status_code == 200


NASTY = [
    None, "", " ", "0x10", "1e309", "-1e309", "NaN", "1,2", "a" * 5000, "\u00e9\u4e2d", "\x00",
    [], [None], {}, {"a": [1]}, 2**63, 1e308,
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_no_value_of_any_setting_gets_a_500(client, name) -> None:
    """Strange values for every setting, in the query and the body: answered, 200 or 422."""
    with np.errstate(under="ignore"):
        for p in FIGURES[name].PARAMS:
            for value in NASTY:
                body = client.post(f"/api/figures/{name}", content=json.dumps({p.name: value}))
                assert body.status_code in (200, 422), (p.name, value, body.text)
                if isinstance(value, str):
                    query = client.get(f"/api/figures/{name}", params={p.name: value})
                    assert query.status_code in (200, 422), (p.name, value, query.text)


def test_strange_query_strings_are_answered(client) -> None:
    for query in ("?d_k=%ff", "?=1", "?d_k", "?%00=1", "?d_k=1&&&", "?" + "x=1&" * 300):
        assert client.get(f"/api/figures/scaling{query}").status_code in (200, 422), query


def test_listing_describes_each_figure_for_the_page(client) -> None:
    """The page builds each shell (number, section) and reads its constants from the listing."""
    listing = client.get("/api/figures").json()
    for entry, fig in zip(listing, REGISTRY, strict=True):
        assert {k: entry[k] for k in ("name", "number", "section", "wide")} == fig.describe()
        module = FIGURES[fig.name]
        view_params = [p.describe() for p in getattr(module, "VIEW_PARAMS", ())]
        assert entry["view_params"] == json.loads(json.dumps(view_params))
        assert entry["constants"] == json.loads(json.dumps(getattr(module, "CONSTANTS", {})))
    training = next(e for e in listing if e["name"] == "training")
    assert training["constants"]["table_cm"] == 80.0 and training["constants"]["eval_every"] > 0
