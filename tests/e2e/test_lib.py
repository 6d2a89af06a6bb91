"""The page's small JS modules (static/js/lib), run in Chromium without the lesson around them:
the URL state, the request coalescing of the API client, the translator, scales and formats."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def lib_page(browser: Any) -> Iterator[Any]:
    """One page for the whole module: these tests need no lesson, only the origin."""
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def js(lib_page: Any, server: str) -> Any:
    """evaluate(body) with the lib modules imported as S (state), A (api), I (i18n), G (svg),
    F (format); body is the inside of an async function. Each test gets a fresh document."""
    page = lib_page
    page.goto(f"{server}/static/i18n/en.json")  # any page of the lesson's origin will do

    def run(body: str, arg: Any = None) -> Any:
        return page.evaluate(
            f"""async (arg) => {{
                const [S, A, I, G, F] = await Promise.all(["state", "api", "i18n", "svg", "format"]
                  .map((m) => import(`/static/js/lib/${{m}}.js`)));
                {body}
            }}""",
            arg,
        )

    return run


SPECS = {
    "lookup": [
        {"name": "q", "kind": "vector", "length": 2, "min": -5, "max": 5, "default": [1.0, 0.5]},
        {"name": "mode", "kind": "choice", "choices": ["soft", "hard"], "default": "soft"},
    ],
    "scaling": [
        {"name": "d_k", "kind": "int", "min": 1, "max": 1024, "default": 64},
        {"name": "scaled", "kind": "bool", "default": True},
        {"name": "t", "kind": "float", "min": 0, "max": 1, "default": 0.5},
    ],
}


def test_hash_holds_only_changed_settings_and_round_trips(js) -> None:
    out = js(
        """const store = S.createStore(arg, {hash: "", lang: "zh"});
           const before = store.hash();
           store.set("lookup", {q: [1.25, -0.5]});
           store.set("scaling", {scaled: "false", d_k: 256});
           const hash = store.hash();
           const again = S.createStore(arg, {hash, lang: "en"});
           return {before, hash, lang: again.state.lang, figs: again.state.figs};""",
        SPECS,
    )
    assert out["before"] == "#lang=zh"
    assert out["hash"] == "#lang=zh&lookup.q=1.25,-0.5&scaling.d_k=256&scaling.scaled=false"
    assert out["lang"] == "zh"
    assert out["figs"]["lookup"] == {"q": [1.25, -0.5], "mode": "soft"}
    assert out["figs"]["scaling"] == {"d_k": 256, "scaled": False, "t": 0.5}


@pytest.mark.parametrize(
    ("hash_", "expected"),
    [
        ("#scaling.d_k=2000", 64),  # out of range → default
        ("#scaling.d_k=2.5", 64),  # not an integer
        ("#scaling.d_k=", 64),
        ("#scaling.nope=3&scaling.d_k=8", 8),  # unknown names are ignored, known ones kept
        ("#s-training", 64),  # a plain anchor is not state
    ],
)
def test_bad_values_in_a_link_fall_back_to_defaults(js, hash_: str, expected: int) -> None:
    got = js(
        "return S.createStore(arg.specs, {hash: arg.hash}).state.figs.scaling.d_k;",
        {"specs": SPECS, "hash": hash_},
    )
    assert got == expected


def test_every_piece_of_a_link_stands_alone_and_the_bad_ones_are_reported(js) -> None:
    out = js(
        """const h = "#lookup.q=%E0%A4%A&scaling.d_k=256&%ZZ=1&lang=zh&scaling.t=2"
             + "&lookup.nope=1&constructor.x=1&scaling.scaled=%";
           const d = S.decodeHash(h, arg);
           const store = S.createStore(arg, {hash: h});
           return {lang: d.lang, figs: d.figs, problems: d.problems.map((p) =>
             [p.key, p.given, p.reason, p.fig ?? null, p.spec?.name ?? null]),
             kept: store.state.figs.scaling, same: store.linkProblems().length};""",
        SPECS,
    )
    assert out["lang"] == "zh"
    assert out["figs"] == {"scaling": {"d_k": 256}}
    assert out["problems"] == [
        ["lookup.q", "%E0%A4%A", "malformed", "lookup", "q"],  # cut mid-escape: the value
        ["%ZZ", "1", "malformed", None, None],  # … or the name
        ["scaling.t", "2", "invalid", "scaling", "t"],  # out of its range
        ["lookup.nope", "1", "unknown", None, None],
        ["constructor.x", "1", "unknown", None, None],  # not a figure, whatever Object has
        ["scaling.scaled", "%", "malformed", "scaling", "scaled"],
    ]
    assert out["kept"] == {"d_k": 256, "scaled": True, "t": 0.5}
    assert out["same"] == 6


@pytest.mark.parametrize(
    ("hash_", "problems"),
    [
        ("#%%%%", [["%%%%", "unreadable"]]),  # a link cut inside an escape, no setting at all
        ("#%E4%B8", [["%E4%B8", "unreadable"]]),
        ("#scaling.d_k=8&junk&lang=zh", [["junk", "unreadable"]]),  # a piece with no "="
        ("#s-training", []),  # a place on the page is no problem
    ],
)
def test_a_link_the_page_cannot_read_is_reported_not_dropped(js, hash_: str, problems) -> None:
    got = js(
        "return S.decodeHash(arg.hash, arg.specs).problems.map((p) => [p.key, p.reason]);",
        {"specs": SPECS, "hash": hash_},
    )
    assert got == problems


def test_a_loaded_link_replaces_the_reported_problems(js) -> None:
    out = js(
        """const store = S.createStore(arg, {hash: "#lang=fr"});
           const first = store.linkProblems().map((p) => [p.key, p.reason]);
           store.load("#scaling.d_k=0&scaling.t=0.25");
           return {first, then: store.linkProblems().map((p) => [p.key, p.given]),
                   t: store.state.figs.scaling.t, lang: store.state.lang};""",
        SPECS,
    )
    assert out["first"] == [["lang", "invalid"]] and out["lang"] == "en"
    assert out["then"] == [["scaling.d_k", "0"]] and out["t"] == 0.25


def test_store_set_reports_only_real_changes(js) -> None:
    out = js(
        """const store = S.createStore(arg);
           const events = [];
           store.subscribe((e) => events.push(e));
           const a = store.set("scaling", {d_k: 64});          // unchanged
           const b = store.set("scaling", {d_k: 0, t: 0.25});  // d_k invalid, t changes
           const c = store.set("lookup", {q: [9, 0]});         // out of range
           store.setLang("zh"); store.setLang("xx");
           return {a, b, c, events, d_k: store.state.figs.scaling.d_k};""",
        SPECS,
    )
    assert out["a"] == [] and out["b"] == ["t"] and out["c"] == []
    assert out["d_k"] == 64
    assert out["events"] == [
        {"kind": "settings", "fig": "scaling", "changed": ["t"]},
        {"kind": "lang"},
    ]


# A fake server for the requester: each fetch waits `delays[i]` ms (40 when not listed) and
# answers its own URL; `out` tracks requests out at once.
FAKE_FETCH = """
  const calls = [], out = { now: 0, most: 0 };
  const delays = arg?.delays ?? [];
  window.fetch = (url) => {
    calls.push(url);
    out.now += 1; out.most = Math.max(out.most, out.now);
    const wait = delays[calls.length - 1] ?? 40;
    return new Promise((ok) => setTimeout(() => {
      out.now -= 1;
      ok(new Response(JSON.stringify({ url }), { status: 200 }));
    }, wait));
  };
  const frame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
"""


def test_one_request_at_a_time_and_the_newest_setting_wins(js) -> None:
    out = js(
        FAKE_FETCH
        + """const shown = [], busy = [];
           const r = A.figureRequester("scaling", (data) => shown.push(data.url),
             { onBusy: (b) => busy.push(b) });
           for (const d of [1, 2, 4, 8]) r.request({d_k: d});     // one frame: only the last goes
           await frame();
           for (const d of [16, 32, 64]) { r.request({d_k: d}); await frame(); }  // while 8 is out
           await sleep(200);
           return {calls, shown, most: out.most, busy};""",
    )
    assert out["calls"] == ["/api/figures/scaling?d_k=8", "/api/figures/scaling?d_k=64"]
    assert out["most"] == 1
    # each answer is drawn (in order, never older than the one shown), the last one last
    assert out["shown"] == out["calls"]
    assert out["busy"][0] is True and out["busy"][-1] is False


def test_a_setting_equal_to_the_one_out_is_not_sent_again(js) -> None:
    out = js(
        FAKE_FETCH
        + """const shown = [];
           const r = A.figureRequester("scaling", (data) => shown.push(data.url));
           r.request({d_k: 8});
           await frame();
           r.request({d_k: 16});   // waits behind 8 ...
           r.request({d_k: 8});    // ... and the reader came back to 8: nothing more to send
           await sleep(150);
           return {calls, shown};""",
    )
    assert out["calls"] == ["/api/figures/scaling?d_k=8"]
    assert out["shown"] == ["/api/figures/scaling?d_k=8"]


def test_a_stale_error_is_not_shown_and_a_throwing_drawing_does_not_stop_the_next(js) -> None:
    out = js(
        """const calls = [];
           window.fetch = (url) => {
             calls.push(url);
             const fail = calls.length === 1;
             const body = fail ? {detail: "first fails"} : {url};
             return new Promise((ok) => setTimeout(
               () => ok(new Response(JSON.stringify(body), {status: fail ? 422 : 200})), 40));
           };
           const frame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
           const errors = [], shown = [];
           const draw = (data) => { shown.push(data.url); throw new Error("draw"); };
           const r = A.figureRequester("scaling", draw, { onError: (m) => errors.push(m) });
           r.request({d_k: 1});
           await frame();
           r.request({d_k: 2});  // newer: the first one's error is not news
           await new Promise((ok) => setTimeout(ok, 150));
           r.request({d_k: 3});  // the drawing of 2 threw; 3 still goes
           await new Promise((ok) => setTimeout(ok, 150));
           return {calls, errors, shown};""",
    )
    assert out["errors"] == []
    assert out["calls"][-1] == "/api/figures/scaling?d_k=3"
    assert out["shown"] == ["/api/figures/scaling?d_k=2", "/api/figures/scaling?d_k=3"]


def test_an_answer_that_never_comes_is_given_up(js) -> None:
    out = js(
        """const L = await import("/static/js/lib/latest.js");
           const calls = [], errors = [], got = [];
           const never = new Promise(() => {});
           const send = (s) => (calls.push(s.n), s.n === 1 ? never : Promise.resolve(s.n));
           const r = L.latestOnly(send, { onAnswer: (a) => got.push(a),
             onError: (e) => errors.push(e.message), patienceMs: 60,
             schedule: (fn) => setTimeout(fn, 0) });
           r.request({n: 1});
           await new Promise((ok) => setTimeout(ok, 100));
           r.request({n: 2});
           await new Promise((ok) => setTimeout(ok, 30));
           return {calls, errors, got};""",
    )
    assert out["calls"] == [1, 2]
    assert out["errors"] == ["no answer within 0.06 s"]
    assert out["got"] == [2]


def test_api_errors_become_messages(js) -> None:
    out = js(
        """const msg = "d_k: 0 is out of range; expected an integer in [1, 1024]";
           const detail = [{loc: ["query", "d_k"], msg, type: "value_error"}];
           window.fetch = async () => new Response(JSON.stringify({detail}), {status: 422});
           const got = [];
           const onError = (m) => got.push(m);
           const r = A.figureRequester("scaling", () => got.push("data"), {onError});
           r.request({d_k: 0});
           await new Promise((ok) => setTimeout(ok, 100));
           return got;""",
    )
    assert out == ["d_k: 0 is out of range; expected an integer in [1, 1024]"]


def test_translator_interpolates_and_falls_back(js) -> None:
    out = js(
        """const cats = {en: {a: "step {n}", b: "only English"}, zh: {a: "第 {n} 步"}};
           let lang = "zh";
           const t = I.translator(cats, () => lang);
           const zh = [t("a", {n: 3}), t("b"), t("missing.key")];
           lang = "en";
           return [...zh, t("a", {n: 4}), t("a")];""",
    )
    assert out == ["第 3 步", "only English", "missing.key", "step 4", "step {n}"]


def test_scales_ticks_and_number_formats(js) -> None:
    out = js(
        """const lin = G.linear([0, 80], [10, 370]);
           const lg = G.log([0.3, 100], [300, 0]);
           return {
             lin: [lin(40), lin.invert(370), lin.ticks(4)],
             log: [Math.round(lg(1) * 1000) / 1000, lg.ticks()],
             fmt: [F.num(0.00012), F.num(-3.14159), F.fixed(1.25, 1), F.weight(0.974), F.weight(1),
                   F.count(8194), F.num(null)],
           };""",
    )
    assert out["lin"] == [190, 80, [0, 20, 40, 60, 80]]
    assert out["log"][1] == [0.3, 1, 3, 10, 30, 100]
    assert 0 < out["log"][0] < 300
    assert out["fmt"] == ["1.20e−4", "−3.14", "1.3", ".97", "1", "8\u2009194", "—"]


def test_heads_are_drawn_in_the_slides_colours(js) -> None:
    from attnlab.export.style import HEAD_COLOURS

    out = js('const H = await import("/static/js/lib/trainheads.js"); return [...H.HEAD_COLOURS];')
    assert tuple(out) == HEAD_COLOURS  # "head 2" is the same colour on the page and on a slide


def test_block_colours_are_the_engine_s_names_drawn_as_the_slides_draw_them(js) -> None:
    from attnlab.export.style import OBJECT_COLOURS
    from attnlab.tabletop.scenes import COLOURS

    out = js(
        """const C = await import("/static/js/lib/colours.js");
           let unknown = null;
           try { C.objectColour("magenta"); } catch (error) { unknown = error.message; }
           return {hexes: C.OBJECT_COLOURS, dark: [...C.DARK_INK], unknown,
                   ink: arg.map((name) => C.letterInk(name))};""",
        COLOURS,
    )
    assert out["hexes"] == OBJECT_COLOURS  # the page and the slides draw a block alike
    assert set(out["hexes"]) == set(COLOURS)  # no colour the engine does not name, none missing
    assert set(out["dark"]) < set(COLOURS)
    assert out["ink"].count("#fff") == len(COLOURS) - len(out["dark"])
    assert "magenta" in out["unknown"]  # an unknown name is an error, not a guess
