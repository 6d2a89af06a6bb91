"""A widget's refusal of the learner's value, shown by IPython as the one line that names it.

`lk.settings = {"q": [nan, 1]}` refused: the learner needs the line naming the setting and its
range, not the frames it passed through on the way (the widget's `__setattr__`, traitlets'). IPython
shows the frames of any exception except one that renders its own traceback
(`_render_traceback_`, the hook IPython's shell and ipykernel call instead of formatting the
frames; ipyparallel uses it for a remote engine's errors), and it never hides the frame that
raised, `__tracebackhide__` or not. Plain Python, pytest and a debugger still see every frame.
"""

from __future__ import annotations

from attnlab.params import ParamError

__all__ = ["Refused", "refused"]


class Refused(ParamError):
    """A `ParamError` from a widget: `except ParamError` catches it; IPython shows one line."""

    def _render_traceback_(self) -> list[str]:
        return [f"{ParamError.__name__}: {self}"]


def refused(err: ParamError) -> Refused:
    """`err` as a widget raises it (its name and message kept)."""
    return Refused(err.name, err.message)
