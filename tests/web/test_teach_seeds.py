""" "One seed each" through the sockets: every page gets its seed, a page's result is taken only
for its own seed and the final step, and the teacher's view sets each beside the server's own
sweep of those seeds, equal to the last bit (the same engine); CSV and PNG to take away."""

from __future__ import annotations

import csv
import io
import json

from attnlab.tabletop import TrainConfig, Trainer

TEACHER = "teacher-token-" + "t" * 20
AS_TEACHER = {"authorization": f"Bearer {TEACHER}"}
PLAN = {"task": "fetch", "heads": 1, "seed": 40, "steps": 50}


def _final(seed: int) -> dict:
    trainer = Trainer(TrainConfig(task="fetch", heads=1, seed=seed))
    trainer.advance(PLAN["steps"])
    return trainer.history[-1]


def _join(ws, seat: str) -> int:
    ws.send_text(json.dumps({"type": "hello", "seat": seat}))
    return json.loads(ws.receive_text())["number"]


def test_each_seat_trains_its_own_seed_and_agrees_with_the_sweep(make_client, wait_until) -> None:
    client = make_client(teacher_token=TEACHER, train_workers=1, train_capacity=2)
    assert (
        client.post("/api/teach/seeds", json=PLAN, headers=AS_TEACHER).status_code == 422
    )  # no one
    with client.websocket_connect("/ws/class") as one, client.websocket_connect("/ws/class") as two:
        numbers = [_join(one, "a" * 32), _join(two, "b" * 32)]
        started = client.post("/api/teach/seeds", json=PLAN, headers=AS_TEACHER).json()
        assert started["command"] == (
            "attnlab train --task fetch --heads 1 --seed 40 --sweep 2 --steps 50"
        )
        got = [json.loads(ws.receive_text()) for ws in (one, two)]
        assert got[0] == got[1] and got[0]["seeds"] == {str(numbers[0]): 40, str(numbers[1]): 41}
        for ws, seed in ((one, 40), (two, 41)):
            final = _final(seed)
            report = {
                "type": "result",
                "id": started["id"],
                "seed": seed,
                "step": 50,
                "attn_err_cm": final["attn_err_cm"],
                "mlp_err_cm": final["mlp_err_cm"],
            }
            ws.send_text(json.dumps({**report, "seed": 81 - seed}))  # the other seat's seed
            assert "not the seed this seat was given" in json.loads(ws.receive_text())["message"]
            ws.send_text(json.dumps({**report, "step": 25}))
            assert "final step" in json.loads(ws.receive_text())["message"]
            ws.send_text(json.dumps(report))

        def view() -> dict:
            return client.get("/api/teach/class", headers=AS_TEACHER).json()["experiment"]

        assert wait_until(lambda: view()["sweep_ready"] and len(view()["results"]) == 2, 60)
        done = view()
        assert done["agree"] == 2 and all(r["agrees"] for r in done["results"])
        assert [r["seed"] for r in done["results"]] == [40, 41]
        table = list(csv.DictReader(io.StringIO(
            client.get("/api/teach/seeds.csv", headers=AS_TEACHER).text)))  # fmt: skip
        assert [float(r["attn_err_cm"]) for r in table] == [
            _final(s)["attn_err_cm"] for s in (40, 41)
        ]
        assert [r["agrees"] for r in table] == ["True", "True"]
        png = client.get("/api/teach/seeds.png", headers=AS_TEACHER)
        assert png.content[:8] == b"\x89PNG\r\n\x1a\n" and "attachment" in png.headers[
            "content-disposition"]  # fmt: skip


def test_a_plan_out_of_range_is_refused_and_learners_cannot_start_one(make_client) -> None:
    client = make_client(teacher_token=TEACHER, train_workers=1, train_capacity=2)
    with client.websocket_connect("/ws/class") as one:
        _join(one, "a" * 32)
        bad = client.post("/api/teach/seeds", json={**PLAN, "steps": 10**6}, headers=AS_TEACHER)
        assert bad.status_code == 422 and "steps" in bad.text
        assert client.post("/api/teach/seeds", json=PLAN).status_code == 401
        assert client.get("/api/teach/seeds.csv").status_code == 401
        assert client.get("/api/teach/seeds.csv", headers=AS_TEACHER).status_code == 404
