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

import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import (
    SCHEMA_VERSION,
    Frame,
    Kernel,
    KernelTime,
    Origin,
    Run,
    from_plain,
    to_plain,
)

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


def compress(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def decompress(blob: bytes | None) -> str | None:
    if blob is None:
        return None
    return zlib.decompress(blob).decode("utf-8", "replace")


def _rank(rank: int | None) -> int:
    return NO_RANK if rank is None else rank


class ReportWriter:
    """Appends to a report file; thread-safe; commits at least every ``flush_s`` seconds.

    A background thread commits pending rows so a SIGKILL loses at most ``flush_s`` of
    events; :meth:`flush` commits now (call it at ends of frames and at exit).
    """

    def __init__(self, path: str | os.PathLike[str], *, flush_s: float = 0.2) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise ReportError(f"cannot write report: {self.path} is a directory")
        for suffix in ("", "-journal"):
            stale = Path(str(self.path) + suffix)
            if stale.exists():
                stale.unlink()
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=DELETE")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)
        self._db.execute("BEGIN")
        self._set_meta_locked("format", FORMAT)
        self._set_meta_locked("schema_version", str(SCHEMA_VERSION))
        self._dirty = True
        self._closed = False
        self._next_seq = 1
        self._flush_s = flush_s
        self.flush()
        self._wake = threading.Event()
        self._flusher = threading.Thread(target=self._flush_loop, name="inspectc-flush", daemon=True)
        self._flusher.start()

    # -- writing -----------------------------------------------------------------------
    def _set_meta_locked(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def set_meta(self, key: str, value: Any) -> None:
        text = value if isinstance(value, str) else json.dumps(to_plain(value))
        with self._lock:
            if self._closed:
                return
            self._set_meta_locked(key, text)
            self._dirty = True

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
        blob = compress(payload) if payload is not None else None
        meta_text = json.dumps(metadata, default=str)
        with self._lock:
            seq = self._next_seq
            self._next_seq += 1
            if self._closed:
                return seq
            self._db.execute(
                "INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (seq, ts, _rank(rank), compile_id, name, meta_text, blob),
            )
            self._dirty = True
            return seq

    def put_frame(self, frame: Frame) -> None:
        data = json.dumps(to_plain(frame))
        with self._lock:
            if self._closed:
                return
            self._db.execute(
                "INSERT OR REPLACE INTO frames(rank, compile_id, ordinal, data) VALUES (?, ?, ?, ?)",
                (_rank(frame.rank), frame.compile_id, frame.ordinal, data),
            )
            self._dirty = True

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
        with self._lock:
            if self._closed:
                return
            self._db.execute(
                "INSERT OR REPLACE INTO graphs(rank, compile_id, kind, seq, start, stop)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (_rank(rank), compile_id, kind, seq, start, stop),
            )
            self._dirty = True

    def add_kernel(self, kernel: Kernel, *, rank: int | None, seq: int, start: int, stop: int) -> int:
        data = json.dumps(_kernel_data(kernel))
        with self._lock:
            if self._closed:
                return -1
            cur = self._db.execute(
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
            self._dirty = True
            return int(cur.lastrowid or -1)

    def update_kernel(self, kernel: Kernel) -> None:
        data = json.dumps(_kernel_data(kernel))
        with self._lock:
            if self._closed:
                return
            self._db.execute("UPDATE kernels SET data = ? WHERE id = ?", (data, kernel.id))
            self._dirty = True

    # -- durability --------------------------------------------------------------------
    def flush(self) -> None:
        with self._lock:
            if self._closed or not self._dirty:
                return
            self._db.execute("COMMIT")
            self._db.execute("BEGIN")
            self._dirty = False

    def _flush_loop(self) -> None:
        while not self._wake.wait(self._flush_s):
            try:
                self.flush()
            except sqlite3.Error:
                return  # the writer's owner sees the same error on its next call

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self.flush()
            self._db.execute("COMMIT")
            self._closed = True
            self._db.close()
        self._wake.set()

    def abandon(self) -> None:
        """Drop the connection without writing (used in forked children)."""
        self._closed = True
        self._wake.set()


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


def check_report_file(path: Path) -> None:
    """Raise :class:`ReportError` with one clear line unless *path* looks like a report."""
    if not path.exists():
        raise ReportError(f"no such report: {path}")
    if path.is_dir():
        raise ReportError(f"{path} is a directory, not a report file")
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
        uri = self.path.resolve().as_uri() + "?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout=5000")
            rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        except sqlite3.DatabaseError as exc:
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
        self._frames: list[Frame] | None = None
        self._kernels: list[Kernel] | None = None
        self._payload = lru_cache(maxsize=16)(self._load_payload)

    # -- metadata ----------------------------------------------------------------------
    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise ReportError(f"{self.path}: report is corrupt or truncated ({exc})") from None

    def _meta_json(self, key: str) -> Any:
        text = self.meta.get(key)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise ReportError(f"{self.path}: corrupt '{key}' entry in the report") from None

    @property
    def run(self) -> Run:
        data = self._meta_json("run")
        return from_plain(Run, data) if isinstance(data, dict) else Run()

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
                    frames.append(from_plain(Frame, json.loads(data)))
                except (ValueError, TypeError) as exc:
                    raise ReportError(f"{self.path}: corrupt frame entry ({exc})") from None
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
            self._kernels = [_kernel_from_row(row) for row in rows]
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
        return text[start:stop]

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
        return text[start:stop] if start is not None else text

    def _load_payload(self, seq: int) -> str | None:
        rows = self._query("SELECT payload FROM events WHERE seq = ?", (seq,))
        if not rows:
            return None
        try:
            return decompress(rows[0][0])
        except zlib.error:
            raise ReportError(f"{self.path}: corrupt payload in event {seq}") from None

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
            except ValueError:
                metadata = {"unparsed": meta}
            yield EventRow(seq, ts, None if rk == NO_RANK else rk, cid, name, metadata, size)

    def event_payload(self, seq: int) -> str | None:
        return self._payload(seq)

    def event_count(self) -> int:
        return int(self._query("SELECT count(*) FROM events")[0][0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Report:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kernel_from_row(row: tuple[Any, ...]) -> Kernel:
    kid, rank, cid, name, language, kind, graph_kind, data = row
    try:
        extra = json.loads(data)
    except ValueError:
        extra = {}
    time_data = extra.get("time")
    meta = dict(extra.get("meta") or {})
    if rank != NO_RANK:
        meta["rank"] = rank
    return Kernel(
        id=kid,
        compile_id=cid,
        name=name,
        language=language,
        kind=kind,
        graph_kind=graph_kind,
        source_size=int(extra.get("source_size") or 0),
        fused_nodes=tuple(extra.get("fused_nodes") or ()),
        origins=tuple(from_plain(Origin, o) for o in extra.get("origins") or () if isinstance(o, dict)),
        time=from_plain(KernelTime, time_data) if isinstance(time_data, dict) else None,
        meta=meta,
    )


def open_report(path: str | os.PathLike[str]) -> Report:
    """Open *path* (a report, or a share bundle ``.zip``) for reading.

    Raises :class:`ReportError` with one clear line.
    """
    from inspectc import bundle  # imports this module: import here, not at the top

    if bundle.is_bundle(path):
        return bundle.open_bundle(path)
    return Report(path)


def wait_for_writer(path: Path, timeout_s: float = 5.0) -> None:
    """Used by tests: wait until a report file exists and has its meta table."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size > 0:
            return
        time.sleep(0.05)
