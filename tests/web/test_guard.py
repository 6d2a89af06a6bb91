"""The guard: foreign host names, other sites' POSTs and tokenless strangers are kept out."""

from __future__ import annotations

import json

import httpx
import pytest
from starlette.testclient import WebSocketDenialResponse

from attnlab.web import WebSettings, create_app
from attnlab.web.guard import TOKEN_COOKIE

from .conftest import LocalClient

EVIL = {"host": "evil.example"}
ROUTES = ["/", "/static/js/lib/api.js", "/api/figures", "/api/figures/scaling", "/openapi.json"]
TOKEN = "join-me-0123456789"
LAN_CLIENT = ("10.1.2.3", 50000)  # a learner's laptop, as the ASGI scope names it
RERUN_BODY = json.dumps({"d_k": 16})


@pytest.mark.parametrize("path", ROUTES)
def test_a_foreign_host_name_is_refused_on_every_route(client, path) -> None:
    assert client.get(path).status_code == 200
    refused = client.get(path, headers=EVIL)
    assert refused.status_code == 400
    assert "evil.example" in refused.json()["detail"]


def _socket_refusal(client, **kw) -> tuple[int, str]:
    """(status, detail) of the answer a refused socket gets in place of its handshake."""
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/ws/train", **kw).__enter__()
    return denied.value.status_code, denied.value.json()["detail"]


def test_a_foreign_host_name_is_refused_at_the_socket(client) -> None:
    status, detail = _socket_refusal(client, headers=EVIL)
    assert status == 400 and "evil.example" in detail  # as every route answers it


def test_names_given_with_allowed_host_are_answered(make_client) -> None:
    lab = make_client(allowed_hosts=("lab.school.example",))
    assert lab.get("/api/figures", headers={"host": "lab.school.example:8443"}).status_code == 200
    assert lab.get("/api/figures", headers=EVIL).status_code == 400


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"content-type": "text/plain"}, 415),  # a form or no-preflight fetch from anywhere
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"content-type": ""}, 415),
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "http://evil.example", "content-type": "text/plain"}, 403),
        ({"origin": "null"}, 403),  # a sandboxed frame, a file:// page
        ({"origin": "http://127.0.0.1:9000"}, 403),  # another local server's page
        ({"sec-fetch-site": "cross-site"}, 403),
        ({"sec-fetch-site": "same-site"}, 403),
    ],
)
def test_posts_from_other_pages_or_not_json_are_refused(client, headers, status) -> None:
    for path in ("/api/claims/rerun", "/api/figures/scaling"):
        answer = client.post(path, content=RERUN_BODY, headers=headers)
        assert answer.status_code == status, (path, answer.text)
        assert isinstance(answer.json()["detail"], str)


@pytest.mark.parametrize(
    "headers",
    [
        {},  # no Origin: not a browser page (curl, a script)
        {"origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-origin"},  # the page's fetch
        {"origin": "http://localhost:8000"},
        {"content-type": "application/json; charset=utf-8"},
    ],
)
def test_our_own_pages_json_posts_are_served(client, headers) -> None:
    answer = client.post("/api/figures/scaling", content=RERUN_BODY, headers=headers)
    assert answer.status_code == 200, answer.text


def test_a_post_with_no_body_and_no_type_takes_the_defaults(client) -> None:
    request = client.build_request("POST", "/api/figures/scaling")
    del request.headers["content-type"]  # as `curl -X POST` sends it: no body, no type
    assert client.send(request).status_code == 200
    typed = client.post("/api/figures/scaling", headers={"content-type": "text/plain"})
    assert typed.status_code == 415  # an empty text/plain form is still a form


@pytest.mark.parametrize(
    "body", [b'{"\\ud800": 1}', b'{"q": "\\udfff"}', b'{"\\ud800\\ud800": [1, "\\ud800"]}']
)
def test_a_lone_surrogate_is_a_4xx_with_a_readable_message(client, body) -> None:
    answer = client.post("/api/figures/lookup", content=body)
    assert 400 <= answer.status_code < 500, answer.text
    detail = answer.json()["detail"]
    assert detail and all(isinstance(d["msg"], str) for d in detail)
    if b'{"\\ud800"' in body:
        assert "\\ud800" in detail[0]["msg"]  # written as an escape, not dropped


def _classroom(client: tuple[str, int]) -> LocalClient:
    return LocalClient(create_app(WebSettings(join_token=TOKEN)), client=client)


def test_a_learner_without_the_token_is_refused() -> None:
    with _classroom(LAN_CLIENT) as learner:
        assert learner.get("/").status_code == 401
        assert learner.get("/api/figures").status_code == 401
        assert learner.get("/?token=wrong-token").status_code == 401
        learner.cookies.set(TOKEN_COOKIE, "wrong-token")
        assert learner.get("/api/figures").status_code == 401
        assert _socket_refusal(learner)[0] == 401


def test_the_join_link_sets_a_strict_cookie_and_moves_to_the_clean_url() -> None:
    with _classroom(LAN_CLIENT) as learner:
        joined = learner.get("/?lang=zh&token=" + TOKEN)
        assert joined.status_code == 200
        cookie = joined.headers["set-cookie"]
        assert cookie.startswith(f"{TOKEN_COOKIE}={TOKEN};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert 'http-equiv="refresh" content="0; url=/?lang=zh"' in joined.text
        assert TOKEN not in joined.text  # the token leaves the address bar
        assert learner.get("/?lang=zh").status_code == 200  # the cookie now opens everything
        assert learner.get("/api/figures").status_code == 200
        assert learner.post("/api/figures/scaling", content=RERUN_BODY).status_code == 200
        with learner.websocket_connect("/ws/train") as ws:
            assert json.loads(ws.receive_text())["type"] == "state"


def test_a_script_may_show_the_token_as_a_bearer_header() -> None:
    with _classroom(LAN_CLIENT) as script:
        auth = {"authorization": f"Bearer {TOKEN}"}
        assert script.get("/api/figures", headers=auth).status_code == 200


@pytest.mark.parametrize("said", [TOKEN, f"Basic {TOKEN}", f"Token {TOKEN}", f"Bearer{TOKEN}"])
def test_a_token_in_another_authorization_scheme_is_not_taken(said) -> None:
    with _classroom(LAN_CLIENT) as script:
        assert script.get("/api/figures", headers={"authorization": said}).status_code == 401
        assert script.get("/api/figures", headers={"authorization": f"bearer  {TOKEN}"}).is_success


@pytest.mark.parametrize(
    "path", ["//evil.example/", "//evil.example/x", "/\\evil.example/", "/%2F/evil.example/"]
)
def test_the_join_link_never_leads_to_another_site(path) -> None:
    with _classroom(LAN_CLIENT) as learner:
        raw = f"{path}?token={TOKEN}".encode()  # as sent, not joined to the client's base URL
        answer = learner.get(httpx.URL("http://127.0.0.1:8000/").copy_with(raw_path=raw))
        assert answer.request.url.raw_path == raw
        assert "evil.example" not in answer.text
        assert "set-cookie" not in answer.headers  # only the page's own address is a join link


def test_the_join_link_goes_to_the_page_with_the_rest_of_its_query() -> None:
    with _classroom(LAN_CLIENT) as learner:
        joined = learner.get(f"/?token={TOKEN}&next=//evil.example/")
        assert 'content="0; url=/?next=%2F%2Fevil.example%2F"' in joined.text


def test_a_token_in_an_api_query_is_answered_as_json() -> None:
    with _classroom(LAN_CLIENT) as learner, _classroom(("127.0.0.1", 5)) as teacher:
        for who, status in ((learner, 401), (teacher, 200)):
            answer = who.get(f"/api/figures?token={TOKEN}")
            assert answer.status_code == status
            assert answer.headers["content-type"] == "application/json"
            assert "set-cookie" not in answer.headers


def test_loopback_needs_no_token() -> None:
    for address in ("127.0.0.1", "::1"):
        with _classroom((address, 50000)) as teacher:
            assert teacher.get("/").status_code == 200
            assert teacher.get("/api/figures").status_code == 200


def test_the_host_rule_comes_before_the_token() -> None:
    with _classroom(LAN_CLIENT) as learner:
        assert learner.get(f"/?token={TOKEN}", headers=EVIL).status_code == 400


def test_the_guards_answers_are_in_the_api_description(client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            expected = {"400", "401"} | ({"403", "415"} if method == "post" else set())
            assert expected <= set(operation["responses"]), (method, path)
    rerun = paths["/api/claims/rerun"]["post"]["responses"]["415"]
    schema = rerun["content"]["application/json"]["schema"]
    assert {"type": "string"} in schema["properties"]["detail"]["anyOf"]  # the guard's detail
