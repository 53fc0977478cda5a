"""Finding and reading the user's source files named in a report. No Textual.

A report may come from another machine: a recorded path that does not exist here is
looked up again relative to the run's working directory under this machine's working
directory and under the folders above the report file (a checkout of the same project).
Anything unreadable gives a note saying why, never an exception, and nothing but a
regular file of bounded size is ever read (a report may name ``/proc/kmsg``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
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
    cancelled: Callable[[], bool] | None = None,
) -> Excerpt:
    """The lines around *line* of *filename*, or an :class:`Excerpt` with a note.

    Only a regular file with a size is read (never a FIFO, a device, or a ``/proc`` file,
    which says 0 bytes and may never end or be consumed by reading), at most
    ``MAX_SOURCE_BYTES``, in chunks; *cancelled* (by default: the Textual worker this runs
    in, if any) is asked between chunks, and a cancelled read returns a note.
    """
    if not filename:
        return Excerpt(None, note="no source location recorded")
    path = resolve(filename, run_cwd, report_path)
    if path is None:
        return Excerpt(None, note=f"source not available on this machine: {filename}")
    stop = cancelled or _worker_cancelled()
    first = max(1, (line or 1) - context)
    last = (line or 1) + context
    try:
        data = _read_bounded(path, stop)
    except _NotSource as why:
        return Excerpt(path, note=f"{path} {why}")
    except OSError as exc:
        return Excerpt(None, note=f"cannot read {path}: {exc.strerror or exc}")
    if data is None:
        return Excerpt(path, note=f"reading {path} was cancelled")
    lines = data.decode("utf-8", "replace").splitlines()[first - 1 : last]
    if not lines:
        return Excerpt(path, note=f"{path} has no line {line} (the file changed since the run?)")
    return Excerpt(path, first=first, lines=lines, focus=line)


class _NotSource(Exception):
    """Why a path is not read as source (said in the excerpt's note)."""


_SYSTEM_TREES = ("/proc/", "/sys/", "/dev/")
_CHUNK = 1 << 16


def _read_bounded(path: Path, cancelled: Callable[[], bool]) -> bytes | None:
    """The bytes of the regular file *path* (None when cancelled); :class:`_NotSource` otherwise."""
    if os.path.realpath(path).startswith(_SYSTEM_TREES):
        raise _NotSource("is a system file, not source")
    # O_NONBLOCK: opening a FIFO swapped in after resolve() must not wait for a writer.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotSource("is not a regular file")
        if info.st_size == 0:
            raise _NotSource("is empty")
        if info.st_size > MAX_SOURCE_BYTES:
            raise _NotSource(f"is too large to show ({info.st_size / 1e6:.0f} MB)")
        chunks: list[bytes] = []
        left = info.st_size  # never more than the size it says, whatever the file does
        while left > 0:
            if cancelled():
                return None
            chunk = os.read(fd, min(_CHUNK, left))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _worker_cancelled() -> Callable[[], bool]:
    """``is_cancelled`` of the Textual worker running this, if any (Textual is not imported here)."""
    module = sys.modules.get("textual.worker")
    if module is None:
        return lambda: False
    try:
        worker = module.get_current_worker()
    except module.NoActiveWorker:  # called outside a worker
        return lambda: False
    return lambda: bool(worker.is_cancelled)
