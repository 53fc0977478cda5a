"""What lies beside a report, and a private snapshot of it: how readers stay off files they did not write.

Every reader opens a report ``immutable`` (SQLite's advice for a file you did not write):
SQLite then never plays back a journal or WAL beside it, never creates one, never takes a
lock. A rollback journal names a "super-journal" that playback deletes, so replaying a
stranger's journal (even in a private copy) deletes a file of the stranger's choosing.
A journal or WAL left beside a report is therefore ignored, and :func:`notice` says so in one
line: the report's last transaction may be missing. (inspectc's writer never spills a page
into the file before its commit, so what was committed is all there.)

A file another process is writing (a live ``inspectc run``) can change while it is read;
:func:`snapshot` copies it into a private folder when no commit is under way, so the copy is
one commit's state, and the copy is what SQLite reads. The TUI reads every report from a
snapshot it verified at open: a file changed or planted under it later is never read.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.store.runlock import writer_pid

SIDE_FILES = ("-journal", "-wal")  # what SQLite would play back into a report
_COUNTER = slice(24, 28)  # the file change counter: every commit of a rollback-journal file moves it
_TRIES = 40
_WAIT_S = 0.05


def beside(path: Path) -> list[Path]:
    """The journal and WAL files beside *path* (any kind of file, a link too: never followed)."""
    found = []
    for suffix in SIDE_FILES:
        side = Path(str(path) + suffix)
        try:
            os.lstat(side)
        except OSError:
            continue
        found.append(side)
    return found


def notice(path: Path, shown: str | None = None) -> str | None:
    """One line when a journal or WAL lies beside *path* (None otherwise): it was not played
    back, so the last transaction may be missing. *shown* names the report as the user did."""
    sides = beside(path)
    if not sides:
        return None
    name = shown or str(path)
    files = " and ".join(p.name for p in sides)
    pid = writer_pid(path)
    if pid is not None:
        return f"{name} is being written (pid {pid}): read as of its last commit ({files} not read)"
    return (
        f"{name}: {files} beside it was not played back (inspectc never replays a journal it did"
        " not write): the report's last transaction may be missing"
    )


def being_written(path: Path) -> bool:
    """True when a live inspectc command holds the report's write lock."""
    return writer_pid(path) is not None


def snapshot(path: Path, folder: Path) -> Path:
    """A copy of *path* in *folder* (private, made by the caller) taken between two commits.

    The copy is kept when no live writer was committing (its journal present) and the file's
    size, mtime and change counter did not move across the copy; after two seconds of a writer
    that never pauses, a copy is kept anyway (a torn one reads as damaged, in one line).
    """
    target = folder / "report.inspectc"
    for _ in range(_TRIES):
        before = _state(path)
        if before[3] and being_written(path):  # a commit under way: its pages are being written
            time.sleep(_WAIT_S)
            continue
        _copy(path, target)
        if _state(path)[:3] == before[:3] and _counter(target) == before[2]:
            return target
        time.sleep(_WAIT_S)
    _copy(path, target)
    return target


def private_folder(prefix: str = "inspectc-read-") -> Path:
    """A fresh folder only this user can read (``mkdtemp``: mode 0700)."""
    return Path(tempfile.mkdtemp(prefix=prefix))


def _state(path: Path) -> tuple[int, int, bytes, bool]:
    try:
        info = os.stat(path)
        with open(path, "rb") as fh:
            head = fh.read(28)
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    busy = any(p.name.endswith("-journal") for p in beside(path))
    return (info.st_size, info.st_mtime_ns, head[_COUNTER], busy)


def _counter(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(28)[_COUNTER]


def _copy(source: Path, target: Path) -> None:
    try:
        with open(source, "rb") as src:
            if not stat.S_ISREG(os.fstat(src.fileno()).st_mode):
                raise ReportError(f"{source} is not a regular file, not a report")
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "wb") as dst:
                shutil.copyfileobj(src, dst, length=1 << 20)
    except OSError as exc:
        raise ReportError(f"cannot read {source}: {exc.strerror or exc}") from None
