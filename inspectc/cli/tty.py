"""The CLI's output boundary: every line a command prints goes through here, made safe.

A report's text (names, reasons, paths, code) reaches stdout and stderr only through
:func:`out` and :func:`err`, which pass it through the one sanitizer
(:func:`inspectc.model.terminal.safe`): no escape sequence, C1 control or bidi override from
a report moves the cursor, clears the screen, writes the clipboard or reorders a line, on a
terminal or in a pager. Lines and tabs are kept (a summary is multi-line text). :func:`read`
opens a report for a command and says, on stderr, what the store noticed (a journal beside
it left unread).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from inspectc.model.terminal import safe

if TYPE_CHECKING:
    from inspectc.store.reader import Report

LINES = "\n\t"


def out(text: object = "", *, end: str = "\n", keep: str = LINES) -> None:
    """Write *text* and *end* to stdout, made safe (lines and tabs kept unless *keep* says)."""
    sys.stdout.write(safe(text, keep) + end)


def err(text: object, *, keep: str = LINES, flush: bool = False) -> None:
    """Write *text* as a line to stderr, made safe."""
    sys.stderr.write(safe(text, keep) + "\n")
    if flush:
        sys.stderr.flush()


def read(path: str | os.PathLike[str], *, private: bool = False) -> Report:
    """:func:`inspectc.store.open.open_report` for a command: its notices go to stderr."""
    from inspectc.store.open import open_report

    report = open_report(path, private=private)
    for line in report.notices:
        err(f"inspectc: {line}", keep="")
    return report
