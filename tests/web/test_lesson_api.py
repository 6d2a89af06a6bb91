"""`/api/lesson/{lang}`, `/api/claims/measured` and `/api/claims/rerun` (web/lesson_api.py): the
text comes at once with its numbers as slots, the numbers follow from the background
measurements, and a re-run measures again from scratch — so the text follows the engine."""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from attnlab import lesson
from attnlab.claims import all_checks, clear_caches, run_claim
from attnlab.claims.runner import Measurements
from attnlab.lesson.values import format_value
from attnlab.web import create_app
from tests.web.packed import assert_packed_once

with warnings.catch_warnings():  # see tests/web/conftest.py: a packaging warning of Starlette's
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

SLOT = re.compile(r'<span class="val( pending)?" data-claim="([^"]+)" data-name="([^"]+)" '
                  r'data-fmt="([^"]*)">([^<]*)</span>')  # fmt: skip
WAIT_S = 30.0


class StubMeasurements:
    """Fixed values, no thread: the lesson endpoint's pre-filling on its own."""

    def __init__(self, values: dict[str, dict[str, Any]]) -> None:
        self._values = values
        self.sweeps_wanted = 0

    def start(self, *, fresh: bool = False) -> bool:
        return True

    def close(self) -> None:
        pass

    def want_sweeps(self) -> None:
        self.sweeps_wanted += 1

    def values(self) -> dict[str, dict[str, Any]]:
        return self._values


@pytest.fixture
def serve() -> Iterator[Any]:
    """`serve(measurements)` → a TestClient on the real app using those measurements."""
    clients: list[TestClient] = []

    def make(measured: Any) -> TestClient:
        app = create_app()
        app.state.measurements = measured  # the lifespan takes these instead of making its own
        # As the page asks: under 127.0.0.1, POSTs as JSON (see tests/web/conftest.py, LOCAL).
        client = TestClient(app, base_url="http://127.0.0.1:8000")
        client.headers["content-type"] = "application/json"
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def clean_claims() -> Iterator[None]:
    """A test that changes the engine leaves no changed result in the registry's caches."""
    clear_caches()
    yield
    clear_caches()


def _slots(html_text: str) -> list[tuple[bool, str, str, str, str]]:
    return [(bool(m[1]), m[2], m[3], m[4], m[5]) for m in SLOT.finditer(html_text)]


def _dump(data: Any) -> str:
    import json

    return json.dumps(data, ensure_ascii=False).replace('\\"', '"')


# --- the text ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", lesson.LANGS)
def test_the_text_comes_with_every_number_as_a_slot(serve, lang: str) -> None:
    stub = StubMeasurements({})
    answer = serve(stub).get(f"/api/lesson/{lang}")
    assert answer.status_code == 200
    data = answer.json()
    assert [p["id"] for p in data["parts"]] == [
        p["id"] for p in lesson.load_lesson(lang, None)["parts"]
    ]
    assert data["needs"] == sorted(lesson.placeholders(lang))
    text = _dump(data)
    assert "{{" not in text
    slots = _slots(text)
    assert {f"{c}.{n}" for _, c, n, _, _ in slots} == lesson.placeholders(lang)
    assert all(pending and shown == "…" for pending, *_, shown in slots)  # nothing measured yet
    assert stub.sweeps_wanted == 1  # a reader is here: the text's seed sweeps are wanted


def test_measured_values_are_filled_in_as_the_page_would(serve) -> None:
    values = {"F2.2": {"steps": 200}, "F3.3": {"std_unscaled_64": 7.8123, "std_scaled_64": 0.98}}
    text = _dump(serve(StubMeasurements(values)).get("/api/lesson/en").json())
    slots = {(c, n): (pending, fmt, shown) for pending, c, n, fmt, shown in _slots(text)}
    assert slots["F2.2", "steps"] == (False, "", "200")
    assert slots["F3.3", "std_unscaled_64"] == (False, ".1f", format_value(7.8123, ".1f"))
    assert slots["F3.3", "std_unscaled_64"][2] == "7.8"
    assert slots["F2.2", "steps_p10"][0]  # not measured: still pending


@pytest.mark.parametrize("lang", lesson.LANGS)
def test_the_text_is_packed_once_for_the_class(serve, lang: str, monkeypatch) -> None:
    """Gzipped once for the values measured so far (held still here: a new value is a new text)
    and sent as that to every page."""
    assert_packed_once(serve(StubMeasurements({})), f"/api/lesson/{lang}", monkeypatch)


@pytest.mark.parametrize("lang", ["fr", "EN", "en-GB", "..", "zh%2F..%2Fen"])
def test_an_unknown_language_is_refused(serve, lang: str) -> None:
    answer = serve(StubMeasurements({})).get(f"/api/lesson/{lang}")
    assert answer.status_code in (404, 422)
    if answer.status_code == 422:
        assert answer.json()["detail"][0]["loc"] == ["path", "lang"]


def test_the_language_is_validated_with_a_422(serve) -> None:
    answer = serve(StubMeasurements({})).get("/api/lesson/fr")
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["path", "lang"]
    assert "'en'" in answer.json()["detail"][0]["msg"]


# --- the measurements behind it ---------------------------------------------------------------


def test_the_server_measures_from_startup_and_serves_what_is_ready(serve) -> None:
    ids = ("F1.1", "F2.1", "F3.3")
    measured = Measurements(ids=ids, text_needs=(), in_process=True)
    client = serve(measured)  # the lifespan has started the run
    assert measured.wait(WAIT_S)
    answer = client.get("/api/claims/measured").json()
    assert answer["running"] is False
    assert answer["state"]["kind"] == "start" and answer["state"]["run"] == 1
    assert [c["id"] for c in answer["claims"]] == list(ids)
    for c in answer["claims"]:
        assert c["ok"] is True and c["seconds"] >= 0
        assert c["values"] == run_claim(c["id"]).values
        assert answer["values"][c["id"]] == c["values"]
    # only what changed after `seq` comes again
    again = client.get("/api/claims/measured", params={"since": answer["seq"]}).json()
    assert again["claims"] == [] and again["values"] == {} and again["seq"] == answer["seq"]
    assert client.get("/api/claims/measured", params={"since": -1}).status_code == 422


def test_a_rerun_is_one_at_a_time_and_measures_afresh(serve, clean_claims) -> None:
    measured = Measurements(ids=("F1.1", "F2.2"), text_needs=(), in_process=True)
    client = serve(measured)
    assert measured.wait(WAIT_S)
    first = client.get("/api/claims/measured").json()
    with measured.measuring:  # the runner is measuring something else: the run has to wait
        started = client.post("/api/claims/rerun")
        assert started.status_code == 202
        assert started.json()["state"]["kind"] == "rerun"
        refused = client.post("/api/claims/rerun")
        assert refused.status_code == 409
        assert "being measured" in refused.json()["detail"]
    assert measured.wait(WAIT_S)
    after = client.get("/api/claims/measured", params={"since": first["seq"]}).json()
    assert after["state"]["run"] == 2 and after["state"]["seconds"] > 0
    assert sorted(c["id"] for c in after["claims"]) == ["F1.1", "F2.2"]  # both measured again
    assert after["values"]["F2.2"] == first["values"]["F2.2"]  # the engine is deterministic


def test_the_text_follows_the_engine_s_default_seed(serve, clean_claims, monkeypatch) -> None:
    from attnlab.claims import fig2

    measured = Measurements(ids=("F2.2",), text_needs=(), in_process=True)  # sees the patch
    client = serve(measured)
    assert measured.wait(WAIT_S)

    def steps_in_text() -> str:
        text = _dump(client.get("/api/lesson/en").json())
        return next(s for _, c, n, _, s in _slots(text) if (c, n) == ("F2.2", "steps"))

    before = steps_in_text()
    assert before == format_value(run_claim("F2.2").values["steps"], None)
    assert measured.wait(WAIT_S)  # the page's request asked for sweeps (none are needed here)
    trained, new_seed = fig2.trained, 0  # seed 0 crosses 2 cm at another step than the default
    monkeypatch.setattr(fig2, "DEFAULT_SEED", new_seed)
    retrained = functools.lru_cache(maxsize=8)(lambda t, h, seed=new_seed: trained(t, h, seed))
    monkeypatch.setattr(fig2, "trained", retrained)  # cached like the original: clear_caches
    assert client.post("/api/claims/rerun").status_code == 202
    assert measured.wait(WAIT_S)
    values = client.get("/api/claims/measured").json()["values"]["F2.2"]
    assert values["seed"] == new_seed
    after = steps_in_text()
    assert after == format_value(values["steps"], None) != before


def test_the_sweeps_the_text_quotes_are_measured_once_a_page_asks(serve) -> None:
    # F4.2's slow check (a sweep over seeds) is quick; its median is a value only it gives
    assert any(c.slow for c in all_checks()["F4.2"])
    measured = Measurements(ids=("F4.2",), text_needs={"F4.2.median"}, in_process=True)
    client = serve(measured)
    assert measured.wait(WAIT_S)
    assert "median" not in client.get("/api/claims/measured").json()["values"]["F4.2"]
    client.get("/api/lesson/en")  # a reader: the sweep is wanted now
    assert measured.wait(WAIT_S)
    answer = client.get("/api/claims/measured").json()
    assert answer["state"]["phase"] == "sweeps"
    assert answer["values"]["F4.2"]["median"] == run_claim("F4.2", True).values["median"]
    assert answer["values"]["F4.2"]["relative_diff"] == run_claim("F4.2").values["relative_diff"]
