"""Only the lesson's own page may open the training socket."""

from __future__ import annotations

import pytest

from attnlab.web.origin import host_allowed, origin_allowed


def _ok(origin: str | None, host: str | None = "127.0.0.1:8000", **kw) -> bool:
    return origin_allowed(origin, host_header=host, server_port=8000, **kw)


@pytest.mark.parametrize(
    "origin",
    [
        None,  # not a browser page (a script, a test): nothing to protect against
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://LOCALHOST:8000/",
        "http://[::1]:8000",
    ],
)
def test_our_own_page_is_allowed(origin) -> None:
    assert _ok(origin)


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "https://evil.example:8000",
        "http://127.0.0.1:9000",  # another local server's page
        "http://localhost",
        "null",  # sandboxed frames and file:// pages
        "file://",
        "ws://127.0.0.1:8000",
        "http://127.0.0.1:notaport",
        "",
    ],
)
def test_foreign_pages_are_refused(origin) -> None:
    assert not _ok(origin)


def test_the_host_header_counts_only_for_hosts_we_serve_under() -> None:
    # DNS rebinding: evil.example now resolves to 127.0.0.1, so Origin and Host both say evil.
    assert not _ok("http://evil.example:8000", host="evil.example:8000")
    assert _ok("http://lab.local:8000", host="lab.local:8000", allowed_hosts=("lab.local",))
    assert not _ok("http://lab.local:8001", host="lab.local:8000", allowed_hosts=("lab.local",))
    # "*" is no longer a way to trust every name: a wildcard bind names its hosts.
    assert not _ok("http://10.0.0.5:8000", host="10.0.0.5:8000", allowed_hosts=("*",))
    assert _ok("http://10.0.0.5:8000", host="10.0.0.5:8000", allowed_hosts=("10.0.0.5",))
    assert not _ok("http://10.0.0.6:8000", host="10.0.0.5:8000", allowed_hosts=("10.0.0.5",))


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("LOCALHOST:1234", True),
        ("[::1]:8000", True),
        ("lab.school.example", True),  # given with --allowed-host
        ("lab.school.example:8443", True),
        ("evil.example", False),
        ("evil.example:8000", False),
        ("lab.school.example.evil.example", False),
        ("evil.example@127.0.0.1", False),  # not a host name at all
        ("127.0.0.1/x", False),
        ("127.0.0.1:99999999", False),
        ("", False),
        (None, False),
    ],
)
def test_host_names_we_answer_to(host, allowed) -> None:
    assert host_allowed(host, ("lab.school.example",)) is allowed
