from __future__ import annotations

import json
import re

import pytest

from attnlab.widgets.assets import BUNDLES, OWN_STRINGS, PAGE_STRINGS, bundle, strings


def test_the_strings_are_the_pages_catalogues_by_group() -> None:
    s = strings()
    for lang in ("en", "zh"):
        page = json.loads((PAGE_STRINGS / f"{lang}.json").read_text("utf-8"))
        shell = json.loads((PAGE_STRINGS / f"page.{lang}.json").read_text("utf-8"))
        assert s["page"][lang] == {**shell, **page}  # as lib/i18n.js loadCatalogues merges them
        for path in PAGE_STRINGS.glob(f"*.{lang}.json"):
            group = path.name.removesuffix(f".{lang}.json")
            if group != "page":
                assert s[group][lang] == {**_read(path), **_read(OWN_STRINGS / path.name)}
        assert s["notebook"][lang]["nb.map.keys"]


def _read(path) -> dict:
    return json.loads(path.read_text("utf-8")) if path.is_file() else {}


@pytest.mark.parametrize(("lang", "server"), [("en", "server"), ("zh", "服务器")])
def test_fig7s_words_say_the_kernel_answers_in_a_notebook(lang: str, server: str) -> None:
    # "Measured on this server", "the server cuts its centre square": in a notebook the kernel
    # does both. Replaced words replace keys the page has (a renamed key would leave them unused).
    words = strings()["tokens"][lang]
    assert not [k for k, text in words.items() if server in text]
    assert ("kernel" if lang == "en" else "内核") in words["tk.time.title"]
    for path in OWN_STRINGS.glob(f"*.{lang}.json"):
        page = _read(PAGE_STRINGS / path.name)
        if page:
            assert set(_read(path)) <= set(page), path.name
        other = path.with_name(path.name.replace(f".{lang}.", ".en." if lang == "zh" else ".zh."))
        assert set(_read(path)) == set(_read(other)), path.name


def test_a_missing_bundle_says_how_to_build_it() -> None:
    assert bundle("lookup") == BUNDLES / "lookup.js"
    with pytest.raises(FileNotFoundError, match="make widgets"):
        bundle("nope")


def test_every_server_request_of_a_bundle_is_one_the_kernel_answers() -> None:
    # a notebook has no lesson server: the kernel answers over the widget's comm. Only FIG 7 asks
    # (its timing and frame upload, through widgets/src/kernelapi.js; the page's fetch stays in
    # its bundle as lib/api.js's unused default)
    from attnlab.widgets.tokens import FRAME_URL, TIMING_URL

    for path in BUNDLES.glob("*.js"):
        code = path.read_text("utf-8")
        assert "WebSocket" not in code, path.name
        asked = set(re.findall(r"/api/[a-z/]+", code))
        assert asked == ({TIMING_URL, FRAME_URL} if path.name == "tokens.js" else set()), path.name
        assert ("fetch(" in code) == bool(asked), path.name


def test_the_message_names_are_the_protocol_file_s() -> None:
    from attnlab.widgets.assets import API_CHANNEL, PROTOCOL, SETTINGS_CHANNEL, TRAINING_CHANNEL

    assert tuple(PROTOCOL["channels"].values()) == (SETTINGS_CHANNEL, TRAINING_CHANNEL, API_CHANNEL)
    assert f'"{TRAINING_CHANNEL}"' in (BUNDLES / "training.js").read_text("utf-8")  # bundled in
