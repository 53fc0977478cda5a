"""Reading a stranger's TORCH_TRACE log in bounded pieces: no line, no inflate without end.

A log attached to a bug may be a ``.gz`` whose one line inflates to gigabytes, or gigabytes
of newlines. Lines are read with a cap (``LINE_CAP``); a ``.gz`` inflates at most
``max(GZ_MIN_TOTAL, GZ_RATIO x its size)``; blank lines (which carry nothing) are allowed at
most ``BLANK_SLACK`` more than the lines that do. Peeking a log's rank reads ``PEEK_BYTES`` at
most. ``INSPECTC_LIMITS=N`` multiplies every limit (``model/limits.py``).
"""

from __future__ import annotations

import re
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
CHUNK = 1 << 20  # characters read at a time
RUN_END = re.compile(r"\n(?!\t)")  # the end of a run of payload lines (or of the text read)
_HINT = " (INSPECTC_LIMITS=N raises the limits)"


def lines(stream: IO[str], path: Path, *, size: int) -> Iterator[str]:
    """*stream*'s lines, refusing in one :class:`ReportError` line past a limit. *size* is the
    file's size on disk (a ``.gz``'s compressed size).

    A run of payload lines (each starts with a TAB) comes as one string of those whole lines,
    found in C (``RUN_END``): millions of tiny payload lines cost no Python step each. The
    text is read in pieces of at most ``CHUNK`` characters (and the line cap)."""
    line_cap = int(LINE_CAP * scale())
    total_cap = int(max(GZ_MIN_TOTAL, GZ_RATIO * size) * scale()) if path.suffix == ".gz" else None
    slack = int(BLANK_SLACK * scale())
    chunk = max(1, min(CHUNK, line_cap))  # a line within one piece is never over the cap
    total = blank = full = 0
    number = 0  # lines yielded so far
    buf, pos, eof = "", 0, False
    while True:
        nl = buf.find("\n", pos)
        if nl < 0:  # no whole line left: read on (a line cut at a piece's end is kept)
            rest = buf[pos:]
            if len(rest) > line_cap:
                raise ReportError(
                    f"{path}: line {number + 1} is longer than {line_cap >> 20} M characters: refused{_HINT}"
                )
            if eof:
                if rest:
                    yield rest  # the last line, without its newline
                return
            piece = stream.read(max(chunk, len(rest)))  # doubling: a long line is read in O(n)
            total += len(piece)
            if total_cap is not None and total > total_cap:
                raise ReportError(
                    f"{path}: inflates past {total_cap >> 20} MB ({GZ_RATIO}x its size): refused as a bomb{_HINT}"
                )
            eof = not piece
            buf, pos = rest + piece, 0
            continue
        if nl + 1 - pos > line_cap:  # only the first line of the buffer can span two pieces
            raise ReportError(
                f"{path}: line {number + 1} is longer than {line_cap >> 20} M characters: refused{_HINT}"
            )
        if buf.startswith("\t", pos):  # payload lines up to the next record's line
            match = RUN_END.search(buf, pos)
            stop = match.end() if match is not None else buf.rfind("\n") + 1  # the rest: read on
            text = buf[pos:stop]
            count = text.count("\n")
            number += count
            full += count  # a payload line is kept (a cap on payloads bounds them), never blank
        else:
            stop = nl + 1
            text = buf[pos:stop]
            number += 1
            if text.strip():
                full += 1
            else:
                blank += 1
                if blank > full + slack:
                    raise ReportError(
                        f"{path}: more than {slack:,} blank lines beyond its records: refused{_HINT}"
                    )
        pos = stop
        yield text


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
