"""Input limits and their multiplier ``INSPECTC_LIMITS=N`` (default 1). Stdlib only.

Every budget on input from a stranger (a report's SQLite reads in ``untrusted.py``, a
TORCH_TRACE log in ``trace/bounded.py``, a bundle's members, the script of ``run``) is its
constant times :func:`scale`, so a user who knows the input raises them all at once and tests
shrink them. It sits below the report file and the trace alike: both read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


def scale() -> float:
    """The multiplier of every input limit (``INSPECTC_LIMITS``, default 1; tests shrink it)."""
    try:
        value = float(os.environ.get("INSPECTC_LIMITS", "") or 1)
    except ValueError:
        return 1.0
    return value if 0 < value < 1e6 else 1.0


def small_int(text: str | None, digits: int = 18) -> int | None:
    """A whole number written in text from a stranger, else None: ASCII digits only
    (``"²".isdigit()`` is True, ``int("²")`` raises) and at most *digits* of them (``int``
    refuses 4,300 and more; no line, id or rank has 19)."""
    if not text or len(text) > digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


# What one report may hold for a reader to read it (README "Limits"). A real report holds
# hundreds of frames and tens of thousands of kernels at most; these caps only bite a file
# made to exhaust a reader, which is refused in one line instead.
@dataclass(frozen=True, slots=True)
class Limit:
    """An input limit: *value* times :func:`scale`, never under *least* (so a test that shrinks
    one budget, SQLite's steps or a graph's frames, still reads a golden report)."""

    value: int
    least: int = 1

    def most(self) -> int:
        return max(self.least, int(self.value * scale()))


MAX_FRAMES = Limit(50_000, 1_000)
MAX_KERNELS = Limit(100_000, 1_000)
MAX_EVENTS = Limit(1_000_000, 10_000)  # records one import reads (a 100 MB real log: ~200,000)
PER_PROCESS_ROWS = Limit(10_000, 100)  # run-record and account events: one per process (rank)
TEXT_BYTES = Limit(96 << 20, 8 << 20)  # JSON text of all frames of a report (apart: all kernels)
SHARE_TEXT_CHARS = Limit(16 << 20, 4 << 20)  # text share redacts, and share --check scans, in all
_HINT = " (INSPECTC_LIMITS=N raises the limits)"


def most(limit: Limit) -> int:
    """*limit*, scaled (:meth:`Limit.most`)."""
    return limit.most()


def too_many(where: object, count: int, what: str, limit: Limit) -> str:
    """The one line for a count over its limit."""
    return f"{where}: holds {count:,} {what}, more than the {limit.most():,} inspectc reads: refused{_HINT}"


def too_large(where: object, what: str, limit: Limit) -> str:
    """The one line for text over its size limit."""
    return f"{where}: its {what} take more than {limit.most() >> 20} MB of text: refused{_HINT}"


class TextBudget:
    """Text a command may still work through; :class:`ReportError` in one line past it."""

    def __init__(self, where: object, what: str, limit: Limit) -> None:
        self.where, self.what, self.limit = where, what, limit
        self.left = limit.most()

    def spend(self, chars: int) -> None:
        self.left -= chars
        if self.left < 0:
            from inspectc.errors import ReportError

            raise ReportError(too_large(self.where, self.what, self.limit))
