"""The class as the teacher sees it: seats, what each has done, and messages to everyone.

seats.py      a learner's seat and the class at a glance computed from the seats (pure)
messages.py   what a learner's page may say on /ws/class (strict, bounded)
lessonids.py  the try-its and exercises a seat may report, read from the lesson's text
store.py      ClassStore: where the seats live and how messages reach every server process;
              MemoryStore, the one-process default (nothing is written to disk)
"""

from attnlab.classroom.seats import Seat, class_counts
from attnlab.classroom.store import ClassStore, MemoryStore

__all__ = ["ClassStore", "MemoryStore", "Seat", "class_counts"]
