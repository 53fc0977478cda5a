"""Asking before a command runs code recorded in a report: its argv, or its output code.

A report made on this machine by this user (``report/origin.py``) runs as it did. Any other is
a stranger's: the exact command is shown and the user is asked; without a terminal to ask on,
the answer is no unless ``--yes`` was given.
"""

from __future__ import annotations

import sys

from inspectc.errors import UsageError
from inspectc.readers.text import printable
from inspectc.report import origin


def confirm(meta: dict[str, str], *, what: str, command: str, yes: bool) -> None:
    """Return when running *command* (shown to the user) is allowed; else raise UsageError."""
    if yes or origin.made_here(meta):
        return
    print(
        f"inspectc: this report was not made here by you ({printable(origin.describe(meta))});"
        f" {what} would run:\n  {printable(command)}",
        file=sys.stderr,
    )
    if not sys.stdin.isatty():
        raise UsageError(f"not run: {what} runs a stranger's code; read the command above, then add --yes")
    try:
        answer = input("Run it? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        raise UsageError("not run (answered no)")
