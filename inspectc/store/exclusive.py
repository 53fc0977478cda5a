"""Creating files that must not replace anything: a finished temp file takes a new name only.

``os.replace`` silently replaces whatever sits at the target, a user's own file or a link
planted there. :func:`place_new` gives a finished temporary file (made with ``mkstemp`` in the
target's folder) the target's name only when nothing has that name: ``os.link`` then unlink
(``EEXIST`` when taken), or ``renameat2(RENAME_NOREPLACE)`` where hard links are not allowed.
:func:`remove_on_signal` removes private temporary copies on SIGTERM/SIGINT, then lets the
signal do what it did before.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_RENAME_NOREPLACE = 1
_AT_FDCWD = -100


class TargetExists(FileExistsError):
    """The name is taken: nothing was replaced."""


def place_new(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Give *tmp* the name *target*, refusing (``TargetExists``) when *target* exists."""
    try:
        os.link(tmp, target, follow_symlinks=False)
    except FileExistsError:
        raise TargetExists(errno.EEXIST, "already exists (not replaced)", os.fspath(target)) from None
    except OSError as exc:  # a file system without hard links (FAT, some FUSE mounts)
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
        _rename_noreplace(tmp, target)
        return
    os.unlink(tmp)


def _rename_noreplace(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        raise OSError(errno.ENOTSUP, "cannot create a file without replacing on this system") from None
    rc = renameat2(_AT_FDCWD, os.fsencode(tmp), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE)
    if rc != 0:
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise TargetExists(err, "already exists (not replaced)", os.fspath(target))
        raise OSError(err, os.strerror(err), os.fspath(target))


_doomed: set[str] = set()
_lock = threading.Lock()
_installed = False


def _cleanup_then_default(signum: int, frame: FrameType | None) -> None:
    with _lock:
        for folder in list(_doomed):
            shutil.rmtree(folder, ignore_errors=True)
        _doomed.clear()
    previous = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


_previous: dict[int, object] = {}


@contextlib.contextmanager
def remove_on_signal(folder: str | os.PathLike[str]) -> Iterator[None]:
    """While the block runs, SIGTERM/SIGINT first remove *folder* (private copies), then act
    as before (Ctrl-C still raises KeyboardInterrupt; SIGTERM still ends the process)."""
    global _installed
    name = os.fspath(folder)
    on_main = threading.current_thread() is threading.main_thread()
    with _lock:
        _doomed.add(name)
        if on_main and not _installed:
            for sig in (signal.SIGTERM, signal.SIGINT):
                _previous[sig] = signal.getsignal(sig)
                signal.signal(sig, _cleanup_then_default)
            _installed = True
    try:
        yield
    finally:
        with _lock:
            _doomed.discard(name)
            if on_main and _installed and not _doomed:
                for signum, prev in _previous.items():
                    signal.signal(signum, prev)  # type: ignore[arg-type]
                _previous.clear()
                _installed = False
