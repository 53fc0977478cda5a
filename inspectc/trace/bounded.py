"""Reading a stranger's TORCH_TRACE log in bounded pieces: no line, no inflate without end.

A log attached to a bug may be a ``.gz`` whose one line inflates to gigabytes, or gigabytes
of newlines. Lines are read with a cap (``LINE_CAP``); a ``.gz`` inflates at most
``max(GZ_MIN_TOTAL, GZ_RATIO x its size)``; blank lines (which carry nothing) are allowed at
most ``BLANK_SLACK`` more than the lines that do. Peeking a log's rank reads ``PEEK_BYTES`` at
most. ``INSPECTC_LIMITS=N`` multiplies every limit (``model/limits.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from inspectc.errors import ReportError
from inspectc.model.limits import scale

LINE_CAP = 64 << 20  # characters in one line of a log
GZ_MIN_TOTAL = 1 << 30  # a .gz may always inflate this much
GZ_RATIO = 200  # ... or this many times its own size (text logs compress 5-20x)
BLANK_SLACK = 100_000
PEEK_BYTES = 4 << 20  # read to find a log's rank
_HINT = " (INSPECTC_LIMITS=N raises the limits)"


def lines(stream: IO[str], path: Path, *, size: int) -> Iterator[str]:
    """*stream*'s lines, refusing in one :class:`ReportError` line past a limit. *size* is the
    file's size on disk (a ``.gz``'s compressed size)."""
    line_cap = int(LINE_CAP * scale())
    total_cap = int(max(GZ_MIN_TOTAL, GZ_RATIO * size) * scale()) if path.suffix == ".gz" else None
    slack = int(BLANK_SLACK * scale())
    total = blank = full = 0
    number = 0
    while True:
        line = stream.readline(line_cap + 1)
        if not line:
            return
        number += 1
        if len(line) > line_cap:
            raise ReportError(
                f"{path}: line {number} is longer than {line_cap >> 20} M characters: refused{_HINT}"
            )
        total += len(line)
        if total_cap is not None and total > total_cap:
            raise ReportError(
                f"{path}: inflates past {total_cap >> 20} MB ({GZ_RATIO}x its size): refused as a bomb{_HINT}"
            )
        if line.strip():
            full += 1
        else:
            blank += 1
            if blank > full + slack:
                raise ReportError(
                    f"{path}: more than {slack:,} blank lines beyond its records: refused{_HINT}"
                )
        yield line


def peek(stream: IO[str], most_lines: int) -> Iterator[str]:
    """At most *most_lines* lines and ``PEEK_BYTES`` characters of *stream* (a line cut short
    is yielded cut)."""
    left = int(PEEK_BYTES * scale())
    for _ in range(most_lines):
        if left <= 0:
            return
        line = stream.readline(left)
        if not line:
            return
        left -= len(line)
        yield line
