"""The report file on disk, before and around the writers: where ``-o`` may write (never a link,
a device, a file inspectc did not write, or beside a journal SQLite did not write), and a new
report (empty, or a copy of another) created under an unpredictable name and published by one
atomic rename. :func:`open_target` is the one place every writer opens its target."""

from __future__ import annotations

import os
import sqlite3
import stat
import tempfile
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.store.schema import FORMAT, SCHEMA_SQL, SCHEMA_VERSION, SQLITE_MAGIC, journal


def open_target(
    path: Path, *, publish: bool = True, copy_of: Path | None = None, in_place: bool = False
) -> Path:
    """The one place a writer of a report file opens its target; the file its rows go to.

    Every writer comes here first (:class:`~inspectc.store.writer.ReportWriter` for capture
    and made-to-order reports, :mod:`~inspectc.store.oneshot` for import and merge,
    :mod:`~inspectc.store.edit` for bench and accuracy, :mod:`~inspectc.store.rewrite` for
    share's copy), so the rules of ``-o`` live in one place: :func:`check_writable`. Then, by default, a new report at *path*
    (:func:`create_report`: empty, or a copy of the report *copy_of*); with *in_place*, the
    existing report at *path* itself, which must be one.
    """
    check_writable(path)
    if not in_place:
        return create_report(path, publish=publish, copy_of=copy_of)
    if identity(path) is None or not replaceable_report(path) or not os.path.getsize(path):
        raise ReportError(f"cannot write into {path}: it is not an inspectc report")
    from inspectc.store.snapshot import beside

    if beside(path):  # a writer's connection would play it back (a journal names a file SQLite deletes)
        names = " and ".join(p.name for p in beside(path))
        raise ReportError(
            f"cannot write into {path}: {names} beside it (not played back): give -o PATH for a copy"
        )
    return path


def create_report(path: Path, *, publish: bool = True, copy_of: Path | None = None) -> Path:
    """Put a complete report at *path* in one atomic rename: empty (schema, format marker),
    or with *copy_of* a copy of that report (verified first: no view or trigger comes along).

    A reader polling the path never sees a half-created file. The file is built under a
    name nobody can predict (``mkstemp``: created exclusively, so a planted symlink is
    never followed) in the target's folder. A stale SQLite journal of an earlier report at
    *path* is removed first (SQLite would "roll back" the new file with it);
    :func:`check_writable` has made sure it is one. Without *publish* the report stays
    at its temporary name, which is returned (the writer renames it when it closes).
    """
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name[:60]}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise ReportError(f"cannot write report {path}: {exc.strerror or exc}") from None
    os.close(fd)
    tmp = Path(name)
    try:
        db = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=DELETE")
            if copy_of is None:
                _write_schema(db)
            else:
                _copy_into(db, copy_of)
        finally:
            db.close()
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp made it private; a report is the user's file
        if not publish:
            return tmp
        publish_report(tmp, path)
    except (sqlite3.Error, OSError) as exc:
        tmp.unlink(missing_ok=True)
        journal(tmp).unlink(missing_ok=True)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ReportError(f"cannot write report {path}: {why}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        journal(tmp).unlink(missing_ok=True)
        raise
    return path


def _write_schema(db: sqlite3.Connection) -> None:
    db.execute("BEGIN")
    for statement in SCHEMA_SQL.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("INSERT INTO meta(key, value) VALUES ('format', ?)", (FORMAT,))
    db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    db.execute("COMMIT")


def _copy_into(db: sqlite3.Connection, source: Path) -> None:
    from inspectc.store import untrusted

    src, _ = untrusted.open_verified(source)
    try:
        untrusted.guard(db, source)  # the copy holds the source's schema: read it as a stranger's
        src.backup(db)
    finally:
        src.close()


def publish_report(tmp: Path, path: Path) -> None:
    """Give the finished report *tmp* the name *path* (a stale journal of *path* goes first)."""
    if is_sqlite_journal(journal(path)):
        journal(path).unlink()
    os.replace(tmp, path)


def check_writable(path: Path) -> None:
    """Refuse, with one clear line, a report path that cannot or must not be written.

    Only a report (or an empty file) is ever replaced: never a link, a device, the user's
    script or notes, and never beside a ``-journal`` file SQLite did not write.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise ReportError(f"cannot write report {path}: {exc.strerror or exc}") from None
    if info is None:
        try:
            parent = os.stat(path.parent)
        except OSError as exc:
            why = "does not exist" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc))
            raise ReportError(f"cannot write report {path}: {path.parent} {why}") from None
        if not stat.S_ISDIR(parent.st_mode):
            raise ReportError(f"cannot write report {path}: {path.parent} is not a directory")
    elif stat.S_ISLNK(info.st_mode):
        raise ReportError(
            f"cannot write report: {path} is a symbolic link (inspectc does not write through links)"
        )
    elif stat.S_ISDIR(info.st_mode):
        raise ReportError(f"cannot write report: {path} is a directory")
    elif not stat.S_ISREG(info.st_mode):
        # A device, FIFO or socket (e.g. -o /dev/null): never unlink or overwrite it.
        raise ReportError(f"cannot write report: {path} is not a regular file")
    elif not replaceable_report(path):
        raise ReportError(
            f"refusing to overwrite {path}: it is not an inspectc report (move it away or choose another -o)"
        )
    side = journal(path)
    if (side.exists() or side.is_symlink()) and not is_sqlite_journal(side):
        raise ReportError(
            f"cannot write report {path}: {side} is in the way and is not an SQLite journal (move it away)"
        )


def identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def is_sqlite_journal(path: Path) -> bool:
    """A regular file (not a link) that SQLite wrote as a rollback journal (or left empty)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return False
    return head in (b"", _JOURNAL_MAGIC) or head == bytes(8)


def replaceable_report(path: str | os.PathLike[str]) -> bool:
    """True when *path* is an empty file or an inspectc report: what ``-o`` may replace."""
    target = Path(path)
    try:
        with open(target, "rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError:
        return False
    if not head:
        return True
    if head != SQLITE_MAGIC:
        return False
    from inspectc.errors import ReportError
    from inspectc.store import untrusted

    try:  # immutable: read the file as it is, whatever journal is beside it; verified first
        db, budget = untrusted.open_verified(target)
        try:
            rows = untrusted.run(db, budget, "SELECT value FROM meta WHERE key = 'format'")
        finally:
            db.close()
    except (sqlite3.Error, UnicodeDecodeError, ReportError):
        return False
    return bool(rows) and rows[0][0] == FORMAT


def umask() -> int:
    """The process umask (read without changing it for longer than two calls)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
