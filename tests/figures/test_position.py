from __future__ import annotations

import json

import numpy as np
import pytest

from attnlab.figures import compute_figure, position
from attnlab.nn.attention import attention
from attnlab.params import ParamError
from attnlab.plain import Encoded

DEFAULTS = {"p": 20, "q": (1.0, 0.2), "k": (0.4, 0.9), "m": 3, "n": 7, "pe": "none"}


def fig(**changes) -> dict:
    """The figure's data, its parts written once (`Encoded`) read as the values they hold."""
    data = position.compute(**{**DEFAULTS, **changes})
    return {k: v.value if isinstance(v, Encoded) else v for k, v in data.items()}


def test_similarity_peaks_at_p_and_shifts_with_it():
    a, b = fig(p=20)["similarity"], fig(p=27)["similarity"]
    assert a.argmax() == 20 and a[20] == pytest.approx(1.0)
    np.testing.assert_allclose(b[7:], a[:-7], atol=1e-12)  # same shape, moved by 7


def test_rope_panel_score_is_the_rotated_dot_product():
    out = fig(m=5, n=11)
    w = position.OMEGA_ROPE
    R = np.array([[np.cos(6 * w), -np.sin(6 * w)], [np.sin(6 * w), np.cos(6 * w)]])
    assert out["rope_score"] == pytest.approx(np.array(DEFAULTS["q"]) @ R @ DEFAULTS["k"])
    assert out["rope_score"] == pytest.approx(out["rope_q_m"] @ out["rope_k_n"])
    np.testing.assert_allclose(np.linalg.norm(out["rope_q_m"]), np.linalg.norm(DEFAULTS["q"]))


def test_moving_m_and_n_together_keeps_the_score():
    base = fig()["rope_score"]
    for s in (1, 3, 10, 56):
        moved = fig(m=3 + s, n=7 + s)
        assert abs(moved["rope_score"] - base) < 1e-12
    assert abs(fig(n=8)["rope_score"] - base) > 1e-3


def test_permuting_tokens_permutes_self_attention_outputs(rng):
    layer = position.default_layer()
    x = position.embed(rng.uniform(0, 80, (6, 2)), layer)
    out = position.self_attention_layer(x, layer, "none")
    for _ in range(10):
        p = rng.permutation(6)
        np.testing.assert_allclose(
            position.self_attention_layer(x[p], layer, "none"), out[p], atol=1e-12
        )
    # with a position encoding the layer no longer commutes with the permutation
    p = np.array([5, 4, 3, 2, 1, 0])
    for pe in ("sinusoidal", "rope"):
        moved = position.self_attention_layer(x[p], layer, pe)
        assert np.abs(moved - position.self_attention_layer(x, layer, pe)[p]).max() > 1e-3


def test_permuting_keys_leaves_cross_attention_unchanged(rng):
    layer = position.default_layer()
    x = rng.standard_normal((6, 8))  # tokens that are read
    y = rng.standard_normal((3, 8))  # query tokens from elsewhere (an instruction)
    out, _ = attention(y @ layer.W_Q, x @ layer.W_K, x @ layer.W_V)
    for _ in range(10):
        p = rng.permutation(6)
        moved, _ = attention(y @ layer.W_Q, x[p] @ layer.W_K, x[p] @ layer.W_V)
        np.testing.assert_allclose(moved, out, atol=1e-12)


def test_reversal_needs_a_position_encoding():
    none = position.reversal("none")
    assert none["pooled_diff_relative"] < 1e-12
    for pe in ("sinusoidal", "rope"):
        assert position.reversal(pe)["pooled_diff_relative"] > 0.05
    np.testing.assert_array_equal(none["waypoints"], position.WAYPOINTS_CM)


def test_figure_is_plain_json_with_expected_shapes():
    data = compute_figure("position", {"pe": "rope"})
    json.dumps(data, allow_nan=False)
    assert np.shape(data["pe_table"]) == (position.N_POSITIONS, position.D_PE)
    assert len(data["similarity"]) == position.N_POSITIONS
    assert len(data["pooled_original"]) == len(data["pooled_reversed"]) == position.D_MODEL


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"pe": "foo"}, "pe"),
        ({"p": 64}, "p"),
        ({"m": -1}, "m"),
        ({"n": float("nan")}, "n"),
        ({"q": [float("nan"), 0]}, "q"),
        ({"k": [3.0, 0.0]}, "k"),
    ],
)
def test_invalid_settings_name_the_setting(raw, name):
    with pytest.raises(ParamError) as err:
        compute_figure("position", raw)
    assert err.value.name == name
