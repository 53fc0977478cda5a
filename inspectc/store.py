"""The report file: a SQLite database written as the run goes and read lazily.

Why SQLite (stdlib ``sqlite3``): one file to attach to a bug, transactions so a killed run
leaves a consistent file holding everything committed so far, and indexed lazy reads so a
100 MB report opens at once. No pickle: rows are JSON text and zlib-compressed UTF-8.

Tables (schema version in ``model.SCHEMA_VERSION``):
  meta(key, value)                 format marker, schema version, run info (JSON)
  events(seq, ts, rank, compile_id, name, metadata, payload)
                                   every structured-trace event, raw (payload compressed)
  frames(rank, compile_id, ordinal, data)            one JSON ``Frame`` per compiled frame
  graphs(rank, compile_id, kind, seq, start, stop)   a slice of an event payload
  kernels(id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop, data)
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import types
import typing
import weakref
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar

from inspectc.errors import ReportError
from inspectc.model import (
    SCHEMA_VERSION,
    Frame,
    Kernel,
    Run,
    from_plain,
    to_plain,
)

T = TypeVar("T")
FORMAT = "inspectc-report"
NO_RANK = -1  # stored for "not a distributed run" (NULLs do not work in keys)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events(
    seq INTEGER PRIMARY KEY, ts REAL, rank INTEGER NOT NULL, compile_id TEXT,
    name TEXT NOT NULL, metadata TEXT NOT NULL, payload BLOB);
CREATE INDEX IF NOT EXISTS events_by_frame ON events(rank, compile_id);
CREATE TABLE IF NOT EXISTS frames(
    rank INTEGER NOT NULL, compile_id TEXT NOT NULL, ordinal INTEGER NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY(rank, compile_id));
CREATE TABLE IF NOT EXISTS graphs(
    rank INTEGER NOT NULL, compile_id TEXT NOT NULL, kind TEXT NOT NULL,
    seq INTEGER NOT NULL, start INTEGER, stop INTEGER, PRIMARY KEY(rank, compile_id, kind));
CREATE TABLE IF NOT EXISTS kernels(
    id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, compile_id TEXT NOT NULL,
    name TEXT NOT NULL, language TEXT NOT NULL, kind TEXT NOT NULL, graph_kind TEXT NOT NULL,
    seq INTEGER NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS kernels_by_frame ON kernels(rank, compile_id);
"""

SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_PAYLOAD_BYTES = 1 << 30  # one event's text; Inductor output code of huge models is ~100 MB


def compress(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def decompress(blob: bytes | None) -> str | None:
    """A payload's text; ``zlib.error`` when it is corrupt or inflates past the limit."""
    if blob is None:
        return None
    if not isinstance(blob, bytes):
        raise zlib.error("not compressed data")
    inflater = zlib.decompressobj()
    data = inflater.decompress(blob, MAX_PAYLOAD_BYTES)
    if inflater.unconsumed_tail:  # a zip bomb, not a graph
        raise zlib.error(f"inflates past {MAX_PAYLOAD_BYTES >> 20} MB: refused")
    if not inflater.eof:
        raise zlib.error("truncated")
    return data.decode("utf-8", "replace")


def _rank(rank: int | None) -> int:
    # A rank SQLite cannot store (a corrupt or hostile log says 2**70) is no rank at all.
    return rank if rank is not None and 0 <= rank < 2**63 else NO_RANK


class ReportWriter:
    """Appends to a report file; thread-safe; commits at least every ``flush_s`` seconds.

    A background thread commits pending rows so a SIGKILL loses at most ``flush_s`` of
    events; :meth:`flush` commits now (call it at ends of frames and at exit).

    Writing never raises into the program being captured once the file is open: when the
    disk fills up or the file goes away, the writer stops for good, rolls back to its last
    commit (the file stays a readable report) and keeps the reason in :attr:`failure`.
    """

    def __init__(self, path: str | os.PathLike[str], *, flush_s: float = 0.2) -> None:
        self.path = Path(path)
        _check_writable(self.path)
        self.failure: str | None = None
        self._lock = threading.RLock()
        self._dirty = True
        self._closed = False
        self._next_seq = 1
        self._flush_s = flush_s
        _create_empty_report(self.path)
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=DELETE")
            self._db.execute("PRAGMA synchronous=OFF")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise ReportError(f"cannot write report {self.path}: {exc}") from None
        self._dirty = False
        _WRITERS.add(self)
        self._wake = threading.Event()
        self._flusher = threading.Thread(target=self._flush_loop, name="inspectc-flush", daemon=True)
        self._flusher.start()

    # -- writing -----------------------------------------------------------------------
    def _write(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor | None:
        """Run one statement that changes the report; None once writing has stopped."""
        with self._lock:
            if self._closed:
                return None
            try:
                cursor = self._db.execute(sql, args)
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, _ROW_ERRORS) or _busy(exc):
                    raise  # this row only (a bad value; a reader held the file too long)
                self._fail(exc)
                return None
            self._dirty = True
            return cursor

    def _fail(self, exc: BaseException) -> None:
        """Stop writing for good (disk full, I/O error, file removed); keep the last commit."""
        self.failure = str(exc) or type(exc).__name__
        self._closed = True
        try:
            self._db.close()  # rolls back the open transaction: the file is as last committed
        except sqlite3.Error:
            pass

    def set_meta(self, key: str, value: Any) -> None:
        if self._closed:
            return
        text = value if isinstance(value, str) else json.dumps(to_plain(value))
        self._write("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, text))

    def add_event(
        self,
        *,
        name: str,
        metadata: dict[str, Any],
        payload: str | None,
        compile_id: str | None,
        rank: int | None,
        ts: float | None,
    ) -> int:
        if self._closed:
            return -1
        blob = compress(payload) if payload is not None else None
        meta_text = json.dumps(metadata, default=str)
        with self._lock:
            seq = self._next_seq
            self._next_seq += 1
            self._write(
                "INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (seq, ts, _rank(rank), compile_id, name, meta_text, blob),
            )
            return seq

    def put_frame(self, frame: Frame) -> None:
        if self._closed:
            return
        data = json.dumps(to_plain(frame))
        self._write(
            "INSERT OR REPLACE INTO frames(rank, compile_id, ordinal, data) VALUES (?, ?, ?, ?)",
            (_rank(frame.rank), frame.compile_id, frame.ordinal, data),
        )

    def put_graph(
        self,
        *,
        rank: int | None,
        compile_id: str,
        kind: str,
        seq: int,
        start: int | None = None,
        stop: int | None = None,
    ) -> None:
        self._write(
            "INSERT OR REPLACE INTO graphs(rank, compile_id, kind, seq, start, stop)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (_rank(rank), compile_id, kind, seq, start, stop),
        )

    def add_kernel(self, kernel: Kernel, *, rank: int | None, seq: int, start: int, stop: int) -> int:
        if self._closed:
            return -1
        data = json.dumps(_kernel_data(kernel))
        cursor = self._write(
            "INSERT INTO kernels(rank, compile_id, name, language, kind, graph_kind, seq, start,"
            " stop, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                _rank(rank),
                kernel.compile_id,
                kernel.name,
                kernel.language,
                kernel.kind,
                kernel.graph_kind,
                seq,
                start,
                stop,
                data,
            ),
        )
        return int(cursor.lastrowid or -1) if cursor is not None else -1

    def update_kernel(self, kernel: Kernel) -> None:
        if self._closed:
            return
        data = json.dumps(_kernel_data(kernel))
        self._write("UPDATE kernels SET data = ? WHERE id = ?", (data, kernel.id))

    # -- durability --------------------------------------------------------------------
    def flush(self) -> None:
        with self._lock:
            if self._closed or not self._dirty:
                return
            self._commit_locked(begin=True)

    def _commit_locked(self, *, begin: bool) -> None:
        # in_transaction: a signal that arrived between COMMIT and BEGIN must not leave the
        # writer unable to commit again.
        try:
            if self._db.in_transaction:
                self._db.execute("COMMIT")
            if begin:
                self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            if not _busy(exc):
                self._fail(exc)
            return  # busy: a reader holds the file; the transaction stays open, retried next flush
        self._dirty = False

    def _flush_loop(self) -> None:
        while not self._wake.wait(self._flush_s):
            self.flush()
            if self._closed:
                return

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._commit_locked(begin=False)
            if not self._closed:
                self._closed = True
                try:
                    self._db.close()
                except sqlite3.Error as exc:
                    self.failure = str(exc)
        _WRITERS.discard(self)
        self._wake.set()

    def abandon(self) -> None:
        """Drop the connection without writing (used in forked children)."""
        self._closed = True
        self._wake.set()


# Errors of one statement (a bad value, a duplicate key): not a reason to stop writing.
_ROW_ERRORS = (sqlite3.IntegrityError, sqlite3.DataError, sqlite3.ProgrammingError, sqlite3.InterfaceError)


def _busy(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY/LOCKED: another connection (a reader) held the file past busy_timeout."""
    return getattr(exc, "sqlite_errorcode", None) in (5, 6) or "locked" in str(exc)


def _create_empty_report(path: Path) -> None:
    """Put a complete empty report (schema, format marker) at *path* in one atomic rename.

    A reader polling the path never sees a half-created file, and a stale journal of an
    earlier run at the same path is removed first (SQLite would "roll back" the new file
    with it).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        for stale in (tmp, _journal(tmp), _journal(path)):
            if stale.is_file() or stale.is_symlink():
                stale.unlink()
        db = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("BEGIN")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT INTO meta(key, value) VALUES ('format', ?)", (FORMAT,))
            db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")
        finally:
            db.close()
        os.replace(tmp, path)
    except (sqlite3.Error, OSError) as exc:
        tmp.unlink(missing_ok=True)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ReportError(f"cannot write report {path}: {why}") from None


def _check_writable(path: Path) -> None:
    """Refuse, with one clear line, a report path that cannot or must not be written."""
    parent = path.parent
    if not parent.exists():
        raise ReportError(f"cannot write report {path}: {parent} does not exist")
    if not parent.is_dir():
        raise ReportError(f"cannot write report {path}: {parent} is not a directory")
    if path.is_dir():
        raise ReportError(f"cannot write report: {path} is a directory")
    if path.exists() and not path.is_file():
        # A device, FIFO or socket (e.g. -o /dev/null): never unlink or overwrite it.
        raise ReportError(f"cannot write report: {path} is not a regular file")


# Writers open in this process. fork() copies a connection; a child that closed its copy
# while the parent had a write transaction open would roll it back (deleting the parent's
# journal). So each writer commits and holds its lock across fork(): the child inherits no
# open write, and never writes (capture abandons the writer in the child).
_WRITERS: weakref.WeakSet[ReportWriter] = weakref.WeakSet()
_FORK_HELD: list[ReportWriter] = []


def _before_fork() -> None:
    for writer in list(_WRITERS):
        writer._lock.acquire()
        _FORK_HELD.append(writer)
        if not writer._closed:
            writer._commit_locked(begin=True)


def _after_fork_in_parent() -> None:
    while _FORK_HELD:
        _FORK_HELD.pop()._lock.release()


def _after_fork_in_child() -> None:
    while _FORK_HELD:
        writer = _FORK_HELD.pop()
        writer._closed = True  # the child's copy never writes
        writer._lock.release()
    _WRITERS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child
    )


def _kernel_data(kernel: Kernel) -> dict[str, Any]:
    return {
        "source_size": kernel.source_size,
        "fused_nodes": list(kernel.fused_nodes),
        "origins": [to_plain(o) for o in kernel.origins],
        "time": to_plain(kernel.time) if kernel.time else None,
        "meta": to_plain(kernel.meta),
    }


# ---------------------------------------------------------------------------
# Reading


@dataclass(frozen=True, slots=True)
class EventRow:
    seq: int
    ts: float | None
    rank: int | None
    compile_id: str | None
    name: str
    metadata: dict[str, Any]
    payload_size: int | None


def _check_path(path: Path) -> None:
    if not path.exists():
        raise ReportError(f"no such report: {path}")
    if path.is_dir():
        raise ReportError(f"{path} is a directory, not a report file")
    if not path.is_file():  # a FIFO or a device: reading it could block or never end
        raise ReportError(f"{path} is not a regular file, not a report")


def check_report_file(path: Path) -> None:
    """Raise :class:`ReportError` with one clear line unless *path* looks like a report."""
    _check_path(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        raise ReportError(f"{path} is empty (0 bytes): not an inspectc report")
    if head != SQLITE_MAGIC:
        raise ReportError(f"{path} is not an inspectc report (unknown file format)")


class Report:
    """A report opened for reading. Frames load at once; graphs, sources and events lazily."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        check_report_file(self.path)
        self._recovery: Callable[[], Any] | None = None
        try:
            try:
                self._db = _connect_read_only(self.path)
                rows = self._db.execute("SELECT key, value FROM meta").fetchall()
            except sqlite3.OperationalError:
                if not _journal(self.path).is_file():
                    raise
                # A run killed mid-transaction leaves a hot journal that only a writer may
                # roll back: roll it back in a private copy, never in the user's file.
                self._db = self._recovered_copy()
                rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # see _query
            if "no such table" in str(exc):
                raise ReportError(f"{self.path} is an SQLite database but not an inspectc report") from None
            raise ReportError(f"{self.path} is not a readable inspectc report ({exc})") from None
        self.meta: dict[str, str] = {str(k): str(v) for k, v in rows}
        if self.meta.get("format") != FORMAT:
            raise ReportError(f"{self.path} is an SQLite database but not an inspectc report")
        try:
            version = int(self.meta.get("schema_version", ""))
        except ValueError:
            raise ReportError(f"{self.path}: report has no valid schema version") from None
        if version > SCHEMA_VERSION:
            raise ReportError(
                f"{self.path} uses report schema {version}, newer than this inspectc"
                f" understands ({SCHEMA_VERSION}): upgrade inspectc"
            )
        self.schema_version = version
        self._run = self._load_run()  # checked at open: a corrupt run entry fails here, once
        self._frames: list[Frame] | None = None
        self._kernels: list[Kernel] | None = None
        self._payload = lru_cache(maxsize=16)(self._load_payload)

    def _recovered_copy(self) -> sqlite3.Connection:
        tmp = tempfile.mkdtemp(prefix="inspectc-recover-")
        self._recovery = weakref.finalize(self, shutil.rmtree, tmp, ignore_errors=True)
        copy = Path(tmp) / "report.inspectc"
        try:
            shutil.copyfile(self.path, copy)
            shutil.copyfile(_journal(self.path), _journal(copy))
        except OSError as exc:
            raise ReportError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        self.path = copy
        db = sqlite3.connect(str(copy), check_same_thread=False)
        db.text_factory = _text
        db.execute("PRAGMA query_only=1")
        return db

    # -- metadata ----------------------------------------------------------------------
    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, args).fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            # UnicodeDecodeError: sqlite3 decodes SQLite's own error messages strictly, and a
            # corrupt schema puts raw bytes in them.
            raise ReportError(f"{self.path}: report is corrupt or truncated ({exc})") from None

    def _meta_json(self, key: str) -> Any:
        text = self.meta.get(key)
        if text is None:
            return None
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise ReportError(f"{self.path}: corrupt '{key}' entry in the report") from None

    @property
    def run(self) -> Run:
        return self._run

    def _load_run(self) -> Run:
        data = self._meta_json("run")
        if not isinstance(data, dict):
            return Run()
        return _load(Run, data, f"{self.path}: corrupt run entry")

    @property
    def inspectc_version(self) -> str | None:
        return self.meta.get("inspectc_version")

    @property
    def torch_version(self) -> str | None:
        return self.run.torch_version

    # -- frames and kernels ------------------------------------------------------------
    @property
    def frames(self) -> list[Frame]:
        if self._frames is None:
            rows = self._query("SELECT data FROM frames ORDER BY ordinal, rank, compile_id")
            frames = []
            for (data,) in rows:
                try:
                    plain = json.loads(data)
                except (ValueError, TypeError, RecursionError) as exc:
                    raise ReportError(f"{self.path}: corrupt frame entry ({_short(exc)})") from None
                frames.append(_load(Frame, plain, f"{self.path}: corrupt frame entry"))
            self._frames = frames
        return self._frames

    def frame(self, compile_id: str, rank: int | None = None) -> Frame | None:
        for frame in self.frames:
            if frame.compile_id == compile_id and (rank is None or frame.rank == rank):
                return frame
        return None

    @property
    def kernels(self) -> list[Kernel]:
        if self._kernels is None:
            rows = self._query(
                "SELECT id, rank, compile_id, name, language, kind, graph_kind, data FROM kernels ORDER BY id"
            )
            self._kernels = [_kernel_from_row(row, self.path) for row in rows]
        return self._kernels

    def frame_kernels(self, compile_id: str, rank: int | None = None) -> list[Kernel]:
        return [
            k
            for k in self.kernels
            if k.compile_id == compile_id and (rank is None or k.meta.get("rank", rank) == rank)
        ]

    def kernel_source(self, kernel: Kernel) -> str:
        rows = self._query("SELECT seq, start, stop FROM kernels WHERE id = ?", (kernel.id,))
        if not rows:
            return ""
        seq, start, stop = rows[0]
        text = self._payload(seq) or ""
        return text[_index(start) : _index(stop)]

    def graph(self, compile_id: str, kind: str, rank: int | None = None) -> str | None:
        rows = self._query(
            "SELECT seq, start, stop FROM graphs WHERE rank = ? AND compile_id = ? AND kind = ?",
            (_rank(rank), compile_id, kind),
        )
        if not rows:
            return None
        seq, start, stop = rows[0]
        text = self._payload(seq)
        if text is None:
            return None
        return text[_index(start) : _index(stop)]

    def _load_payload(self, seq: int) -> str | None:
        rows = self._query("SELECT payload FROM events WHERE seq = ?", (seq,))
        if not rows:
            return None
        try:
            return decompress(rows[0][0])
        except zlib.error as exc:
            raise ReportError(f"{self.path}: event {seq}: corrupt payload ({exc})") from None

    # -- raw events --------------------------------------------------------------------
    def events(
        self, compile_id: str | None = None, rank: int | None = None, *, limit: int = 100_000
    ) -> Iterator[EventRow]:
        sql = "SELECT seq, ts, rank, compile_id, name, metadata, length(payload) FROM events"
        args: tuple[Any, ...] = ()
        if compile_id is not None:
            sql += " WHERE compile_id = ? AND rank = ?"
            args = (compile_id, _rank(rank))
        sql += " ORDER BY seq LIMIT ?"
        for seq, ts, rk, cid, name, meta, size in self._query(sql, args + (limit,)):
            try:
                metadata = json.loads(meta)
            except (ValueError, TypeError, RecursionError):
                metadata = None
            if not isinstance(metadata, dict):
                metadata = {"unparsed": str(meta)}
            yield EventRow(seq, ts, None if rk == NO_RANK else rk, cid, name, metadata, size)

    def event_payload(self, seq: int) -> str | None:
        return self._payload(seq)

    def event_count(self) -> int:
        return int(self._query("SELECT count(*) FROM events")[0][0])

    def close(self) -> None:
        self._db.close()
        if self._recovery is not None:
            self._recovery()

    def __enter__(self) -> Report:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kernel_from_row(row: tuple[Any, ...], path: Path) -> Kernel:
    kid, rank, cid, name, language, kind, graph_kind, data = row
    try:
        extra = json.loads(data)
    except (ValueError, TypeError, RecursionError):
        extra = {}
    if not isinstance(extra, dict):
        extra = {}
    time_data = extra.get("time")
    meta = dict(extra.get("meta") or {}) if isinstance(extra.get("meta"), dict) else {}
    if rank != NO_RANK:
        meta["rank"] = rank
    origins = extra.get("origins")
    fused = extra.get("fused_nodes")
    plain = {
        "id": kid,
        "compile_id": cid,
        "name": name,
        "language": language,
        "kind": kind,
        "graph_kind": graph_kind,
        "source_size": extra.get("source_size") or 0,
        "fused_nodes": fused if isinstance(fused, list) else [],
        "origins": [o for o in origins if isinstance(o, dict)] if isinstance(origins, list) else [],
        "time": time_data if isinstance(time_data, dict) else None,
        "meta": meta,
    }
    return _load(Kernel, plain, f"{path}: corrupt kernel entry")


def _load(cls: type[T], data: Any, what: str) -> T:
    """:func:`from_plain`, then check every field has its declared type (reports are untrusted)."""
    try:
        obj = from_plain(cls, data)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ReportError(f"{what} ({_short(exc)})") from None
    problem = _type_problem(obj)
    if problem:
        raise ReportError(f"{what} ({problem})")
    return obj


Check = Callable[[Any], bool]


@cache
def _field_checks(cls: Any) -> tuple[tuple[str, Check], ...]:
    return tuple((name, _checker(hint)) for name, hint in typing.get_type_hints(cls).items())


def _type_problem(obj: Any) -> str | None:
    """The first field of dataclass *obj* (recursively) whose value has the wrong type."""
    cls: Any = type(obj)
    for name, check in _field_checks(cls):
        value = getattr(obj, name)
        if not check(value):
            return f"{cls.__name__}.{name} is {type(value).__name__}"
    return None


def _checker(hint: Any) -> Check:
    """A fast isinstance-style test for a field's declared type (built once per hint)."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return lambda v: True
    if hint is type(None):
        return lambda v: v is None
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        simple = _plain_types(args)
        if simple is not None:  # e.g. str | None: one isinstance call
            return lambda v: isinstance(v, simple)
        options = tuple(_checker(arg) for arg in args)
        return lambda v: any(check(v) for check in options)
    if origin is tuple:
        item = _checker(typing.get_args(hint)[0])
        return lambda v: isinstance(v, tuple) and all(item(x) for x in v)
    if origin is dict:
        value = _checker(typing.get_args(hint)[1])
        return lambda v: isinstance(v, dict) and all(value(x) for x in v.values())
    if hint is float:
        return lambda v: isinstance(v, (int, float))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda v: isinstance(v, hint) and _type_problem(v) is None
    if isinstance(hint, type):
        return lambda v: isinstance(v, hint)
    return lambda v: True


def _plain_types(hints: tuple[Any, ...]) -> tuple[type, ...] | None:
    out: list[type] = []
    for hint in hints:
        if not isinstance(hint, type) or typing.get_origin(hint) or dataclasses.is_dataclass(hint):
            return None
        out.extend((int, float) if hint is float else (hint,))
    return tuple(out)


def _short(exc: BaseException) -> str:
    return str(exc)[:200] or type(exc).__name__


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def _journal(path: Path) -> Path:
    return Path(str(path) + "-journal")


def _connect_read_only(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, check_same_thread=False)
    db.text_factory = _text
    db.execute("PRAGMA busy_timeout=5000")
    return db


def _text(raw: bytes) -> str:
    # TEXT cells of a corrupt or hostile file may hold invalid UTF-8 (sqlite3 would raise
    # UnicodeDecodeError on the whole query).
    return raw.decode("utf-8", "replace")


def open_report(path: str | os.PathLike[str]) -> Report:
    """Open *path* (a report, or a share bundle ``.zip``) for reading.

    Raises :class:`ReportError` with one clear line.
    """
    from inspectc import bundle  # imports this module: import here, not at the top

    _check_path(Path(path))
    if bundle.is_bundle(path):
        return bundle.open_bundle(path)
    return Report(path)
