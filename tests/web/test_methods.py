"""HEAD, OPTIONS and `Allow` (web/methods.py): every route tells which methods it takes."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/api/figures/lookup", "GET, HEAD, POST, OPTIONS"),
        ("/api/figures", "GET, HEAD, OPTIONS"),
        ("/api/claims/rerun", "POST, OPTIONS"),
        ("/api/lesson/en", "GET, HEAD, OPTIONS"),
    ],
)
def test_a_wrong_method_is_405_with_every_method_the_path_takes(client, path, allow) -> None:
    for method in ("PUT", "DELETE", "PATCH"):
        answer = client.request(method, path)
        assert answer.status_code == 405
        assert answer.headers["allow"] == allow
    options = client.options(path)
    assert options.status_code == 204 and options.headers["allow"] == allow


def test_head_answers_what_get_would_without_the_body(client) -> None:
    get = client.get("/api/figures/lookup", params={"mode": "hard"})
    head = client.head("/api/figures/lookup", params={"mode": "hard"})
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == get.headers["content-length"]
    assert head.headers["content-type"] == "application/json"
    assert client.head("/api/figures/lookup", params={"mode": "x"}).status_code == 422
    assert client.head("/api/claims/rerun").status_code == 405


def test_unknown_paths_stay_404(client) -> None:
    assert client.options("/api/no-such-thing").status_code == 404
    assert client.head("/api/no-such-thing").status_code == 404
