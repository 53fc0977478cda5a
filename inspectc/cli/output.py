"""Writing the files a command names with ``-o``: never through a link, never over a stranger's file.

Every output goes to a fresh temporary file made exclusively (``mkstemp``, so ``O_EXCL``
and a name nobody can predict) in the target's own folder, then takes the target's name
in one ``os.replace``: a reader never sees half a file, a planted symlink at any name is
never followed, and a failed command leaves nothing behind. While it writes, a command holds
the lock ``inspectc run`` takes on its report (:mod:`inspectc.store.runlock`): a second
command writing the same path refuses in one line instead of silently winning. :func:`check_output` refuses,
in one line, a target that is a link, a directory, one of the command's inputs, or an
existing file the command did not write earlier (a report, a bundle, notes.txt).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from inspectc.analysis.text import printable, short_path
from inspectc.errors import UsageError
from inspectc.store import runlock
from inspectc.store.target import umask

Ours = Callable[[Path], bool]


def shown(path: str | os.PathLike[str]) -> str:
    """A path for a one-line message: sanitized, and its middle cut when very long."""
    text = printable(short_path(os.fspath(path), None, 160))
    return text if len(text) <= 300 else f"{text[:150]}…{text[-100:]}"  # one endless name


def why(exc: OSError) -> str:
    """An OS error in a few words (``File name too long``, ``Too many levels of symbolic links``)."""
    return exc.strerror or str(exc) or type(exc).__name__


def check_output(
    path: str | os.PathLike[str],
    *,
    what: str,
    ours: Ours | None = None,
    inputs: Iterable[str | os.PathLike[str]] = (),
    devices: bool = False,
) -> Path:
    """*path*, checked as a place to write *what*; :class:`UsageError` (one line) otherwise.

    An existing regular file is replaced only when *ours* says it is an earlier output of
    the same kind. With *devices*, a FIFO or character device (``/dev/null``, a pipe) is
    written into rather than replaced.
    """
    target = Path(path)
    if not os.fspath(path):
        raise UsageError(f"no path given for the {what}")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        _check_folder(target, what)
        return target
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UsageError(
            f"{shown(target)} is a symbolic link: inspectc does not write through links (give the real path)"
        )
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"cannot write the {what}: {shown(target)} is a directory")
    if not stat.S_ISREG(info.st_mode):
        if devices and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
            return target
        raise UsageError(f"cannot write the {what}: {shown(target)} is not a regular file")
    for given in inputs:
        if _same_file(target, Path(given)):
            raise UsageError(f"the {what} would overwrite its input {shown(given)}: choose another -o")
    if ours is None or not ours(target):
        raise UsageError(
            f"refusing to overwrite {shown(target)}: it is not a {what} inspectc wrote"
            " (move it away or choose another -o)"
        )
    return target


def _check_folder(target: Path, what: str) -> None:
    parent = target.parent
    try:
        info = os.stat(parent)
    except FileNotFoundError:
        raise UsageError(
            f"cannot write the {what} to {shown(target)}: no such directory {shown(parent)}"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"cannot write the {what} to {shown(target)}: {shown(parent)} is not a directory")
    if len(os.fsencode(target.name)) > 255:
        raise UsageError(f"cannot write the {what} to {shown(target)}: {os.strerror(errno.ENAMETOOLONG)}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


@contextlib.contextmanager
def replacing(target: str | os.PathLike[str], *, what: str) -> Iterator[Path]:
    """A fresh temporary file beside *target*; renamed onto it when the block succeeds.

    The temporary name ends in *target*'s suffix (Graphviz picks the format by it) and is
    removed, never renamed, when the block raises.
    """
    target = Path(target)
    with runlock.holding(target, what=what):
        tmp = _temp_beside(target, what)
        try:
            yield tmp
            os.chmod(tmp, 0o666 & ~umask())  # mkstemp made it private; an output is the user's
            os.replace(tmp, target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _temp_beside(target: Path, what: str) -> Path:
    """A new private temporary file in *target*'s folder whose name ends in *target*'s suffix."""
    try:
        fd, name = tempfile.mkstemp(
            prefix=f".{target.stem[:40]}.", suffix=".tmp" + target.suffix, dir=target.parent
        )
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
    os.close(fd)
    return Path(name)


@contextlib.contextmanager
def creating(target: str | os.PathLike[str], *, what: str) -> Iterator[Path]:
    """As :func:`replacing`, but the finished file takes *target*'s name only when nothing
    has it (``exclusive.place_new``): a file inspectc did not write is never replaced."""
    from inspectc.store.exclusive import place_new

    target = Path(target)
    with runlock.holding(target, what=what):
        tmp = _temp_beside(target, what)
        try:
            yield tmp
            os.chmod(tmp, 0o666 & ~umask())
            place_new(tmp, target)
        except FileExistsError:
            raise UsageError(f"refusing to overwrite {shown(target)}: it exists (move it away)") from None
        except OSError as exc:
            raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
        finally:
            tmp.unlink(missing_ok=True)


def write_output(target: str | os.PathLike[str], data: bytes, *, what: str) -> Path:
    """Write *data* to *target* through :func:`replacing` (or into a FIFO or device as it is)."""
    target = Path(target)
    if _is_device(target):
        try:
            with open(target, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
        return target
    with replacing(target, what=what) as tmp:
        tmp.write_bytes(data)
    return target


def write_chunks(target: str | os.PathLike[str], chunks: Iterable[str], *, what: str) -> Path:
    """:func:`write_output` for UTF-8 text made in pieces (a large export): never all in memory."""
    target = Path(target)
    try:
        if _is_device(target):
            with open(target, "w", encoding="utf-8") as fh:
                fh.writelines(chunks)
            return target
        with replacing(target, what=what) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.writelines(chunks)
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {shown(target)}: {why(exc)}") from None
    return target


def _is_device(path: Path) -> bool:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)
