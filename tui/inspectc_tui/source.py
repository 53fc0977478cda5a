"""Finding and reading the user's source files named in a report. No Textual.

A report may come from another machine: a recorded path that does not exist here is
looked up again relative to the run's working directory under this machine's working
directory and under the folders above the report file (a checkout of the same project).
Anything unreadable gives a note saying why, never an exception.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

MAX_SOURCE_BYTES = 20_000_000  # larger "source" files are not user code
CONTEXT_LINES = 6


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Lines ``first``.. of a source file around ``focus`` (1-based), or why there are none."""

    path: Path | None
    first: int = 1
    lines: list[str] = field(default_factory=list)
    focus: int | None = None
    note: str | None = None


def resolve(filename: str | None, run_cwd: str | None, report_path: Path | None) -> Path | None:
    """Where *filename* (as recorded) can be read on this machine, or None."""
    if not filename or filename.startswith("<"):
        return None
    recorded = Path(filename)
    candidates: list[Path] = []
    rel: Path | None = None
    if recorded.is_absolute():
        candidates.append(recorded)
        if run_cwd:
            try:
                rel_text = os.path.relpath(recorded, run_cwd)
            except ValueError:
                rel_text = ""
            if rel_text and not rel_text.startswith(".."):
                rel = Path(rel_text)
    else:
        rel = recorded
        if run_cwd:
            candidates.append(Path(run_cwd) / rel)
    if rel is not None:
        candidates.append(Path.cwd() / rel)
        if report_path is not None:
            candidates.extend(parent / rel for parent in list(report_path.resolve().parents)[:4])
    for candidate in candidates:
        if _readable(candidate):
            return candidate
    return None


def _readable(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.R_OK)
    except OSError:
        return False


def excerpt(
    filename: str | None,
    line: int | None,
    *,
    run_cwd: str | None,
    report_path: Path | None,
    context: int = CONTEXT_LINES,
) -> Excerpt:
    """The lines around *line* of *filename*, or an :class:`Excerpt` with a note."""
    if not filename:
        return Excerpt(None, note="no source location recorded")
    path = resolve(filename, run_cwd, report_path)
    if path is None:
        return Excerpt(None, note=f"source not available on this machine: {filename}")
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            return Excerpt(path, note=f"{path} is too large to show ({size / 1e6:.0f} MB)")
        first = max(1, (line or 1) - context)
        last = (line or 1) + context
        with path.open(encoding="utf-8", errors="replace") as fh:
            lines = [text.rstrip("\r\n") for text in itertools.islice(fh, first - 1, last)]
    except OSError as exc:
        return Excerpt(None, note=f"cannot read {path}: {exc.strerror or exc}")
    if not lines:
        return Excerpt(path, note=f"{path} has no line {line} (the file changed since the run?)")
    return Excerpt(path, first=first, lines=lines, focus=line)
