"""The lesson's words (content/{en,zh}) and their loader: structure, both languages, glossary,
placeholders, the try-its on real figure data (`attnlab.lesson`)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from attnlab import lesson
from attnlab.claims import CLAIM_IDS, fig2_inside, fig2_runs
from attnlab.figures import compute_figure, registry
from attnlab.lesson import LessonError, evaluate, loader, parse_condition
from attnlab.lesson import values as lesson_values
from attnlab.lesson.blocks import FIGURES, Context, parse_blocks, render_inline, render_tex

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
# Try-it tasks per figure: the spec's (FIG 1: 2, FIG 2: 3, …) and issue 13's (FIG 2: 2 more, …).
TRIES_PER_FIGURE = {
    "lookup": 2, "training": 5, "scaling": 1, "position": 2, "depth": 2, "kv-cache": 1, "tokens": 3,
    "flash": 1,
}  # fmt: skip


@pytest.fixture(scope="module")
def lessons() -> dict[str, dict[str, Any]]:
    return {lang: lesson.load_lesson(lang, None) for lang in lesson.LANGS}


def _fake_values(lang: str) -> dict[str, Any]:
    """A value for every placeholder; floats with decimals so format specs get exercised."""
    return {
        name: 1234.5678 if i % 2 else 7 for i, name in enumerate(sorted(lesson.placeholders(lang)))
    }


def _texts(blocks: list[dict[str, Any]]) -> Iterator[str]:
    """Every piece of reader-facing text (html) in a list of blocks, boxes included."""
    for b in blocks:
        if b.get("html"):
            yield b["html"]
        if b.get("title"):
            yield b["title"]
        yield from b.get("items", [])
        for key in ("caption", "body", "question", "answer"):
            yield from _texts(b.get(key, []))
        for option in b.get("options", []):
            yield option["html"]
            yield option["feedback"]


def _visible(html: str) -> str:
    """Text a reader sees as prose: without math and code spans."""
    return re.sub(r'<span class="math">.*?</span>|<code>.*?</code>', "", html)


def _boxes(part: dict[str, Any]) -> list[tuple]:
    """The identity of every box in a part, for comparing the two languages."""
    out = []
    for b in part["blocks"]:
        if b["type"] == "figure":
            out.append(("figure", b["name"]))
        elif b["type"] == "try":
            out.append(("try", b["id"], b["figure"], b["claim"], tuple(b["when"])))
        elif b["type"] == "exercise":
            correct = [o["correct"] for o in b["options"]]
            out.append(("exercise", b["id"], tuple(correct)))
        elif b["type"] in ("insight", "note", "pitfall"):
            out.append((b["type"],))
    return out


# --- both languages, same lesson -------------------------------------------------------------


def test_both_languages_have_the_same_files() -> None:
    expected = {*lesson.PART_FILES, lesson.GLOSSARY_FILE}
    for lang in lesson.LANGS:
        assert {p.name for p in (lesson.CONTENT / lang).glob("*.md")} == expected


def test_parts_have_the_same_ids_and_boxes_in_both_languages(lessons) -> None:
    en, zh = lessons["en"]["parts"], lessons["zh"]["parts"]
    assert [p["id"] for p in en] == [p["id"] for p in zh]
    for a, b in zip(en, zh, strict=True):
        assert _boxes(a) == _boxes(b), a["id"]
        heads = [[h["id"] for h in p["blocks"] if h["type"] == "heading"] for p in (a, b)]
        assert heads[0] == heads[1], f"{a['id']}: headings differ, so anchors would too"


def test_no_part_is_empty(lessons) -> None:
    for lang, data in lessons.items():
        for part in data["parts"]:
            assert part["title"].strip(), (lang, part["id"])
            assert sum(len(_visible(t)) for t in _texts(part["blocks"])) > 200, (lang, part["id"])


def test_chinese_text_is_chinese_and_english_text_is_english(lessons) -> None:
    for lang, data in lessons.items():
        for part in data["parts"]:
            for text in [part["title"], *_texts(part["blocks"])]:
                if lang == "zh":
                    assert CJK.search(_visible(text)), f"zh/{part['id']}: untranslated: {text[:80]}"
                else:
                    assert not CJK.search(text), f"en/{part['id']}: CJK in: {text[:80]}"


def test_glossary_defines_the_same_terms_in_both_languages(lessons) -> None:
    en, zh = lessons["en"]["glossary"], lessons["zh"]["glossary"]
    assert [g["id"] for g in en] == [g["id"] for g in zh]
    assert len({g["id"] for g in en}) == len(en), "duplicate glossary id"
    for g_en, g_zh in zip(en, zh, strict=True):
        assert g_en["term"] and g_en["other"] and g_en["html"]
        assert not CJK.search(g_en["term"] + g_en["html"]), g_en["id"]
        assert CJK.search(g_zh["html"]), g_zh["id"]


def test_every_glossary_link_resolves_in_both_languages(lessons) -> None:
    ids = {g["id"] for g in lessons["en"]["glossary"]}
    for lang, data in lessons.items():
        html = " ".join(t for p in data["parts"] for t in _texts(p["blocks"]))
        linked = set(re.findall(r'data-gloss="([^"]+)"', html))
        assert len(linked) >= 20, f"{lang}: the text links few glossary terms"
        assert linked <= ids, linked - ids


def test_an_unknown_glossary_link_is_refused() -> None:
    ctx = Context("en/test.md", None, loader.gloss_index("en"))
    assert 'data-gloss="softmax"' in render_inline("the [[Softmax]] of s", ctx)
    with pytest.raises(LessonError, match=r"\[\[flux capacitor\]\]"):
        render_inline("a [[flux capacitor]]", ctx)


def test_links_must_be_web_links() -> None:
    ctx = Context("en/test.md", None, {})
    assert 'href="https://arxiv.org/abs/1706.03762"' in render_inline(
        "[paper](https://arxiv.org/abs/1706.03762)", ctx
    )
    with pytest.raises(LessonError, match="not http"):
        render_inline("[x](javascript:alert(1))", ctx)


def test_the_lesson_is_plain_json(lessons) -> None:
    for data in lessons.values():
        assert json.loads(json.dumps(data)) == data


# --- figures, try-its, exercises -------------------------------------------------------------


def test_every_figure_appears_once_with_its_try_its(lessons) -> None:
    for data in lessons.values():
        blocks = [b for p in data["parts"] for b in p["blocks"]]
        figures = [b["name"] for b in blocks if b["type"] == "figure"]
        assert sorted(figures) == sorted(FIGURES)
        assert Counter(b["figure"] for b in blocks if b["type"] == "try") == TRIES_PER_FIGURE


def test_try_its_are_well_formed() -> None:
    found = lesson.tries()
    assert len({t["id"] for t in found}) == len(found), "duplicate try id"
    for t in found:
        assert t["claim"] in CLAIM_IDS, t
        assert t["figure"] in FIGURES, t
        for condition in t["when"]:
            parse_condition(condition)
            assert lesson.condition_paths(condition), f"{t['id']}: reads no data: {condition}"
            assert not evaluate(condition, {}), f"{t['id']}: true with no data: {condition}"


def test_a_try_it_of_several_stages_says_each_stage_in_a_paragraph_of_its_own(lessons) -> None:
    """FIG 2's list of a figure's tasks shows each stage's first clause (lib/figuretasks.js): a
    stage whose words are hidden in the first stage's paragraph is never seen there."""
    for lang, data in lessons.items():
        for part in data["parts"]:
            for block in loader._walk(part["blocks"], "try"):
                paragraphs = [b for b in block["body"] if b["type"] == "paragraph"]
                if len(block["when"]) > 1:
                    assert len(paragraphs) == len(block["when"]), (lang, block["id"])


# Where a panel sits holds only side by side: at 390 px the panels are stacked (issue 23).
SIDES = re.compile(
    r"on the (?:left|right)\b(?! answer)|in the middle"
    r"|(?:top|bottom|lower|upper) (?:left|right|row)"
    r"|[左右](?:边|栏|半边|[上下](?!角))|中栏"  # a corner of one drawing is fine
)


def test_the_text_never_places_a_panel_left_or_right() -> None:
    for lang in lesson.LANGS:
        for name in lesson.PART_FILES:
            text = (lesson.CONTENT / lang / name).read_text("utf-8")
            assert not SIDES.findall(text), (lang, name, SIDES.findall(text))


def test_symbols_use_known_highlight_keys_and_every_key_is_used() -> None:
    for lang in lesson.LANGS:
        source = "\n".join(
            (lesson.CONTENT / lang / n).read_text("utf-8") for n in lesson.PART_FILES
        )
        used = set(re.findall(r"\\hl\{([^}]*)\}", source))
        assert used == set(lesson.HL_KEYS), (lang, used ^ lesson.HL_KEYS)


def test_hl_becomes_html_data_and_unknown_keys_are_refused(lessons) -> None:
    tex = " ".join(
        b["tex"] for p in lessons["en"]["parts"] for b in p["blocks"] if b["type"] == "math"
    )
    assert r"\htmlData{hl=sqrtd}{\sqrt{d_k}}" in tex and r"\hl{" not in tex
    ctx = Context("en/test.md", None, {})
    with pytest.raises(LessonError, match="unknown \\\\hl key 'beta'"):
        render_tex(r"\hl{beta}{\beta}", ctx)


def test_exercises_have_four_options_one_correct_and_feedback_on_each() -> None:
    for lang in lesson.LANGS:
        found = lesson.exercises(lang)
        assert [e["id"] for e in found] == ["E1", "E2", "E3", "E4", "E5", "E6", "E7"]
        for e in found:
            assert len(e["options"]) == 4, (lang, e["id"])
            assert sum(o["correct"] for o in e["options"]) == 1, (lang, e["id"])
            assert all(o["feedback"].strip() for o in e["options"]), (lang, e["id"])
            assert e["question"] and e["answer"] and e["hint"].strip(), (lang, e["id"])


def test_an_exercise_without_its_hint_is_refused() -> None:
    text = "::: exercise X\nQ?\n\n- [x] a\n  > yes\n- [ ] b\n  > no\n\nanswer: A.\n:::"
    with pytest.raises(LessonError, match="'hint:'"):
        parse_blocks(text.split("\n"), 1, Context("en/test.md", None, {}))


def test_every_reference_links_to_its_paper(lessons) -> None:
    for data in lessons.values():
        reading = next(p for p in data["parts"] if p["id"] == "reading")
        items = [i for b in reading["blocks"] if b["type"] == "list" for i in b["items"]]
        assert len(items) >= 15
        assert all('<a href="https://arxiv.org/abs/' in i for i in items)


# --- placeholders ----------------------------------------------------------------------------


def test_both_languages_ask_for_the_same_numbers_part_by_part() -> None:
    for name in [*lesson.PART_FILES, lesson.GLOSSARY_FILE]:
        found = [
            {
                m[0]
                for m in lesson.PLACEHOLDER_RE.finditer(
                    (lesson.CONTENT / lang / name).read_text("utf-8")
                )
            }
            for lang in lesson.LANGS
        ]
        strip = [{re.sub(r":[^}]*", "", p) for p in f} for f in found]
        assert strip[0] == strip[1], (name, strip[0] ^ strip[1])
    for lang in lesson.LANGS:
        assert {name.rsplit(".", 1)[0] for name in lesson.placeholders(lang)} <= set(CLAIM_IDS)


def test_load_lesson_fills_every_placeholder(lessons) -> None:
    for lang in lesson.LANGS:
        filled = lesson.load_lesson(lang, _fake_values(lang))
        text = json.dumps(filled, ensure_ascii=False)
        assert not lesson.PLACEHOLDER_RE.search(text)
        assert text != json.dumps(lessons[lang], ensure_ascii=False)
        assert "1234.6" in text or "1235" in text  # a float went through a format spec


def test_values_may_be_grouped_by_claim() -> None:
    flat = _fake_values("en")
    grouped: dict[str, dict[str, Any]] = {}
    for key, value in flat.items():
        claim, name = key.rsplit(".", 1)
        grouped.setdefault(claim, {})[name] = value
    assert lesson.load_lesson("en", grouped) == lesson.load_lesson("en", flat)


def test_a_missing_value_is_named_with_its_place() -> None:
    values = _fake_values("en")
    del values["F6.1.cached"]
    with pytest.raises(LessonError, match=r"\{\{F6\.1\.cached\}\} \(en/04-parts\.md:\d+\)"):
        lesson.load_lesson("en", values)


@pytest.mark.parametrize(
    ("value", "spec", "shown"),
    [
        (225, None, "225"),
        (225.0, None, "225"),
        (0.97341, None, "0.973"),
        (7.8123, None, "7.81"),
        (3137.4, None, "3137"),
        (2.2e-16, None, "2.2e-16"),
        (0.5058, ".0%", "51%"),
        (790719351.6, "sci1", "7.9 × 10⁸"),
        (2.2e-16, "sci0", "2 × 10⁻¹⁶"),
        (4.1e-8, "sci", "4.1 × 10⁻⁸"),
        (7.8123, ".1f", "7.8"),
        ("n/a", None, "n/a"),
    ],
)
def test_values_are_formatted_for_reading(value: Any, spec: str | None, shown: str) -> None:
    assert lesson_values.format_value(value, spec) == shown


def test_a_value_that_is_not_a_number_is_refused() -> None:
    for bad in (math.nan, math.inf, [1, 2], True):
        for spec in (None, ".1f", "sci1"):
            with pytest.raises(LessonError):
                lesson_values.format_value(bad, spec)


def test_scientific_values_inside_math_are_tex() -> None:
    ctx = Context("en/test.md", {"F5.2": {"rms_24": 790719351.6}}, {})
    assert render_tex("{{F5.2.rms_24:sci1}}", ctx) == r"7.9\times10^{8}"


def test_a_percent_inside_math_does_not_start_a_tex_comment() -> None:
    ctx = Context("en/test.md", {"F7.3.attention_share": 0.5058}, {})
    assert render_tex("{{F7.3.attention_share:.0%}}", ctx) == r"51\%"


# --- the lesson's try-its on the figures' real data --------------------------------------------


def _toward(v: tuple[float, float], length: float) -> list[float]:
    return [x * length / math.hypot(*v) for x in v]


def _reversed(data: dict[str, Any]) -> dict[str, Any]:
    """FIG 4's data as the page sees it once the reader has pressed "Reverse trajectory"."""
    return {**data, "settings": {**data["settings"], "reversed": True}}


def _real_cases() -> list[tuple[str, int, dict[str, Any]]]:
    """(try id, stage, figure data) where the text tells the reader the stage is reached."""
    from attnlab.figures.lookup import DEFAULT_KEYS

    k0, k1 = DEFAULT_KEYS[0:2], DEFAULT_KEYS[2:4]
    between = (k0[0] + k1[0], k0[1] + k1[1])
    return [
        ("sharpen", 0, compute_figure("lookup", {"q": _toward(k0, 7.0)})),
        ("sharpen", 1, compute_figure("lookup", {"q": [0.05, 0.05]})),
        ("between", 0, compute_figure("lookup", {"q": _toward(between, 7.0)})),
        ("saturate", 0, compute_figure("scaling", {"d_k": 256, "scaled": False})),
        ("saturate", 1, compute_figure("scaling", {"d_k": 256, "scaled": True})),
        ("reverse", 0, _reversed(compute_figure("position", {"pe": "none"}))),
        ("reverse", 1, _reversed(compute_figure("position", {"pe": "sinusoidal"}))),
        ("no-residual", 0, compute_figure("depth", {"residual": False, "depth": 6})),
        ("pre-ln", 0, compute_figure("depth", {"norm": "none", "depth": 24})),
        ("pre-ln", 1, compute_figure("depth", {"norm": "pre", "depth": 24})),
        ("count", 0, compute_figure("kv-cache", {"mask": "causal", "cache": True, "step": 8})),
        ("count", 1, compute_figure("kv-cache", {"mask": "block", "cache": False, "step": 8})),
        ("wall", 0, compute_figure("tokens", {"cameras": 4, "patch": 8, "model": "small"})),
        ("wall", 1, compute_figure("tokens", {"cameras": 4, "patch": 8, "model": "7b"})),
        ("kv-share", 0, compute_figure("tokens", {"model": "7b", "kv": "gqa", "kv_heads": 8})),
        ("kv-share", 1, compute_figure("tokens", {"model": "7b", "kv": "mqa"})),
        ("latents", 0, compute_figure("tokens", {"cameras": 4, "patch": 8, "latents": 256})),
        ("latents", 1, compute_figure("tokens", {"cameras": 4, "patch": 8, "latents": 4096})),
        ("one-key", 0, compute_figure("flash", {"tile": 1, "step": 2})),
        ("one-key", 1, compute_figure("flash", {"tile": 1, "step": 7})),
        ("one-key", 2, compute_figure("flash", {"tile": 5, "step": 3})),
    ]


def _live_cases() -> list[tuple[str, int, dict[str, Any]]]:
    """Data the page assembles itself: FIG 2's training stream, and the RoPE shift counter."""

    def run(task: str, heads: int, errs: list[float], mlp: float = 25.0) -> dict[str, Any]:
        history = [{"step": 25 * i, "attn_err_cm": e, "attn_err6_cm": e + 0.5, "mlp_err_cm": mlp}
                   for i, e in enumerate(errs)]  # fmt: skip
        return {"settings": {"task": task, "heads": heads, "n_objects": 6}, "history": history}

    return [
        ("fetch-race", 0, run("fetch", 1, [30.0, 1.9])),
        ("six-objects", 0, run("fetch", 1, [30.0, 1.0])),
        ("two-heads", 0, run("vector", 1, [30.0] + [28.0] * 60)),
        ("two-heads", 1, run("vector", 2, [30.0, 2.5])),
        ("rope-shift", 0, {"settings": {"m": 6, "n": 10, "shift": 3}}),
        ("colour-table", 0, _trained("fetch", 1, steps=fig2_inside.FETCH_STEPS)),
        ("colour-table", 1, _trained("vector", 2)),
        ("failed-seed", 0, run("vector", 2, [30.0] * 60 + [30.5])),
    ]


def _trained(task: str, heads: int, steps: int | None = None) -> dict[str, Any]:
    """FIG 2's try-it data ({settings, history, colour_match}) of the default seed's claim run."""
    tr = fig2_runs.trained(task, heads, steps=steps)  # cached: F2.10's own runs
    settings = {"task": task, "heads": heads, "seed": tr.config.seed, "n_objects": 4}
    return {"settings": settings, "history": tr.history, "colour_match": tr.colour_match()}


def test_every_try_stage_is_reached_by_what_the_text_asks_for() -> None:
    cases = _real_cases() + _live_cases()
    conditions = {t["id"]: t["when"] for t in lesson.tries()}
    assert {(i, s) for i, s, _ in cases} == {
        (i, s) for i, w in conditions.items() for s in range(len(w))
    }
    for try_id, stage, data in cases:
        assert evaluate(conditions[try_id][stage], data), (try_id, stage)
    # … and not by the figure's defaults where the default is the "before" state
    assert not evaluate(conditions["saturate"][0], compute_figure("scaling", {}))
    assert not evaluate(conditions["no-residual"][0], compute_figure("depth", {}))
    # FIG 4 starts without an encoding: the first stage needs the reader to reverse the reach
    assert not evaluate(conditions["reverse"][0], compute_figure("position", {}))
    # FIG 8: a tile that did not raise m ticks nothing; its default is tile 4 at the first tile
    assert not evaluate(conditions["one-key"][1], compute_figure("flash", {"tile": 1, "step": 3}))
    assert not evaluate(conditions["one-key"][0], compute_figure("flash", {}))
    # FIG 2: an untrained table peaks off the diagonal; the default seed learns the vector task
    assert not evaluate(conditions["colour-table"][0], compute_figure("training", {}))
    untrained = compute_figure("training", {"task": "vector", "heads": 2})
    assert not evaluate(conditions["colour-table"][1], untrained)
    assert not evaluate(conditions["failed-seed"][0], _trained("vector", 2))


def test_the_failed_seed_try_it_asks_for_f2_11s_run_and_threshold() -> None:
    """The condition's numbers are the claim's: a run to fig2_runs.STEPS, above FAIL_CM."""
    (condition,) = next(t["when"] for t in lesson.tries() if t["id"] == "failed-seed")
    steps, fail_cm = fig2_runs.STEPS, fig2_inside.FAIL_CM

    def at(step: int, err: float) -> dict[str, Any]:
        record = {"step": step, "attn_err_cm": err}
        return {"settings": {"task": "vector", "heads": 2}, "history": [record]}

    assert evaluate(condition, at(steps, fail_cm + 0.01))
    assert not evaluate(condition, at(steps, fail_cm))
    assert not evaluate(condition, at(steps - 1, fail_cm + 10))


# --- slots: the text for the page, which fills the numbers as they are measured ------------------

SLOT_HTML = re.compile(
    r'<span class="val( pending)?" data-claim="([^"]+)" data-name="([^"]+)" data-fmt="([^"]*)">'
    r"([^<]*)</span>"
)


def test_slots_without_values_keep_every_number_pending() -> None:
    for lang in lesson.LANGS:
        text = json.dumps(lesson.load_lesson(lang, None, slots=True), ensure_ascii=False)
        text = text.replace('\\"', '"')
        assert "{{" not in text
        found = SLOT_HTML.findall(text)
        assert {f"{c}.{n}" for _, c, n, _, _ in found} == lesson.placeholders(lang)
        assert all(pending and shown == "…" for pending, _, _, _, shown in found)


def test_slots_are_filled_with_what_is_known_and_wait_for_the_rest() -> None:
    values = _fake_values("en")
    missing = "F6.1.cached"
    del values[missing]
    data = lesson.load_lesson("en", values, slots=True)  # no LessonError: the page fills it later
    text = json.dumps(data, ensure_ascii=False).replace('\\"', '"')
    plain_text = json.dumps(lesson.load_lesson("en", _fake_values("en")), ensure_ascii=False)
    for pending, claim, name, fmt, shown in SLOT_HTML.findall(text):
        if f"{claim}.{name}" == missing:
            assert pending and shown == "…"
        else:
            want = lesson_values.format_value(values[f"{claim}.{name}"], fmt or None)
            assert not pending and shown == want and want in plain_text


def test_a_value_that_cannot_be_shown_leaves_its_slot_pending() -> None:
    ctx = Context("en/test.md", {"F2.2": {"steps": None}}, {}, slots=True)
    html = render_inline("after {{F2.2.steps}} steps", ctx)
    assert 'class="val pending"' in html and 'data-name="steps"' in html


def test_tex_slots_are_html_data_that_katex_turns_into_attributes() -> None:
    known = Context("en/test.md", {"F7.3": {"attention_share": 0.5058}}, {}, slots=True)
    assert render_tex("{{F7.3.attention_share:.0%}}", known) == (
        r"\htmlData{claim=F7.3,name=attention_share,fmt=.0pct}{51\%}"  # no % in the key
    )
    unknown = Context("en/test.md", {}, {}, slots=True)
    assert render_tex(r"x = {{F5.2.rms_24:sci1}}", unknown) == (
        r"x = \htmlData{claim=F5.2,name=rms_24,fmt=sci1}{\ldots}"
    )


@pytest.mark.parametrize("spec", [".2e", "g", ",", ".1f%", "sci1x", ">8"])
def test_a_format_the_page_could_not_follow_is_refused(spec: str) -> None:
    ctx = Context("en/test.md", None, {})
    with pytest.raises(LessonError, match="format"):
        render_inline(f"{{{{F2.2.steps:{spec}}}}}", ctx)


def test_every_format_in_the_text_is_one_the_page_follows() -> None:
    for lang in lesson.LANGS:
        for name in [*lesson.PART_FILES, lesson.GLOSSARY_FILE]:
            source = (lesson.CONTENT / lang / name).read_text("utf-8")
            for m in lesson.PLACEHOLDER_RE.finditer(source):
                assert m[3] is None or lesson_values.FORMAT_RE.fullmatch(m[3]), (lang, name, m[0])


# --- the page's interface strings: both languages complete --------------------------------------

I18N = lesson.CONTENT.parent / "static" / "i18n"
TERMS = {"attnlab", "MLP", "RoPE", "LayerNorm", "Pre", "Post"}  # the same in both languages


def _reads_the_same_in_both(text: str) -> bool:
    """A term, a unit or a formula (MLP, Pre-LN, "({x}, {y}) cm"): no other word in it."""
    return set(re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", "", text))) <= TERMS


def _catalogue_pairs() -> list[tuple[str, dict[str, str], dict[str, str]]]:
    pairs = []
    for en_file in sorted(I18N.glob("*en.json")):
        zh_file = en_file.with_name(en_file.name.replace("en.json", "zh.json"))
        en, zh = (json.loads(f.read_text("utf-8")) for f in (en_file, zh_file))
        pairs.append((en_file.name, en, zh))
    return pairs


def test_interface_strings_have_the_same_keys_and_placeholders_in_both_languages() -> None:
    pairs = _catalogue_pairs()
    figures = [f"{name}.en.json" for name in registry.names()]  # one catalogue a figure view
    own = ["en.json", "page.en.json", "teach.en.json"]  # the page's, its shell's, the teacher's
    assert [name for name, *_ in pairs] == sorted([*own, *figures])
    for name, en, zh in pairs:
        assert en.keys() == zh.keys(), (name, en.keys() ^ zh.keys())
        for key in en:
            assert set(re.findall(r"\{(\w+)\}", en[key])) == set(
                re.findall(r"\{(\w+)\}", zh[key])
            ), key
            assert en[key].strip() and zh[key].strip(), key


def test_every_chinese_interface_string_is_translated() -> None:
    for name, en, zh in _catalogue_pairs():
        for key, text in zh.items():
            if CJK.search(text):
                continue
            # left in English only where it reads the same in both (a term, a formula)
            assert text == en[key] and _reads_the_same_in_both(text), (name, key, text)
        assert not [k for k, t in en.items() if CJK.search(t) and k != "lang.zh"], name


def test_every_claim_has_a_title_in_both_languages() -> None:
    en, zh = (json.loads((I18N / f"{lang}.json").read_text("utf-8")) for lang in lesson.LANGS)
    from attnlab.claims import all_checks

    for cid in all_checks():
        assert f"claim.{cid}" in en and f"claim.{cid}" in zh, cid
        assert CJK.search(zh[f"claim.{cid}"]), cid


# --- the claims panel: the numbers it shows as measured are the text's ---------------------------


def _text_formats(lang: str) -> dict[tuple[str, str], set[str]]:
    """(claim, name) → the format specs the lesson text shows that value in."""
    found: dict[tuple[str, str], set[str]] = {}
    for name in [*lesson.PART_FILES, lesson.GLOSSARY_FILE]:
        source = (lesson.CONTENT / lang / name).read_text("utf-8")
        for m in lesson.PLACEHOLDER_RE.finditer(source):
            found.setdefault((m[1], m[2]), set()).add(m[3] or "")
    return found


def test_the_panel_shows_the_engines_values_in_the_texts_formats() -> None:
    """The "this page measures" column is a sentence per claim whose numbers are placeholders
    (filled like the text's slots): each names a measured value, and where the text shows the
    same value it uses the same format, so both show the same digits. Any other number in it is a
    whole-number setting of the check (4 cameras, 1500 steps) that the engine's condition, its
    report or the claim's title names; the textbook's numbers stay in their own column."""
    from attnlab.claims import run_claims

    results = {r.id: r for r in run_claims()}
    for lang in lesson.LANGS:
        catalogue = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
        formats = _text_formats(lang)
        for cid, result in results.items():
            sentence = catalogue[f"claimmeasured.{cid}"]
            slots = list(lesson.PLACEHOLDER_RE.finditer(sentence))
            assert slots, (lang, cid, "shows no measured value")
            for m in slots:
                assert m[1] == cid and m[2] in result.values, (lang, cid, m[0])
                assert lesson_values.format_value(result.values[m[2]], m[3]), (lang, m[0])
                shown_in_text = formats.get((m[1], m[2]))
                assert not shown_in_text or (m[3] or "") in shown_in_text, (
                    f"{lang}: the panel shows {m[0]}, the text {sorted(shown_in_text)}"
                )
            for formula in re.findall(r"\$[^$]*\$", sentence):
                assert "{{" not in formula, (lang, cid, "a slot inside math is not filled")
            rest = lesson.PLACEHOLDER_RE.sub(" ", sentence)
            assert not re.search(r"\d\.\d", rest), (lang, cid, "a decimal that is not measured")
            settings = set(re.findall(r"\d+", result.condition + result.measured))
            settings |= set(re.findall(r"\d+", catalogue[f"claim.{cid}"]))
            for number in re.findall(r"(?<![A-Za-z\d])\d+(?![A-Za-z\d])", rest):  # not 7B, fp16
                assert number in settings, (lang, cid, f"{number}: neither measured nor a setting")


def test_the_panel_sentences_exist_for_every_claim_and_no_other() -> None:
    from attnlab.claims import all_checks

    for lang in lesson.LANGS:
        catalogue = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
        keys = {k.split(".", 1)[1] for k in catalogue if k.startswith("claimmeasured.")}
        assert keys == set(all_checks()), lang


# --- the claims panel: the condition, translated, its thresholds the engine's -------------------


def _condition_slots_resolve(sentence: str, cid: str, values: dict[str, Any], title: str) -> None:
    """Every slot names a value the check returns; every other number is not a threshold: no
    decimal or 1e-3 outside the slots, and a whole number only inside math ($d_k = 1$) or where
    the claim's title names it (the "2 cm" of "below 2 cm")."""
    for m in lesson.PLACEHOLDER_RE.finditer(sentence):
        assert m[1] == cid and m[2] in values, (cid, m[0])
        assert lesson_values.format_value(values[m[2]], m[3]), (cid, m[0])
    for formula in re.findall(r"\$[^$]*\$", sentence):
        assert "{{" not in formula, (cid, "a slot inside math is not filled")
    rest = lesson.PLACEHOLDER_RE.sub(" ", sentence)
    assert not re.search(r"\d\.\d|\de-\d", rest), (cid, "a threshold the engine did not return")
    named = set(re.findall(r"\d+", title))
    for number in re.findall(r"(?<![\w.])\d+(?![\w.])", re.sub(r"\$[^$]*\$", " ", rest)):
        assert number in named, (cid, f"{number}: a number the check does not return")


@pytest.fixture(scope="module")
def every_check_result() -> list[tuple[bool, Any]]:
    """(slow, result) of every check of the registry, the sweeps cut to a few seeds."""
    from attnlab.claims import all_checks, fig2, fig2_runs, fig3, fig4, fig5

    small = {(fig2_runs, "SWEEP_SEEDS"): (0, 1), (fig3, "SWEEP_SEEDS"): 2}
    small |= {(fig4, "SWEEP_LAYERS"): 3}
    small |= {(fig5, "FAST_SEEDS"): range(2), (fig5, "FULL_SEEDS"): range(3)}
    with pytest.MonkeyPatch.context() as mp:
        for (module, name), value in small.items():
            mp.setattr(module, name, value)
        fig2.swept.cache_clear()
        fig3.seed_sweep.cache_clear()
        try:
            return [(c.slow, c.run()) for checks in all_checks().values() for c in checks]
        finally:
            fig2.swept.cache_clear()
            fig3.seed_sweep.cache_clear()


def test_every_condition_is_translated_with_the_engines_thresholds(every_check_result) -> None:
    """Every check's "how we test it" sentence (fast and sweep) is in both catalogues, every
    threshold in it a value the check returns; and the catalogues hold no other."""
    from attnlab.claims import CLAIM_IDS
    from attnlab.claims.text import condition_key

    used = {condition_key(r.id, r.values) for _, r in every_check_result}
    assert {r.id for _, r in every_check_result} == set(CLAIM_IDS)
    for lang in lesson.LANGS:
        catalogue = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
        assert used == {k for k in catalogue if k.startswith("claimcondition.")}, lang
        for slow, r in every_check_result:
            key = condition_key(r.id, r.values)
            sentence = catalogue[key]
            _condition_slots_resolve(sentence, r.id, r.values, catalogue[f"claim.{r.id}"])
            if lang == "zh":
                assert CJK.search(sentence), key
            if "n_seeds" in r.values:
                assert slow and key.endswith(".sweep"), r.id


def test_a_condition_slot_the_check_does_not_return_is_refused() -> None:
    from attnlab.claims.text import fill

    assert fill("above {{F2.2.race_cm}} cm", "F2.2", {"race_cm": 20}) == "above 20 cm"
    for sentence in ("above {{F2.2.race_cm}} cm", "above {{F2.6.steps_lo}}"):
        with pytest.raises(KeyError, match="does not return"):
            fill(sentence, "F2.2", {"steps": 225})
