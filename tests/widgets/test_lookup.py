from __future__ import annotations

import re

import numpy as np
import pytest

from attnlab.figures.lookup import PARAMS
from attnlab.nn import attention
from attnlab.widgets import ParamError, lookup
from attnlab.widgets.lookup import SHAPES
from tests.widgets.conftest import from_view

Q = np.array([3.0, 0.5])
K = np.array([[2.0, 0.0], [0.6, 1.9], [-1.6, 1.2], [-1.6, -1.2], [0.6, -1.9]])
V = np.array([[20.0, 62.0], [58.0, 66.0], [64.0, 24.0], [30.0, 16.0], [30.0, 44.0]])


def test_weights_are_the_engines_attention_on_the_learners_arrays() -> None:
    w = lookup(q=Q, keys=K, values=V)
    _, expected = attention(Q[None, :], K, V)
    np.testing.assert_allclose(w.data["weights"], expected[0], rtol=1e-12)
    np.testing.assert_allclose(w.data["output"], expected[0] @ V, rtol=1e-12)
    assert w.settings["keys"] == K.tolist()  # read back in the shape it was given


def test_traits_describe_the_figure() -> None:
    w = lookup()
    assert w.figure == "lookup"
    assert w.params == [p.describe() for p in PARAMS]
    assert w.settings == {
        p.name: np.reshape(p.default, SHAPES[p.name]).tolist() if p.kind == "vector" else p.default
        for p in PARAMS
    }
    assert w.error == ""
    assert set(w.strings["page"]) == {"en", "zh"} and "lookup" in w.strings
    assert w._esm.strip().startswith(("var ", "import", "function", "const", "let"))


def test_a_change_from_python_recomputes_and_keeps_the_other_settings() -> None:
    w = lookup(q=Q, keys=K, values=V)
    w.settings = {"q": [0.0, 3.0]}
    _, expected = attention(np.array([[0.0, 3.0]]), K, V)
    np.testing.assert_allclose(w.data["weights"], expected[0], rtol=1e-12)
    assert w.settings["keys"] == K.tolist()  # not reset to the default circle
    assert w.set(mode="hard").data["weights"].count(1.0) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"q": [1.0, 2.0, 3.0]}, "q: expected shape (2,), got (3,)"),
        ({"keys": np.zeros((4, 2))}, "keys: expected shape (5, 2), got (4, 2)"),
        ({"values": V + 100}, "values: 120 is out of range; expected 10 numbers in [0, 80]"),
        ({"q": [9.0, 0.0]}, "q: 9 is out of range; expected 2 numbers in [-8, 8]"),
        ({"q": ["a", 1]}, "q: expected an array of numbers of shape (2,)"),
        ({"q": [np.nan, 1.0]}, "q: every number must be finite; got nan at index (0,)"),
        ({"keys": np.where(np.eye(5, 2) > 0, np.inf, K)}, "keys: every number must be finite"),
        ({"q": np.array([1 + 1j, 2])}, "q: complex numbers are not accepted"),
        ({"q": [1 + 0j, 2.0]}, "q: complex numbers are not accepted"),
        ({"keys": K.ravel()}, "keys: expected shape (5, 2), got (10,)"),
    ],
)
def test_bad_arrays_raise_a_clear_value_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        lookup(**kwargs)


def test_a_bad_assignment_raises_and_changes_nothing() -> None:
    w = lookup(q=Q)
    before = dict(w.data)
    with pytest.raises(
        ParamError, match="mode: 'max' is not allowed; expected one of softmax, hard"
    ):
        w.settings = {"mode": "max"}
    with pytest.raises(ParamError, match="unknown setting"):
        w.settings = {"d_k": 4}
    assert w.settings["q"] == Q.tolist() and w.data == before


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"q": [np.nan, 1.0]}, "q: every number must be finite"),
        ({"keys": np.full((5, 2), np.inf)}, "keys: every number must be finite"),
        ({"q": np.array([1 + 1j, 2])}, "q: complex numbers are not accepted"),
        ({"mode": "max"}, "mode: 'max' is not allowed"),
        ({"q": [9.0, 0.0]}, "q: 9 is out of range"),
    ],
)
def test_a_bad_assignment_is_one_short_param_error_naming_the_setting(settings, message) -> None:
    import traceback
    import warnings

    w = lookup(q=Q, keys=K)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy ComplexWarning on the way
        with pytest.raises(ParamError, match="^" + re.escape(message)) as refused:
            w.settings = settings
    # the assignment and the one frame that refuses it: no traitlets machinery, no chain
    frames = traceback.extract_tb(refused.value.__traceback__)
    assert len(frames) <= 2, traceback.format_tb(refused.value.__traceback__)
    assert refused.value.__cause__ is None and refused.value.__suppress_context__
    assert w.settings["q"] == Q.tolist() and w.settings["keys"] == K.tolist()


def test_an_array_setting_has_one_shape_everywhere() -> None:
    w = lookup()
    w.settings = {"keys": K}  # the shape lookup(keys=K) takes
    assert w.settings["keys"] == K.tolist() == w.data["keys"]
    assert np.shape(w.settings["values"]) == np.shape(w.data["values"]) == (5, 2)
    assert w.api_settings()["keys"] == K.ravel().tolist()  # flat for the Params and the view
    assert all(np.prod(SHAPES[p.name]) == p.length for p in PARAMS if p.kind == "vector")


def test_a_change_from_the_view_recomputes_and_is_acknowledged(catch) -> None:
    w = lookup(q=Q, keys=K, values=V)
    sent = catch(w)
    from_view(w, "settings", {"type": "set", "seq": 7, "settings": {"q": [-2.0, 1.0]}})
    _, expected = attention(np.array([[-2.0, 1.0]]), K, V)
    np.testing.assert_allclose(w.data["weights"], expected[0], rtol=1e-12)
    assert sent.of("settings") == [{"type": "ack", "seq": 7}]
    moved = K + 0.5  # a view moves keys as the page holds them: flat
    from_view(
        w, "settings", {"type": "set", "seq": 8, "settings": {"keys": moved.ravel().tolist()}}
    )
    assert w.error == "" and w.settings["keys"] == moved.tolist() == w.data["keys"]
    from_view(w, "settings", {"type": "set", "seq": 9, "settings": {"keys": [1.0] * 9}})
    assert w.error == "keys: expected shape (5, 2), got (9,)"


def test_a_bad_value_from_the_view_is_shown_not_raised(catch) -> None:
    w = lookup(q=Q)
    sent = catch(w)
    from_view(w, "settings", {"type": "set", "seq": 1, "settings": {"q": [1.0, 99.0]}})
    assert w.error == "q: 99 is out of range; expected 2 numbers in [-8, 8]"
    assert w.settings["q"] == Q.tolist()
    assert sent.of("settings") == [{"type": "ack", "seq": 1}]  # the view stops waiting anyway
    from_view(w, "settings", {"type": "set", "seq": 2, "settings": {"q": [1.0, 2.0]}})
    assert w.error == ""  # a good change clears it
    from_view(w, "settings", {"type": "set", "seq": 3, "settings": "q=1,2"})
    assert w.error.startswith("settings: expected an object")


def test_lang_is_checked() -> None:
    w = lookup(lang="zh")
    assert w.lang == "zh"
    with pytest.raises(ValueError, match="lang: 'fr' is not allowed"):
        w.lang = "fr"
