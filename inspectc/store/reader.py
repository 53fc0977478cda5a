"""Reading a report: frames at once, graphs, sources and events lazily; never writes the file."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import weakref
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import CompileId, Frame, Kernel, Run
from inspectc.model import accuracy as accuracy_table
from inspectc.model import costs as region_costs
from inspectc.model.account import ACCOUNT_EVENT, Account, read_account
from inspectc.model.costs import EAGER_EVENT, GAPS_EVENT, EagerFrame, RegionGaps
from inspectc.model.kernel_detail import CPU_BUILD_EVENT, DETAIL_EVENT, CpuBuild, KernelDetail
from inspectc.model.limits import (
    MAX_FRAMES,
    MAX_KERNELS,
    PER_PROCESS_ROWS,
    most,
)
from inspectc.model.runrecords import RECORDS_EVENT, RunRecords
from inspectc.model.runrecords import join as join_records
from inspectc.store import bench as bench_table
from inspectc.store import bounds, migrations, snapshot, untrusted
from inspectc.store.schema import FORMAT, NO_RANK, SCHEMA_VERSION, SQLITE_MAGIC, decompress
from inspectc.store.schema import db_rank as _rank
from inspectc.store.validate import load_checked as _load
from inspectc.store.validate import parse_checked
from inspectc.store.validate import short_error as _short


@dataclass(frozen=True, slots=True)
class EventRow:
    seq: int
    ts: float | None
    rank: int | None
    compile_id_text: str | None  # the events table's column, as stored
    name: str
    metadata: dict[str, Any]
    payload_size: int | None

    @property
    def compile_id(self) -> CompileId | None:
        """The event's compile, typed (parsed when asked: a long scan of events never pays it)."""
        return CompileId.parse(self.compile_id_text, self.rank) if self.compile_id_text else None


def check_path(path: Path) -> None:
    if not path.exists():
        raise ReportError(f"no such report: {path}")
    if path.is_dir():
        raise ReportError(f"{path} is a directory, not a report file")
    if not path.is_file():  # a FIFO or a device: reading it could block or never end
        raise ReportError(f"{path} is not a regular file, not a report")


def check_report_file(path: Path) -> None:
    """Raise :class:`ReportError` with one clear line unless *path* looks like a report."""
    check_path(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(20)
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        raise ReportError(f"{path} is empty (0 bytes): not an inspectc report")
    if head[:16] != SQLITE_MAGIC:
        raise ReportError(f"{path} is not an inspectc report (unknown file format)")


class Report:
    """A report opened for reading. Frames load at once; graphs, sources and events lazily."""

    def __init__(self, path: str | os.PathLike[str], *, private: bool = False) -> None:
        """Open *path* read-only and ``immutable`` (see :mod:`inspectc.store.snapshot`): no
        journal or WAL beside it is ever played back, created or removed. With *private* (the
        TUI), or while a live command writes it, a private snapshot is read instead."""
        self.path = Path(path)
        check_report_file(self.path)
        self.notices: list[str] = [line] if (line := snapshot.notice(self.path)) else []
        self.file = self.path  # the file SQLite reads: the report, or a private snapshot of it
        self._private: Callable[[], Any] | None = None
        if private or snapshot.being_written(self.path):
            folder = snapshot.private_folder()
            self._private = weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
            try:
                self.file = snapshot.snapshot(self.path, folder)
            except BaseException:
                self._private()
                raise
        try:
            self._db, self._budget = untrusted.open_verified(self.file, shown=self.path)
            rows = untrusted.run(self._db, self._budget, "SELECT key, value FROM meta")
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # see _query
            self.close()
            if "no such table" in str(exc):
                raise ReportError(f"{self.path} is an SQLite database but not an inspectc report") from None
            raise ReportError(f"{self.path} is not a readable inspectc report ({exc})") from None
        except BaseException:
            self.close()
            raise
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
        if version < 1:
            raise ReportError(f"{self.path}: report schema {version} is not a schema inspectc ever wrote")
        self.schema_version = version
        self._run = self._load_run()  # checked at open: a corrupt run entry fails here, once
        self._frames: list[Frame] | None = None
        self._kernels: list[Kernel] | None = None
        self._run_records: RunRecords | None = None
        self._bench: bench_table.BenchResults | None = None
        self._details: tuple[list[int], list[KernelDetail]] | None = None
        self._payload = bounds.PayloadCache(self._load_payload)

    # -- metadata ----------------------------------------------------------------------
    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        # UnicodeDecodeError: sqlite3 decodes SQLite's own error messages strictly, and a
        # corrupt schema puts raw bytes in them (untrusted.run turns it into one line).
        return untrusted.run(self._db, self._budget, sql, args)

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of *sql*, streamed under the read budget (a long scan never holds them all)."""
        return untrusted.stream(self._db, self._budget, sql, args)

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
            frames = []
            for (data,) in bounds.capped(
                self.rows,
                self.path,
                "frames",
                MAX_FRAMES,
                "SELECT data FROM frames ORDER BY ordinal, rank, compile_id",
            ):
                try:
                    plain = json.loads(data)
                except (ValueError, TypeError, RecursionError) as exc:
                    raise ReportError(f"{self.path}: corrupt frame entry ({_short(exc)})") from None
                if isinstance(plain, dict):
                    plain = migrations.upgrade_frame(plain, self.schema_version)
                frames.append(_load(Frame, plain, f"{self.path}: corrupt frame entry"))
            self._frames = frames
        return self._frames

    def frame(self, cid: CompileId, rank: int | None = None) -> Frame | None:
        """Frame *cid* of *rank* (default: ``cid.rank``; None: the first of any rank)."""
        rank = cid.rank if rank is None else rank
        for frame in self.frames:
            if frame.compile_id.same_compile(cid) and (rank is None or frame.rank == rank):
                return frame
        return None

    @property
    def kernels(self) -> list[Kernel]:
        if self._kernels is None:
            sql = (
                "SELECT data, id, rank, compile_id, name, language, kind, graph_kind FROM kernels ORDER BY id"
            )
            self._kernels = [
                _kernel_from_row(row, self.path)
                for row in bounds.capped(self.rows, self.path, "kernels", MAX_KERNELS, sql)
            ]
        return self._kernels

    def frame_kernels(self, cid: CompileId) -> list[Kernel]:
        """The kernels of compile *cid* (of ``cid.rank``; None: of any rank)."""
        rank = cid.rank
        return [
            k
            for k in self.kernels
            if k.compile_id.same_compile(cid) and (rank is None or k.rank is None or k.rank == rank)
        ]

    @property
    def run_records(self) -> RunRecords:
        """Exported programs, AOT compiles, links, artifacts, collectives: every process's."""
        if self._run_records is None:
            rows = self._query(
                "SELECT seq, rank, payload FROM events WHERE name = ? ORDER BY seq LIMIT ?",
                (RECORDS_EVENT, most(PER_PROCESS_ROWS)),
            )
            parts = []
            for seq, rank, blob in rows:
                try:
                    plain = json.loads(decompress(blob) or "{}")
                except (zlib.error, ValueError, RecursionError) as exc:
                    raise ReportError(
                        f"{self.path}: event {seq}: corrupt {RECORDS_EVENT} ({_short(exc)})"
                    ) from None
                what = f"{self.path}: event {seq}: corrupt {RECORDS_EVENT}"
                parts.append((None if rank == NO_RANK else rank, _load(RunRecords, plain, what)))
            self._run_records = join_records(parts)
        return self._run_records

    def kernel_details(self) -> list[KernelDetail]:
        """Every Triton kernel's stages, metadata and launches capture recorded (schema 3, additive events).

        Parsed once per set of events (a followed report that grew is read again)."""
        seqs = [
            seq
            for (seq,) in self._query(
                "SELECT seq FROM events WHERE name = ? ORDER BY seq LIMIT ?",
                (DETAIL_EVENT, most(MAX_KERNELS)),
            )
        ]
        cached = self._details
        if cached is not None and cached[0] == seqs:
            return cached[1]
        out = []
        for seq in seqs:
            detail = parse_checked(KernelDetail, self._payload(seq))  # one that does not read: none
            if detail is not None:
                out.append(detail)
        self._details = (seqs, out)
        return out

    def kernel_detail(self, kernel: Kernel) -> KernelDetail | None:
        """The detail recorded for *kernel* (same name, same Python source), or None."""
        from inspectc.model.kernel_detail import matches

        found = [d for d in self.kernel_details() if d.name == kernel.name]
        if not found:
            return None
        source = self.kernel_source(kernel)
        same = next((d for d in found if matches(d, kernel, source)), None)
        if same is None and len({d.python_source for d in found}) == 1:
            return found[0]  # one kernel of that name: its source was written differently
        return same

    def region_gaps(self) -> list[RegionGaps]:
        """What capture measured between compiled regions, per process (none: not measured)."""
        out = []
        for seq, rank in self._query(
            "SELECT seq, rank FROM events WHERE name = ? ORDER BY seq LIMIT 4096", (GAPS_EVENT,)
        ):
            try:
                data = json.loads(self._payload(int(seq)) or "null")
            except (ValueError, RecursionError):
                continue
            found = region_costs.from_record(data, None if rank == NO_RANK else _index(rank))
            if found is not None:
                out.append(found)
        return out

    def eager_calls(self) -> list[EagerFrame]:
        """Frames refused at the recompile limit and the calls that then ran eagerly (capture)."""
        out: list[EagerFrame] = []
        for seq, rank in self._query(
            "SELECT seq, rank FROM events WHERE name = ? ORDER BY seq LIMIT 4096", (EAGER_EVENT,)
        ):
            try:
                data = json.loads(self._payload(int(seq)) or "null")
            except (ValueError, RecursionError):
                continue
            out += region_costs.eager_from_record(data, None if rank == NO_RANK else _index(rank))
        return out

    def cpu_build(self) -> CpuBuild | None:
        """How C++ kernels were built (vector ISA, command), where capture recorded it."""
        rows = self._query("SELECT seq FROM events WHERE name = ? ORDER BY seq LIMIT 1", (CPU_BUILD_EVENT,))
        return parse_checked(CpuBuild, self._payload(rows[0][0])) if rows else None

    @property
    def bench(self) -> bench_table.BenchResults:
        """Isolated figures of ``inspectc bench`` (empty when it never ran on this report)."""
        if self._bench is None:
            has = bool(self._query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bench'"))
            self._bench = bench_table.load(self._query, self.meta, has)
        return self._bench

    @property
    def accuracy(self) -> accuracy_table.AccuracyRun | None:
        """``inspectc accuracy``'s results (None when it did not write this report)."""
        return accuracy_table.load(
            self.meta, lambda data, what: _load(accuracy_table.AccuracyRun, data, what)
        )

    @property
    def account(self) -> Account:
        """Every structured-trace record the report was built from: used, or kept raw."""
        rows = self._query(
            "SELECT payload FROM events WHERE name = ? ORDER BY seq LIMIT ?",
            (ACCOUNT_EVENT, most(PER_PROCESS_ROWS)),
        )
        bodies = []
        for (blob,) in rows:
            try:
                bodies.append(json.loads(decompress(blob) or "{}"))
            except (zlib.error, ValueError, RecursionError):
                bodies.append(None)  # an unreadable part: skipped, the rest still sums
        return read_account(bodies)

    def kernel_source(self, kernel: Kernel) -> str:
        rows = self._query("SELECT seq, start, stop FROM kernels WHERE id = ?", (kernel.id,))
        if not rows:
            return ""
        seq, start, stop = rows[0]
        text = self._payload(seq) or ""
        return text[_index(start) : _index(stop)]

    def graph(self, key: CompileId | str, kind: str, rank: int | None = None) -> str | None:
        """Graph *kind* of a compile (its CompileId, rank ``key.rank``) or of a run record
        (an exported program's or AOT module's key text, with *rank*)."""
        if isinstance(key, CompileId):
            rank = key.rank
            key = str(key)  # the graphs table's column text
        rows = self._query(
            "SELECT seq, start, stop FROM graphs WHERE rank = ? AND compile_id = ? AND kind = ?",
            (_rank(rank), key, kind),
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
    def events(self, cid: CompileId | None = None, *, limit: int = 100_000) -> Iterator[EventRow]:
        """The raw events, in order: all of them, or those of compile *cid* (of ``cid.rank``)."""
        sql = "SELECT seq, ts, rank, compile_id, name, metadata, length(payload) FROM events"
        args: tuple[Any, ...] = ()
        if cid is not None:
            sql += " WHERE compile_id = ? AND rank = ?"
            args = (str(cid), _rank(cid.rank))  # the events table's column text
        sql += " ORDER BY seq LIMIT ?"
        for seq, ts, rk, text, name, meta, size in self._query(sql, args + (limit,)):
            try:
                metadata = json.loads(meta)
            except (ValueError, TypeError, RecursionError):
                metadata = None
            if not isinstance(metadata, dict):
                metadata = {"unparsed": str(meta)}
            yield EventRow(seq, ts, None if rk == NO_RANK else rk, text, name, metadata, size)

    def event_payload(self, seq: int) -> str | None:
        return self._payload(seq)

    def event_count(self) -> int:
        """Structured-trace events (a process's ``inspectc_records`` and ``inspectc_account``
        events are not ones)."""
        sql = "SELECT count(*) FROM events WHERE name NOT IN (?, ?, ?, ?, ?, ?)"
        own = (RECORDS_EVENT, ACCOUNT_EVENT, DETAIL_EVENT, CPU_BUILD_EVENT, GAPS_EVENT, EAGER_EVENT)
        return int(self._query(sql, own)[0][0])

    def close(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            db.close()
        if self._private is not None:
            self._private()

    def __enter__(self) -> Report:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kernel_from_row(row: tuple[Any, ...], path: Path) -> Kernel:
    data, kid, rank, cid, name, language, kind, graph_kind = row
    try:
        extra = json.loads(data)
    except (ValueError, TypeError, RecursionError):
        extra = {}
    if not isinstance(extra, dict):
        extra = {}
    time_data = extra.get("time")
    meta = dict(extra.get("meta") or {}) if isinstance(extra.get("meta"), dict) else {}
    origins = extra.get("origins")
    fused = extra.get("fused_nodes")
    plain = {
        "id": kid,
        "compile_id": cid,
        "rank": None if rank == NO_RANK else rank,
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


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) else None
