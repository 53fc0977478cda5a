"""Writers of one-shot reports: ``inspectc import`` (every frame written once, at the end) and
``inspectc merge`` (every row of other reports copied in). The report takes its name only when
complete; a failure leaves what was at the path as it was. Stdlib only.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import CompileId, Frame
from inspectc.model.limits import MAX_FRAMES, most
from inspectc.store import untrusted
from inspectc.store.schema import NO_RANK
from inspectc.store.writer import ReportWriter


class OneShotWriter(ReportWriter):
    """A writer for one-shot reports (import, merge): published under *path* only when it
    closes, so a failure keeps the file that was there; frames written once at the end,
    commits batched (:meth:`commit`).

    The builder re-writes a frame after each of its events (live capture wants that, so a
    killed run keeps its frames); for a one-shot report only the last version matters.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path, flush_s=3600.0, publish_at_close=True)
        self.pending: dict[CompileId, Frame] = {}
        self.source: Path | str = "the input"  # what is read, for the one line of a limit

    def put_frame(self, frame: Frame) -> None:
        if frame.compile_id not in self.pending and len(self.pending) >= most(MAX_FRAMES):
            raise ReportError(  # readers refuse more: a log of a million recompiles stops here (issue 38)
                f"{self.source}: more than {most(MAX_FRAMES):,} compiled frames, more than a report"
                " inspectc reads: refused (INSPECTC_LIMITS=N raises the limits)"
            )
        self.pending[frame.compile_id] = frame

    def flush(self) -> None:
        pass  # commits happen in commit() (import: every COMMIT_EVERY events)

    def commit(self) -> None:
        super().flush()

    def write_frames(self) -> None:
        for frame in self.pending.values():
            super().put_frame(frame)
        self.pending.clear()
        self.commit()

    def finish(self) -> None:
        """Close and publish the report; if writing it failed (disk full, file removed),
        remove it and raise one line instead (the file that was at *path* stays)."""
        self.commit()
        if self.failure is not None:
            failure = self.failure
            self.discard()
            raise ReportError(f"cannot write report {self.path}: {failure}")
        self.close()

    def append_report(
        self, source: Path, *, rank: int | None, seq_offset: int, name: Path | None = None
    ) -> int:
        """Copy every event, graph, kernel and frame row of the report *source* (verified by
        the caller) in one transaction, under the budget of a stranger's file: event numbers
        moved on by *seq_offset*, kernel ids new, and with *rank* every row of that rank
        (None: rows keep theirs). Returns *seq_offset* plus the source's last event number.
        A failure raises one line naming *name* (else *source*); this report is left as it
        was before the call."""
        shown = name or source
        with self._lock:
            self._commit_locked(begin=False)
            if self._closed:
                raise ReportError(f"cannot write report {self.path}: {self.failure}")
            db = self._db
            budget = untrusted.guard(db, shown)
            # immutable, as every read of a report: a journal beside an input is never played back
            db.execute("ATTACH DATABASE ? AS src", (source.resolve().as_uri() + "?mode=ro&immutable=1",))
            try:
                db.execute("BEGIN")
                top = _copy_rows(db, rank, seq_offset)
                db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if budget.reason or budget.interrupted:
                    raise budget.error(exc) from None
                raise ReportError(f"{shown}: cannot merge: {exc}") from None
            finally:
                db.set_progress_handler(None, 0)
                db.execute("DETACH DATABASE src")
                db.execute("BEGIN")
        return top


def _copy_rows(db: sqlite3.Connection, rank: int | None, offset: int) -> int:
    """Rows of the attached report ``src`` into this one (see :meth:`OneShotWriter.append_report`)."""
    keep = rank is None
    rank_sql = "rank" if keep else "?"
    rank_arg: tuple[Any, ...] = () if keep else (rank,)
    db.execute(
        f"INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload)"
        f" SELECT seq + ?, ts, {rank_sql}, compile_id, name, metadata, payload FROM src.events",
        (offset, *rank_arg),
    )
    db.execute(
        f"INSERT OR REPLACE INTO graphs(rank, compile_id, kind, seq, start, stop)"
        f" SELECT {rank_sql}, compile_id, kind, seq + ?, start, stop FROM src.graphs",
        (*rank_arg, offset),
    )
    db.execute(
        f"INSERT INTO kernels(rank, compile_id, name, language, kind, graph_kind, seq, start, stop,"
        f" data) SELECT {rank_sql}, compile_id, name, language, kind, graph_kind, seq + ?, start,"
        f" stop, data FROM src.kernels ORDER BY id",
        (*rank_arg, offset),
    )
    for stored, cid, ordinal, data in db.execute("SELECT rank, compile_id, ordinal, data FROM src.frames"):
        if not keep:
            frame = json.loads(data)
            frame["rank"] = rank
            data, stored = json.dumps(frame), rank
        db.execute(
            "INSERT OR REPLACE INTO frames(rank, compile_id, ordinal, data) VALUES (?, ?, ?, ?)",
            (NO_RANK if stored is None else stored, cid, ordinal, data),
        )
    top = db.execute("SELECT max(seq) FROM src.events").fetchone()[0]
    return offset + int(top or 0)
