"""The try-its and exercises a learner's page may report, and each exercise's right options.

Read once from the lesson's text (`attnlab.lesson`): both languages hold the same ids, so the
English text stands for both. A report naming anything else is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from attnlab.lesson.loader import exercises, tries


@dataclass(frozen=True)
class LessonIds:
    tries: tuple[tuple[str, str], ...]  # (task id, its figure), in lesson order
    exercises: tuple[tuple[str, frozenset[int], int], ...]  # (id, right options, options)

    @property
    def try_ids(self) -> frozenset[str]:
        return frozenset(i for i, _ in self.tries)

    def right(self, exercise: str, option: int) -> bool:
        return any(i == exercise and option in ok for i, ok, _ in self.exercises)

    def options(self, exercise: str) -> int:
        """How many options `exercise` has (0: not an exercise of the lesson)."""
        return next((n for i, _, n in self.exercises if i == exercise), 0)


@lru_cache(maxsize=1)
def lesson_ids() -> LessonIds:
    found = tuple((t["id"], t["figure"]) for t in tries("en"))
    answers = tuple(
        (e["id"], frozenset(i for i, o in enumerate(opts) if o["correct"]), len(opts))
        for e in exercises("en")
        for opts in [e["options"]]
    )
    return LessonIds(tries=found, exercises=answers)
