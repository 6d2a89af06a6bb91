from __future__ import annotations

import re

import numpy as np
import pytest

from attnlab.figures.lookup import PARAMS
from attnlab.nn import attention
from attnlab.widgets import ParamError, lookup
from tests.widgets.conftest import from_view

Q = np.array([3.0, 0.5])
K = np.array([[2.0, 0.0], [0.6, 1.9], [-1.6, 1.2], [-1.6, -1.2], [0.6, -1.9]])
V = np.array([[20.0, 62.0], [58.0, 66.0], [64.0, 24.0], [30.0, 16.0], [30.0, 44.0]])


def test_weights_are_the_engines_attention_on_the_learners_arrays() -> None:
    w = lookup(q=Q, keys=K, values=V)
    _, expected = attention(Q[None, :], K, V)
    np.testing.assert_allclose(w.data["weights"], expected[0], rtol=1e-12)
    np.testing.assert_allclose(w.data["output"], expected[0] @ V, rtol=1e-12)
    assert w.settings["keys"] == K.ravel().tolist()


def test_traits_describe_the_figure() -> None:
    w = lookup()
    assert w.figure == "lookup"
    assert w.params == [p.describe() for p in PARAMS]
    assert w.settings == {
        p.name: list(p.default) if p.kind == "vector" else p.default for p in PARAMS
    }
    assert w.error == ""
    assert set(w.strings["page"]) == {"en", "zh"} and "lookup" in w.strings
    assert w._esm.strip().startswith(("var ", "import", "function", "const", "let"))


def test_a_change_from_python_recomputes_and_keeps_the_other_settings() -> None:
    w = lookup(q=Q, keys=K, values=V)
    w.settings = {"q": [0.0, 3.0]}
    _, expected = attention(np.array([[0.0, 3.0]]), K, V)
    np.testing.assert_allclose(w.data["weights"], expected[0], rtol=1e-12)
    assert w.settings["keys"] == K.ravel().tolist()  # not reset to the default circle
    assert w.set(mode="hard").data["weights"].count(1.0) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"q": [1.0, 2.0, 3.0]}, "q: expected shape (2,), got (3,)"),
        ({"keys": np.zeros((4, 2))}, "keys: expected shape (5, 2), got (4, 2)"),
        ({"values": V + 100}, "values: 120 is out of range; expected 10 numbers in [0, 80]"),
        ({"q": [9.0, 0.0]}, "q: 9 is out of range; expected 2 numbers in [-8, 8]"),
        ({"q": ["a", 1]}, "q: expected an array of numbers of shape (2,)"),
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


def test_a_change_from_the_view_recomputes_and_is_acknowledged(catch) -> None:
    w = lookup(q=Q, keys=K, values=V)
    sent = catch(w)
    from_view(w, "settings", {"type": "set", "seq": 7, "settings": {"q": [-2.0, 1.0]}})
    _, expected = attention(np.array([[-2.0, 1.0]]), K, V)
    np.testing.assert_allclose(w.data["weights"], expected[0], rtol=1e-12)
    assert sent.of("settings") == [{"type": "ack", "seq": 7}]


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
