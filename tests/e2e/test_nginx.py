"""README's "Past one machine", run as written: two copies of `attnlab serve --proxy` behind
Debian's nginx with TLS, the page and a training socket through it in Chromium.

The nginx config is README.md's own ```nginx block; only its ports, certificate and paths are
swapped for a temporary directory (a self-signed certificate made with openssl), and Chromium
resolves the README's host name to 127.0.0.1. Nothing leaves loopback; nginx runs in the
foreground of this test (`-p DIR`, its pid and logs in DIR), never as a system service.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.redisserver import redis_server

from .conftest import CHROMIUM_ARGS, VIEWPORT, chromium_path, show_everyone

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

README = Path(__file__).resolve().parents[2] / "README.md"
NAME = "lab.school.example"  # the README's host name
TOKEN = "shared-by-both-copies"
BEARER = {"authorization": f"Bearer {TOKEN}"}  # behind --proxy every request needs the token
TEACHER = "the-teacher-s-own-shared-token"
FIG = "#fig-training"
PAGE_MS = 60_000  # a page loads the lesson through TLS on a shared machine


def _need(program: str, make_target: str) -> str:
    found = shutil.which(program) or shutil.which(program, path="/usr/sbin:/usr/bin")
    if found is None:
        if os.environ.get("CI"):  # make test installs it: never skip there
            pytest.fail(f"{program} is not installed (make {make_target})")
        pytest.skip(f"{program} is not installed (make {make_target})")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _readme_nginx_config() -> str:
    (block,) = re.findall(r"```nginx\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    return block


def _swap(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"README's nginx config no longer has {old!r}"
    return text.replace(old, new)


def _replica(store: str) -> tuple[subprocess.Popen, int]:
    """One `attnlab serve --proxy` copy on a free port (it prints the port it took), its class
    in the Redis at `store` that both copies share."""
    cmd = [sys.executable, "-m", "attnlab", "serve", "--proxy", "--allowed-host", NAME]
    cmd += ["--store", store]
    env = {**os.environ, "ATTNLAB_TOKEN": TOKEN, "ATTNLAB_TEACHER_TOKEN": TEACHER}
    proc = subprocess.Popen(
        [*cmd, "--port", "0", "--no-browser"], stdout=subprocess.PIPE, text=True, env=env
    )
    line = proc.stdout.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)/", line).group(1))
    _wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/api/figures", headers=BEARER).is_success)
    return proc, port


def _wait_for(ready: Any, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with contextlib.suppress(httpx.TransportError, OSError):
            if ready():
                return
        time.sleep(0.1)
    raise AssertionError("did not come up in time")


def _ipv6_loopback() -> bool:
    """True if this machine has ::1 (a container may have IPv6 switched off)."""
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


def _write_config(
    run: Path, copies: list[int], port: int, cert: Path, key: Path, ipv6: bool
) -> None:
    """README's site config with our ports and files, inside a minimal nginx.conf. With `ipv6`
    nginx listens on ::1 too: ip_hash hashes an IPv4 address by its first three bytes, so every
    127.0.0.1 page lands on one copy; a page that comes from ::1 is another machine to it."""
    site = _readme_nginx_config()
    site = _swap(site, "server 127.0.0.1:8101;", f"server 127.0.0.1:{copies[0]};")
    site = _swap(site, "server 127.0.0.1:8102;", f"server 127.0.0.1:{copies[1]};")
    listen = f"listen 127.0.0.1:{port} ssl;" + (f" listen [::1]:{port} ssl;" if ipv6 else "")
    site = _swap(site, "listen 443 ssl;", listen)
    site = _swap(site, f"/etc/ssl/certs/{NAME}.pem", str(cert))
    site = _swap(site, f"/etc/ssl/private/{NAME}.key", str(key))
    (run / "attnlab.conf").write_text(site)
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = " ".join(f"{kind}_temp_path {run}/{kind};" for kind in kinds)
    (run / "nginx.conf").write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # workers must reach the temp paths
        + "worker_processes 1;\nevents { worker_connections 256; }\n"
        + "http {\n  log_format upstream '$upstream_addr $status $request';\n"
        + f"  access_log {run}/access.log upstream;\n  {temp}\n  include attnlab.conf;\n}}\n"
    )


@pytest.fixture(scope="module")
def proxy(tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Two copies behind nginx; yields the proxy's URL, the copies and nginx's access log."""
    nginx = _need("nginx", "nginx")
    openssl = _need("openssl", "nginx")
    run = tmp_path_factory.mktemp("nginx")
    cert, key = run / "cert.pem", run / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         f"/CN={NAME}", "-addext", f"subjectAltName=DNS:{NAME}", "-keyout", key, "-out", cert],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    copies: list[tuple[subprocess.Popen, int]] = []
    server = None
    with redis_server(run) as store:
        try:
            copies += [_replica(store), _replica(store)]
            port = _free_port()
            ipv6 = _ipv6_loopback()
            _write_config(run, [p for _, p in copies], port, cert, key, ipv6)
            globals_ = f"daemon off; pid {run}/nginx.pid;"
            logs = f"{run}/error.log"
            server = subprocess.Popen(
                [nginx, "-p", str(run), "-e", logs, "-c", f"{run}/nginx.conf", "-g", globals_],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,  # nginx logs to DIR/error.log
            )  # fmt: skip
            url = f"https://127.0.0.1:{port}"
            _wait_for(
                lambda: httpx.get(f"{url}/api/figures", headers=BEARER, verify=False).is_success
            )
            yield {"url": url, "port": port, "copies": copies, "log": run / "access.log",
                   "ipv6": ipv6}  # fmt: skip
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=10)
            for proc, _ in copies:
                proc.terminate()
                proc.wait(timeout=10)
                proc.stdout.close()


def _chromium_at(browser: Any, address: str) -> Any:
    """A Chromium from the suite's Playwright that resolves the README's name to `address`."""
    resolve = f"--host-resolver-rules=MAP {NAME} {address}"
    return browser.browser_type.launch(
        executable_path=str(chromium_path()), args=[*CHROMIUM_ARGS, resolve]
    )


def test_the_page_trains_in_chromium_through_the_proxy(proxy, browser) -> None:
    mapped = _chromium_at(browser, "127.0.0.1")
    errors: list[str] = []
    try:
        page = mapped.new_context(ignore_https_errors=True).new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.goto(f"https://{NAME}:{proxy['port']}/?token={TOKEN}")  # the join link
        page.wait_for_url(f"https://{NAME}:{proxy['port']}/")
        page.goto(f"https://{NAME}:{proxy['port']}/#lang=en")
        page.wait_for_selector("html.is-ready")
        page.wait_for_selector(f"{FIG} dd[data-key=step][data-value='0']")
        page.click(f"{FIG} button[data-role=train]")  # over wss:// through nginx
        page.wait_for_function(
            f"+document.querySelector('{FIG} dd[data-key=step]').dataset.value >= 50",
            timeout=30_000,
        )
        page.click(f"{FIG} button[data-role=train]")
    finally:
        mapped.close()
    assert errors == []
    log = proxy["log"].read_text()
    assert "101 GET /ws/train" in log  # the socket's upgrade went through nginx


def test_a_training_socket_through_the_proxy_gets_progress(proxy) -> None:
    from websockets.sync.client import connect

    insecure = ssl.create_default_context()
    insecure.check_hostname, insecure.verify_mode = False, ssl.CERT_NONE  # self-signed, loopback
    url = f"wss://127.0.0.1:{proxy['port']}/ws/train"
    with connect(url, ssl=insecure, additional_headers=BEARER) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        ws.send(json.dumps({"type": "start"}))
        kinds = [json.loads(ws.recv(timeout=10))["type"] for _ in range(5)]
        assert "progress" in kinds


def test_a_foreign_host_name_is_refused_through_the_proxy(proxy) -> None:
    with httpx.Client(verify=False, headers=BEARER) as client:
        for path in ("/", "/api/figures"):
            ours = client.get(proxy["url"] + path, headers={"host": f"{NAME}:{proxy['port']}"})
            assert ours.status_code == 200
            foreign = client.get(proxy["url"] + path, headers={"host": "evil.example"})
            assert foreign.status_code == 400 and "evil.example" in foreign.json()["detail"]


def test_behind_the_proxy_every_request_needs_the_token(proxy) -> None:
    """--proxy: no forwarded address passes as this machine, nginx's own (127.0.0.1) included."""
    copy = f"http://127.0.0.1:{proxy['copies'][0][1]}/api/figures"
    for forwarded in ("10.1.2.3", "127.0.0.1", "::1"):  # as nginx writes it, or a client forges it
        said = {"x-forwarded-for": forwarded}
        assert httpx.get(copy, headers=said).status_code == 401
        assert httpx.get(copy, headers=said | BEARER).status_code == 200
    assert httpx.get(copy).status_code == 401  # no header at all is not this machine either
    assert httpx.get(proxy["url"] + "/api/figures", verify=False).status_code == 401


def _learner_on(stack: contextlib.ExitStack, port: int, seat: str) -> Any:
    """A learner's class socket on one copy, as nginx would pass it on (the learner's address
    in X-Forwarded-For, the join token): ip_hash sends one machine's learners to one copy, so
    the test reaches each copy itself to have learners on both."""
    from websockets.sync.client import connect

    headers = {"x-forwarded-for": f"10.0.0.{port % 200}", "authorization": f"Bearer {TOKEN}"}
    url = f"ws://127.0.0.1:{port}/ws/class"
    ws = stack.enter_context(connect(url, additional_headers=headers, open_timeout=30))
    ws.send(json.dumps({"type": "hello", "seat": seat}))
    assert json.loads(ws.recv(timeout=10))["type"] == "seat"
    return ws


def test_one_teacher_sees_the_learners_of_both_copies_and_reaches_them_all(proxy) -> None:
    """--store redis://…: the class lives in Redis, so the teacher's page, through nginx on
    whichever copy, sees every seat, and "show everyone" reaches the pages of both copies."""
    with contextlib.ExitStack() as stack:
        copies = enumerate(proxy["copies"])
        learners = [_learner_on(stack, port, f"{i + 1:032x}") for i, (_, port) in copies]
        teacher = {"authorization": f"Bearer {TEACHER}"}
        with httpx.Client(verify=False, base_url=proxy["url"], headers=teacher) as client:
            assert client.get("/api/teach/class", headers={"authorization": ""}).status_code == 401
            _wait_for(lambda: client.get("/api/teach/class").json()["joined"] == 2)
            sent = client.post("/api/teach/show", json={"figure": "scaling", "follow": True,
                                                       "settings": {"d_k": 256}})  # fmt: skip
            assert sent.status_code == 200
        for ws in learners:
            got = json.loads(ws.recv(timeout=30))  # typical: 20 ms
            assert (got["type"], got["settings"], got["id"]) == ("show", {"d_k": 256},
                                                                 sent.json()["id"])  # fmt: skip


def _page_through(mapped: Any, url: str, link: str, ready: str, errors: list[str]) -> Any:
    """A page of its own (its own cookies) that follows `link` (a join or teacher link) to
    `url` through nginx, then waits for `ready`."""
    context = mapped.new_context(ignore_https_errors=True, viewport=VIEWPORT, locale="en-US")
    context.set_default_timeout(PAGE_MS)
    page = context.new_page()
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(link)
    page.wait_for_url(url)
    page.wait_for_selector(ready)
    return page


def _class_copies(log: Path, since: int, copies: list[tuple[subprocess.Popen, int]]) -> set[int]:
    """The copies (ports) nginx passed a learner's /ws/class to after the log's first `since`
    characters. nginx logs a socket when it closes: polled for a few seconds."""
    end, ports = time.monotonic() + 10, {port for _, port in copies}
    while True:
        lines = [line.split() for line in log.read_text()[since:].splitlines()]
        opened = {w[0] for w in lines if w[1:4] == ["101", "GET", "/ws/class"]}
        used = {p for p in ports if f"127.0.0.1:{p}" in opened}
        if used == ports or time.monotonic() > end:
            return used
        time.sleep(0.2)


def test_chromium_learners_on_both_copies_and_one_teacher_page(proxy, browser) -> None:
    """The same in Chromium: a learner's page reaches nginx from 127.0.0.1 and one from ::1
    (ip_hash gives them different copies), the teacher's page, through nginx too, counts both,
    and its "show everyone" with "follow me" moves both pages."""
    if not proxy["ipv6"]:
        pytest.skip("no ::1 on this machine: every page would come from 127.0.0.1, one copy")
    base, errors, since = f"https://{NAME}:{proxy['port']}", [], len(proxy["log"].read_text())
    v4, v6 = _chromium_at(browser, "127.0.0.1"), _chromium_at(browser, "[::1]")
    try:
        learners = [_page_through(b, f"{base}/", f"{base}/?token={TOKEN}",
                                  "[data-role=class-seat]", errors) for b in (v4, v6)]  # fmt: skip
        teacher = _page_through(v4, f"{base}/teach", f"{base}/teach?teacher={TEACHER}",
                                "#teach-live[data-state=open]", errors)  # fmt: skip
        teacher.wait_for_selector("#teach-counts dd[data-key=joined][data-value='2']")
        show_everyone(teacher, "scaling", {"d_k": "256"}, follow=True)
        for page in learners:
            page.wait_for_function("location.hash.includes('scaling.d_k=256')")
    finally:
        v4.close()
        v6.close()
    assert errors == []
    ports = {port for _, port in proxy["copies"]}
    assert _class_copies(proxy["log"], since, proxy["copies"]) == ports, "not on both copies"


def test_when_one_copy_stops_the_other_serves(proxy) -> None:
    with httpx.Client(verify=False, headers=BEARER) as client:
        assert client.get(proxy["url"] + "/api/figures").status_code == 200
        served = proxy["log"].read_text().split()
        ports = {str(port): proc for proc, port in proxy["copies"]}
        used = [p for p in ports if f"127.0.0.1:{p}" in served]
        assert used, "nginx logged no copy"
        ports[used[-1]].terminate()
        ports[used[-1]].wait(timeout=10)
        for _ in range(3):
            assert client.get(proxy["url"] + "/api/figures").status_code == 200
    (other,) = [p for p in ports if p != used[-1]]
    assert f"127.0.0.1:{other} 200" in proxy["log"].read_text()
