"""Slide export (attnlab.export, `attnlab figure NAME --png/--svg`): every figure writes a real
PNG and a well-formed SVG, at its defaults and at one other setting, from the figure's own data."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from matplotlib.figure import Figure

from attnlab.cli import main
from attnlab.export import DRAWERS, export_figure, export_figures
from attnlab.figures import MODULES, compute_figure
from attnlab.params import ParamError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# one setting per figure that changes what is drawn (raw strings, as the CLI passes them)
OTHER: dict[str, dict[str, str]] = {
    "lookup": {"mode": "hard", "q": "-1.5,1"},
    "training": {"task": "vector", "heads": "2", "n_objects": "6"},
    "scaling": {"d_k": "512", "scaled": "false"},
    "position": {"pe": "rope", "p": "5"},
    "depth": {"residual": "false", "norm": "none", "layer": "3"},
    "kv-cache": {"mask": "bidirectional", "step": "3"},
    "tokens": {"cameras": "3", "patch": "8"},
    "flash": {"causal": "true", "tile": "3", "step": "2"},
}
CASES = [(name, None) for name in MODULES] + list(OTHER.items())
IDS = [f"{name}-{'default' if settings is None else 'other'}" for name, settings in CASES]

# a piece of each figure's text that must carry a number from its data (SVG text stays text)
SHOWS: dict[str, Callable[[dict[str, Any]], str]] = {
    "lookup": lambda d: f"α = {d['weights'][0]:.2f}",
    "training": lambda d: f"attention {d['history'][-1]['attn_err_cm']:.1f} cm",
    "scaling": lambda d: f"std {d['score_std_unscaled']:.3g}",
    "position": lambda d: f"q_m·k_n = {d['rope_score']:.3f}",
    "depth": lambda d: f"layer {d['layer_shown']}: {d['rms_at_layer']:.3g}",
    "kv-cache": lambda d: f"{d['count_now']} dot products now, {d['count_so_far']} so far",
    "tokens": lambda d: f"= {d['tokens']['total']} tokens",
    "flash": lambda d: f"{d['memory']['held_now']} scores held (≤ {d['memory']['peak']}",
}


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    return struct.unpack(">II", head[16:24])


def test_every_figure_has_an_exporter() -> None:
    assert set(DRAWERS) == set(MODULES)
    assert set(OTHER) == set(MODULES)


@pytest.mark.parametrize(("name", "settings"), CASES, ids=IDS)
def test_png_and_svg(tmp_path: Path, name: str, settings: dict[str, str] | None) -> None:
    png, svg = export_figures(
        name, settings, {"png": tmp_path / "f.png", "svg": tmp_path / "f.svg"}
    )
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert png.stat().st_size > 10_000
    width, height = _png_size(png)
    assert abs(width / height - 16 / 9) < 0.01  # a slide's shape
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text
    assert SHOWS[name](compute_figure(name, settings)) in text  # the data's numbers, not others


def test_bad_format_or_path_is_a_param_error(tmp_path: Path) -> None:
    with pytest.raises(ParamError, match="format"):
        export_figure("lookup", None, tmp_path / "f.jpg", fmt="jpg")
    with pytest.raises(ParamError, match=r"\.svg"):
        export_figure("lookup", None, tmp_path / "f.svg", fmt="png")
    with pytest.raises(ParamError, match="does not exist"):
        export_figure("lookup", None, tmp_path / "missing" / "f.png", fmt="png")
    with pytest.raises(ParamError, match="unknown figure"):
        export_figure("nope", None, tmp_path / "f.png", fmt="png")
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_cli_writes_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png, svg = tmp_path / "kv.png", tmp_path / "kv.svg"
    code = main(["figure", "kv-cache", "--set", "step=2", "--png", str(png), "--svg", str(svg)])
    assert code == 0
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert ET.parse(svg).getroot().tag.endswith("svg")
    assert str(png) in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["figure", "lookup", "--png", "/nonexistent-dir/f.png"],
        ["figure", "lookup", "--svg", "out.png"],
        ["figure", "lookup", "--set", "mode=fuzzy", "--png", "f.png"],
    ],
)
def test_cli_bad_path_is_one_line_and_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("attnlab figure: ")
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_os_error_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OSError from the writer (disk full, no permission) is reported, not raised."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "f.png"))

    monkeypatch.setattr(Figure, "savefig", refuse)
    assert main(["figure", "kv-cache", "--png", str(tmp_path / "f.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Permission denied" in err


def test_package_import_does_not_load_matplotlib() -> None:
    """The Agg backend is chosen inside attnlab.export only, never by importing the package."""
    code = (
        "import sys, attnlab, attnlab.figures, attnlab.cli, attnlab.cli.figure; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_trained_training_slide_shows_the_trained_models(tmp_path: Path) -> None:
    (path,) = export_figures("training", {}, {"svg": tmp_path / "t.svg"}, train_steps=300)
    text = path.read_text("utf-8")
    assert "at step 300" in text and "before training" not in text
    from attnlab.figures.training import after_training

    data = after_training(300, task="fetch", heads=1, seed=35, n_objects=4)
    assert data["history"][-1]["step"] == 300
    assert data["history"][-1]["attn_err_cm"] < 3  # trained: the lesson's fetch below 3 cm


def test_the_training_slide_opens_the_model(tmp_path: Path) -> None:
    """Vector, two heads: a table per head and part, and each head's weight on A and on B."""
    settings = {"task": "vector", "heads": "2"}
    (path,) = export_figures("training", settings, {"svg": tmp_path / "v.svg"}, train_steps=50)
    text = path.read_text("utf-8")
    assert "Colour match" in text and "mean weight on A and on B" in text
    for title in ("head 1 · rows: A", "head 1 · rows: B", "head 2 · rows: A", "head 2 · rows: B"):
        assert title in text
    assert "head 2 on B" in text and "head 3" not in text  # the legend: two heads, A and B each


def test_only_the_training_figure_can_be_trained(tmp_path: Path) -> None:
    with pytest.raises(ParamError, match="only the training figure"):
        export_figures("lookup", {}, {"png": tmp_path / "x.png"}, train_steps=10)
    assert main(["figure", "training", "--train", "x", "--png", str(tmp_path / "t.png")]) == 2


def test_cli_json_with_train_is_the_trained_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["figure", "training", "--train", "50", "--png", str(tmp_path / "t.png"), "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["history"][-1]["step"] == 50  # what the slide shows, not the untrained figure
