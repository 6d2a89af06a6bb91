"""The app as a whole: the page and its files, the OpenAPI description, JSON errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnlab.figures import figure_modules
from attnlab.web.config import PACKAGE_STATIC

FILES = {
    "index.html": ("<!doctype html><title>t</title>", "text/html"),
    "js/main.js": ("export const x = 1;", "text/javascript"),
    "css/style.css": ("body { margin: 0 }", "text/css"),
    "i18n/en.json": ('{"title": "t"}', "application/json"),
    "vendor/katex/fonts/KaTeX_Main-Regular.woff2": ("wOF2", "font/woff2"),
}


@pytest.fixture
def static_dir(tmp_path: Path) -> Path:
    for name, (text, _) in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("name", list(FILES))
def test_static_files_have_the_types_browsers_need(make_client, static_dir, name) -> None:
    answer = make_client(static_dir=static_dir).get(f"/static/{name}")
    assert answer.status_code == 200
    assert answer.headers["content-type"].split(";")[0] == FILES[name][1]
    assert answer.text == FILES[name][0]


def test_the_page_is_served_at_the_root(make_client, static_dir) -> None:
    answer = make_client(static_dir=static_dir).get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert answer.text == FILES["index.html"][0]


def test_unchanged_files_are_revalidated_not_resent(make_client, static_dir) -> None:
    client = make_client(static_dir=static_dir)
    first = client.get("/static/js/main.js")
    assert first.headers["cache-control"] == "no-cache"
    again = client.get("/static/js/main.js", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304


def test_no_file_outside_the_static_folder_is_served(make_client, static_dir) -> None:
    (static_dir.parent / "secret.txt").write_text("no")
    client = make_client(static_dir=static_dir)
    for path in ("/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/nope.js"):
        assert client.get(path).status_code == 404


def test_without_page_files_the_api_still_runs(make_client, tmp_path) -> None:
    client = make_client(static_dir=tmp_path / "missing")
    assert client.get("/").status_code == 404
    assert client.get("/api/figures").status_code == 200


def test_the_package_ships_the_page(client) -> None:
    assert (PACKAGE_STATIC / "index.html").is_file()
    answer = client.get("/")
    assert answer.status_code == 200
    assert "<html" in answer.text.lower()
    for module in sorted((PACKAGE_STATIC / "js").rglob("*.js"))[:3]:
        path = module.relative_to(PACKAGE_STATIC).as_posix()
        assert client.get(f"/static/{path}").headers["content-type"].startswith("text/javascript")


def test_openapi_describes_each_figure_s_bounded_settings(client) -> None:
    spec = client.get("/openapi.json").json()
    for name, module in figure_modules().items():
        path = spec["paths"][f"/api/figures/{name}"]
        query = {p["name"]: p["schema"] for p in path["get"]["parameters"]}
        body = path["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert set(query) == set(body["properties"]) == {p.name for p in module.PARAMS}
        assert body["additionalProperties"] is False
        for p in module.PARAMS:
            if p.kind in ("int", "float"):
                assert (query[p.name]["minimum"], query[p.name]["maximum"]) == (p.lo, p.hi)
    assert "/api/claims" in spec["paths"]
    assert client.get("/docs").status_code == 404  # its scripts would come from a CDN


def test_unknown_paths_and_methods_answer_json(client) -> None:
    assert client.get("/api/nothing").json() == {"detail": "Not Found"}
    answer = client.put("/api/figures")
    assert answer.status_code == 405
    assert "detail" in answer.json()


def test_text_that_is_not_unicode_is_a_400_and_a_bug_a_json_500() -> None:
    from attnlab.web import create_app

    from .conftest import LocalClient

    app = create_app()

    @app.get("/echo")
    def echo() -> dict:
        "\ud800".encode()  # what echoing a lone surrogate from a body would do
        return {}

    @app.get("/bug")
    def bug() -> dict:
        raise RuntimeError("a bug")

    with LocalClient(app, raise_server_exceptions=False) as client:
        refused = client.get("/echo")
        assert refused.status_code == 400
        assert "not valid Unicode" in refused.json()["detail"][0]["msg"]
        broken = client.get("/bug")
        assert broken.status_code == 500 and broken.json() == {
            "detail": "internal error (logged on the server)"
        }


@pytest.mark.server  # redis-server
def test_the_shutdown_closes_the_shared_class_store(tmp_path: Path) -> None:
    """`--store redis://…`: when the app's shutdown has run (the event loop still running, as
    in a server that stops), its pub/sub listener has ended and no connection to Redis is open."""
    from attnlab.classroom.store import LEARNERS
    from attnlab.web import WebSettings, create_app
    from attnlab.web.class_socket import class_store
    from tests import aio
    from tests.redisserver import client_count, redis_server

    pytest.importorskip("redis")

    async def stopped(url: str) -> list[object]:
        import asyncio

        app = create_app(WebSettings(teacher_token="t" * 24, class_store=url, train_workers=1))
        async with app.router.lifespan_context(app):
            store = class_store(app)
            store.subscribe(LEARNERS)  # a learner's page: the listener starts
            await store.join("a" * 32, "")
            while client_count(url) < 1:  # the listener's connection (the pool lends it)
                await asyncio.sleep(0.05)
        for _ in range(600):  # Redis notices a closed connection at once (polled, ≤ 30 s)
            if client_count(url) == 0:
                break
            await asyncio.sleep(0.05)
        return [store._listener.done(), client_count(url)]

    with redis_server(tmp_path) as url:
        assert aio.run(stopped(url)) == [True, 0]
