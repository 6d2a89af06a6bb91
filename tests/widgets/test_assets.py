from __future__ import annotations

import json

import pytest

from attnlab.widgets.assets import BUNDLES, PAGE_STRINGS, bundle, strings


def test_the_strings_are_the_pages_catalogues_by_group() -> None:
    s = strings()
    for lang in ("en", "zh"):
        page = json.loads((PAGE_STRINGS / f"{lang}.json").read_text("utf-8"))
        shell = json.loads((PAGE_STRINGS / f"page.{lang}.json").read_text("utf-8"))
        assert s["page"][lang] == {**shell, **page}  # as lib/i18n.js loadCatalogues merges them
        for path in PAGE_STRINGS.glob(f"*.{lang}.json"):
            group = path.name.removesuffix(f".{lang}.json")
            if group != "page":
                assert s[group][lang] == json.loads(path.read_text("utf-8"))
        assert s["notebook"][lang]["nb.map.keys"]


def test_a_missing_bundle_says_how_to_build_it() -> None:
    assert bundle("lookup") == BUNDLES / "lookup.js"
    with pytest.raises(FileNotFoundError, match="make widgets"):
        bundle("nope")


def test_no_bundle_talks_to_a_server() -> None:
    # a notebook has no lesson server: the kernel answers everything over the widget's comm
    # (FIG 7's server-only timing and frame upload are left out by widgets/src/serveronly.js)
    for path in BUNDLES.glob("*.js"):
        code = path.read_text("utf-8")
        assert "/api/" not in code and "fetch(" not in code and "WebSocket" not in code, path.name


def test_the_message_names_are_the_protocol_file_s() -> None:
    from attnlab.widgets.assets import PROTOCOL, SETTINGS_CHANNEL, TRAINING_CHANNEL

    assert tuple(PROTOCOL["channels"].values()) == (SETTINGS_CHANNEL, TRAINING_CHANNEL)
    assert f'"{TRAINING_CHANNEL}"' in (BUNDLES / "training.js").read_text("utf-8")  # bundled in
