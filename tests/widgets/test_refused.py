"""A refused value, as IPython shows it: the one line naming the setting, no frames."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from attnlab.params import ParamError
from attnlab.widgets.refused import Refused

FRAME = re.compile(r"^(File |Cell In\[|Input In\[|\s*-+>|\s*\d+ )", re.MULTILINE)


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """IPython's shell, its profile and history in a temporary folder, undone afterwards."""
    import builtins
    import sys

    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    names, prompts = set(vars(builtins)), [getattr(sys, p, None) for p in ("ps1", "ps2")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IPYTHONDIR", str(tmp_path_factory.mktemp("ipython")))
        ip = InteractiveShell.instance(config=config, colors="nocolor")
        ip.run_cell("import numpy as np; from attnlab import widgets; lk = widgets.lookup()")
        yield ip
        InteractiveShell.clear_instance()
    for name in set(vars(builtins)) - names:  # __IPYTHON__, display
        delattr(builtins, name)
    for name, prompt in zip(("ps1", "ps2"), prompts, strict=True):
        if prompt is None and hasattr(sys, name):
            delattr(sys, name)


def shown(shell, code: str) -> tuple[str, BaseException | None]:
    """What IPython prints for `code`'s exception (its traceback), and the exception."""
    from IPython.utils.capture import capture_output

    with capture_output() as out:
        result = shell.run_cell(code)
    return out.stdout + out.stderr, result.error_in_exec


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ('lk.settings = {"q": [np.nan, 1]}', "ParamError: q: every number must be finite"),
        ("lk.set(keys=np.ones((5, 3)))", "ParamError: keys: expected shape (5, 2)"),
        ('lk.settings = "q=1,2"', "ParamError: settings: expected a dict"),
        ("widgets.lookup(q=[np.inf, 0])", "ParamError: q: every number must be finite"),
        ("widgets.attention_map([[2.0, -1.0]])", "ParamError: weights: row 0 is not a"),
        ('widgets.tokens(image="no-such-frame.png")', "ParamError: image: cannot read the file"),
    ],
)
def test_ipython_shows_a_refused_value_as_one_line_naming_it(shell, code: str, line: str) -> None:
    text, error = shown(shell, code)
    assert isinstance(error, ParamError) and isinstance(error, Refused)
    lines = [x for x in text.splitlines() if x.strip()]
    assert FRAME.findall(text) == [], text  # no frame: not the cell's, not __setattr__'s
    assert len(lines) == 1 and lines[0].startswith(line), text


def test_other_errors_keep_their_frames(shell) -> None:
    text, error = shown(shell, "lk.no_such_method()")
    assert isinstance(error, AttributeError)
    assert "Cell In[" in text  # a mistake in the learner's own code still shows where it is
