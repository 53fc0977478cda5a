"""Writing a new report: appended to as the run goes, committed at least every 0.2 s, fork-safe.

The one writer of new report files (capture, made-to-order reports; import and merge through
:mod:`inspectc.store.oneshot`): every row goes in through :class:`ReportWriter`'s methods. Changes to an
existing report (``bench``, ``accuracy``) are :mod:`inspectc.store.edit`'s; a copy of a report
rewritten row by row (``share``) is :mod:`inspectc.store.rewrite`'s.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import Frame, Kernel, to_plain
from inspectc.store.schema import compress, journal
from inspectc.store.schema import db_rank as _rank
from inspectc.store.target import identity, is_sqlite_journal, open_target, publish_report

# What a write of one row raises when that row could not be written (a bad value, a reader
# holding the file past the timeout); the writer itself goes on. Callers catch it by this name.
WriteError = sqlite3.Error


class ReportWriter:
    """Appends to a report file; thread-safe; commits at least every ``flush_s`` seconds.

    A background thread commits pending rows so a SIGKILL loses at most ``flush_s`` of
    events; :meth:`flush` commits now (call it at ends of frames and at exit).

    Writing never raises into the program being captured once the file is open: when the
    disk fills up or the file goes away, the writer stops for good, rolls back to its last
    commit (the file stays a readable report) and keeps the reason in :attr:`failure`.

    With *publish_at_close* (one-shot writers: import), the report is written under a
    temporary name and takes *path* only in :meth:`close`, so a failed import leaves the
    file that was at *path* as it was.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, flush_s: float = 0.2, publish_at_close: bool = False
    ) -> None:
        self.path = Path(path)
        self.failure: str | None = None
        self.final_commit_s = 30.0  # how long close() waits for readers before saying what is lost
        self._lock = threading.RLock()
        self._dirty = True
        self._closed = False
        self._next_seq = 1
        self._flush_s = flush_s
        self._file = open_target(self.path, publish=not publish_at_close)  # where rows go
        self._created = identity(self._file)  # what discard() may remove: this file only
        try:
            self._db = sqlite3.connect(str(self._file), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=DELETE")
            self._db.execute("PRAGMA synchronous=OFF")
            # No page reaches the file before its commit: a run killed mid-transaction leaves
            # the file as last committed, which readers (immutable: they never play a journal
            # back) read whole; only that last transaction is missing.
            self._db.execute("PRAGMA cache_spill=OFF")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise ReportError(f"cannot write report {self.path}: {exc}") from None
        self._dirty = False
        # Called by the flush thread before each commit (outside the writer's lock): capture
        # writes the frames the builder holds back (trace.builder.FRAME_WRITE_S) through it.
        self.before_flush: Callable[[], None] | None = None
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
        data = json.dumps(frame_data(frame))
        self._write(
            "INSERT OR REPLACE INTO frames(rank, compile_id, ordinal, data) VALUES (?, ?, ?, ?)",
            (_rank(frame.rank), str(frame.compile_id), frame.ordinal, data),
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

    def add_kernel(self, kernel: Kernel, *, seq: int, rank: int | None = None, start: int, stop: int) -> int:
        if self._closed:
            return -1
        data = json.dumps(_kernel_data(kernel))
        cursor = self._write(
            "INSERT INTO kernels(rank, compile_id, name, language, kind, graph_kind, seq, start,"
            " stop, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                _rank(kernel.rank if rank is None else rank),
                str(kernel.compile_id),
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

    def rows(self, sql: str) -> Iterator[tuple[Any, ...]]:
        """The rows of *sql* as this writer sees them (uncommitted ones too), a batch at a
        time under the writer's lock: capture reads its report back once, to sign it."""
        cursor: sqlite3.Cursor | None = None
        while True:
            with self._lock:
                if self._closed:
                    return
                if cursor is None:
                    cursor = self._db.execute(sql)
                batch = cursor.fetchmany(64)
            if not batch:
                return
            yield from batch

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
            hook = self.before_flush
            if hook is not None:
                hook()
            self.flush()
            if self._closed:
                return

    def _final_commit_locked(self) -> None:
        """The last commit: a reader holding the file (``tui --follow``, a ``summary``) is
        waited for up to :attr:`final_commit_s`, then the loss is said in :attr:`failure`
        (closing rolls back what is not committed; it must never go silently)."""
        deadline = time.monotonic() + self.final_commit_s
        while not self._closed:
            self._commit_locked(begin=False)
            if not self._db.in_transaction:
                return
            if time.monotonic() >= deadline:
                self.failure = (
                    f"another process held {self.path} for {self.final_commit_s:g} s at the end;"
                    " the rows since its last commit were not saved"
                )
                return
            time.sleep(0.05)

    def close(self) -> None:
        self.before_flush = None  # its owner (a capture) is not kept alive by the flush thread
        with self._lock:
            if not self._closed:
                self._final_commit_locked()
            if not self._closed:
                self._closed = True
                try:
                    self._db.close()
                except sqlite3.Error as exc:
                    self.failure = str(exc)
            if self._file != self.path and self._created is not None:
                self._publish()
        _WRITERS.discard(self)
        self._wake.set()

    def _publish(self) -> None:
        created, self._created = self._created, None
        if identity(self._file) != created:
            return
        try:
            publish_report(self._file, self.path)
        except OSError as exc:
            self.failure = f"cannot write report {self.path}: {exc.strerror or exc}"

    def discard(self) -> None:
        """Close and remove the report this writer created (a failed import or merge).

        Only that file goes: if *path* now names something else (replaced, or a link put
        there meanwhile), it is left alone. Its journal goes with it.
        """
        created, self._created = self._created, None  # a publishing writer then keeps its file
        self.close()
        if created is not None and identity(self._file) == created:
            leftovers = [self._file] + [journal(self._file)] * is_sqlite_journal(journal(self._file))
            for leftover in leftovers:
                try:
                    leftover.unlink()
                except OSError:
                    pass

    def abandon(self) -> None:
        """Drop the connection without writing (used in forked children)."""
        self._closed = True
        self._wake.set()


# Errors of one statement (a bad value, a duplicate key): not a reason to stop writing.
_ROW_ERRORS = (sqlite3.IntegrityError, sqlite3.DataError, sqlite3.ProgrammingError, sqlite3.InterfaceError)


def _busy(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY/LOCKED: another connection (a reader) held the file past busy_timeout."""
    return getattr(exc, "sqlite_errorcode", None) in (5, 6) or "locked" in str(exc)


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


def frame_data(frame: Frame) -> dict[str, Any]:
    """A frame's stored JSON: its id as text ("0/1") and, since schema 2, also as fields ("id")."""
    plain = to_plain(frame)
    head = {
        "compile_id": plain.pop("compile_id"),
        "rank": plain.pop("rank"),
        "id": to_plain(frame.compile_id),
    }
    return head | plain


def _kernel_data(kernel: Kernel) -> dict[str, Any]:
    return {
        "source_size": kernel.source_size,
        "fused_nodes": list(kernel.fused_nodes),
        "origins": [to_plain(o) for o in kernel.origins],
        "time": to_plain(kernel.time) if kernel.time else None,
        "meta": to_plain(kernel.meta),
    }
