"""One writer per output path: a lock beside the file, held while a command writes it.

Two ``inspectc run -o R`` at once would each create R; the second replaces the first's
file, and all the first captured is lost. So a capture takes ``flock`` on ``.R.lock``
beside the report before it creates R, and the second run is refused in one line before
its script starts. Every other command that writes ``-o`` (import, merge, accuracy, bench,
export, share, repro, graph) takes the same lock on its output (:func:`holding`), so any
two writers of one path refuse each other in one line; readers ask :func:`writer_pid`. The kernel drops the lock when the process ends however it ends
(SIGKILL too), so a lock file left behind never blocks a later run; a clean end removes
it. Forked children inherit the descriptor: they close their copy (the lock stays the
parent's) and exec'd programs never see it (``O_CLOEXEC``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from inspectc.errors import ReportBusy
from inspectc.model.limits import small_int

try:
    import fcntl
except ImportError:  # not POSIX: no lock, as before
    fcntl = None  # type: ignore[assignment]


class ReportLock:
    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    def release(self) -> None:
        """Remove the lock file (if it is still ours), then drop the lock."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if _same_file(fd, self.path):
                self.path.unlink()
        except OSError:
            pass  # noqa: S110 - a lock file left behind blocks nobody (flock ends with us)
        os.close(fd)

    def abandon(self) -> None:
        """In a forked child: close the inherited descriptor; the parent keeps the lock."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def lock_path(report: Path) -> Path:
    return report.parent / f".{report.name}.lock"


def acquire(report: Path, *, what: str = "run") -> ReportLock | None:
    """Lock *report* for this process; raise :class:`ReportBusy` if a live command holds it.

    None where no lock can be taken (no ``fcntl``, a folder that cannot be written: the
    report writer then says what is wrong with the path).
    """
    if fcntl is None:
        return None
    path = lock_path(report)
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(10):  # the file is replaced between open and lock: try the new one
        try:
            fd = os.open(path, flags, 0o644)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"another inspectc command (pid {holder})" if holder else "another inspectc command"
            raise ReportBusy(f"{report} is being written by {who}: give this {what} another -o") from None
        except OSError:
            os.close(fd)
            return None
        if _same_file(fd, path):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return ReportLock(fd, path)
        os.close(fd)  # removed by the run that just ended: lock the file at that name now
    return None


@contextlib.contextmanager
def holding(output: str | os.PathLike[str], *, what: str) -> Iterator[None]:
    """Hold the write lock of *output* while the block runs (:class:`ReportBusy` when another
    command holds it); *what* names the command in the refusal. Re-entrant in one process (a
    command that locks its output early writes it later through the same helpers)."""
    key = os.path.abspath(output)
    if key in _HELD:
        yield
        return
    lock = acquire(Path(output), what=what)
    _HELD.add(key)
    try:
        yield
    finally:
        _HELD.discard(key)
        if lock is not None:
            lock.release()


_HELD: set[str] = set()  # outputs this process holds through holding()


def writer_pid(report: Path) -> int | None:
    """The pid of the live inspectc command writing *report*, or None. Read from the lock
    file's text (never by taking the lock: a run starting now must not be refused), and
    only when that process exists."""
    try:
        fd = os.open(
            lock_path(report), os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK
        )
    except OSError:
        return None
    try:
        pid = _read_pid(fd)
    finally:
        os.close(fd)
    if pid is None or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except PermissionError:
        return pid  # alive, another user's
    except OSError:
        return None
    return pid


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return small_int(text)
