"""The TUI's view of a report: what stays in memory, what is read on demand. No Textual.

Frames and kernel *metadata* load once (in a worker thread); graphs, kernel source and
raw events are read when a pane asks for them, and never kept beyond the pane showing
them (the store caches a few decompressed payloads). One SQLite connection serves all
threads, so every read holds :attr:`ReportData._lock` (a cursor is never shared).

A report is read from a private, immutable snapshot the store verified at open
(``open_report(private=True)``): a view planted in the file, or any change to it after the
TUI opened it, is never read by a later lazy read. The first lazy read after the file
changed calls :attr:`ReportData.on_change` once with one line saying so.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from inspectc.analysis.costs import BreakCost, break_costs
from inspectc.analysis.ranks import RankDifference
from inspectc.analysis.resume import Branch, ambiguous_resumes, branch_of, bytecode
from inspectc.analysis.trie import TrieNode, break_trie
from inspectc.analysis.views import BreakGroup, Totals, break_groups, totals
from inspectc.model import CompileId, FailedGuard, Frame, FrameKey, Kernel, Run
from inspectc.model.account import Account
from inspectc.model.kernel_detail import CpuBuild, KernelDetail
from inspectc.render.rank_render import report_differences
from inspectc.render.sections import Page
from inspectc.render.sections.page import summary_page
from inspectc.render.sections.ranks import runtime_sections
from inspectc.render.terminal import render_sections
from inspectc.store.open import open_report
from inspectc.store.reader import EventRow, Report

T = TypeVar("T")
Progress = Callable[[str, float], None]  # (what is loading, fraction done)

TOP_KERNELS = 200
EVENT_LIMIT = 5000
SEARCH_LIMIT = 300


def frame_key(frame: Frame) -> FrameKey:
    return frame.compile_id


def kernel_key(kernel: Kernel) -> FrameKey:
    return kernel.compile_id


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result: what matched and where to go."""

    kind: str  # frame | break | kernel
    text: str  # the matched text, shown literally
    detail: str
    frame: FrameKey
    kernel_id: int | None = None
    break_reason: str | None = None


class ReportData:
    """A loaded report, safe to read from the UI thread and from workers."""

    def __init__(
        self,
        report: Report,
        run: Run,
        frames: list[Frame],
        kernels: list[Kernel],
        *,
        opened_as: Path | None = None,
        branches: dict[FrameKey, Branch] | None = None,
    ) -> None:
        self._report = report
        self.account: Account = report.account  # every trace record: used, or kept raw
        self._lock = threading.Lock()
        self.bench = report.bench  # isolated figures of `inspectc bench` (often none)
        self.accuracy = report.accuracy  # `inspectc accuracy`'s verdicts (None: not checked)
        self.path: Path = report.path  # the file read (a bundle's is a temporary copy)
        self.opened_as: Path = opened_as or report.path  # what the user named
        self.notices: list[str] = list(report.notices)  # a journal left unread, said once
        self.on_change: Callable[[str], object] | None = None  # told once when the file changes
        self._stamp = _stamp(self.opened_as)
        self._told = False
        self._index(run, frames, kernels, branches or {})

    def _index(
        self, run: Run, frames: list[Frame], kernels: list[Kernel], branches: dict[FrameKey, Branch]
    ) -> None:
        self.run = run
        self.frames = frames
        self.kernels = kernels
        self.branches = branches  # resume frames that share a name: where each continues
        self._trie: TrieNode | None = None
        self._frames_by_key = {frame_key(f): f for f in frames}
        self._kernels_by_frame: dict[FrameKey, list[Kernel]] = {}
        self._kernels_by_id: dict[int, Kernel] = {}
        for kernel in kernels:
            self._kernels_by_frame.setdefault(kernel_key(kernel), []).append(kernel)
            self._kernels_by_id[kernel.id] = kernel
        self.groups: list[BreakGroup] = break_groups(frames)
        self.costs: dict[tuple[str | None, int | None, str], BreakCost] = {}  # measured, by group
        self.totals: Totals = totals(frames)
        timed = [k for k in kernels if k.time is not None]
        timed.sort(key=lambda k: -(k.time.total_us if k.time else 0.0))
        self.top_kernels = timed[:TOP_KERNELS]
        self._recompiled_by: dict[CompileId, list[tuple[Frame, FailedGuard]]] = {}
        for frame in frames:
            for rec in frame.recompiles:  # one recompile: a failed guard per earlier entry
                for failed in rec.failed_guards:
                    if failed.earlier_compile_id:
                        self._recompiled_by.setdefault(failed.earlier_compile_id, []).append((frame, failed))

    def rank_differences(self) -> list[RankDifference]:
        """What differs between ranks (read on demand: it walks the run records)."""
        with self._reading():
            return report_differences(self._report)

    def measure_costs(self) -> None:
        """Each break group's measured cost (capture's gaps), for the breaks table's Cost column."""
        with self._lock:
            found = break_costs(self.frames, self._report.region_gaps())
        self.costs = {(c.group.filename, c.group.line, c.group.reason): c for c in found if c.measured}

    def summary_page(self) -> Page:
        """The report's summary: the one section model every output renders."""
        with self._reading():
            return summary_page(self._report, report_path=str(self.opened_as))

    def runtime_lines(self) -> list[str]:
        """Runtime estimates, collective schedules and parity per rank (the summary's lines)."""
        with self._reading():
            return render_sections(runtime_sections(self._report.run_records, self._report.frames))

    def update(self, fresh: ReportData) -> None:
        """Take over *fresh*'s report and contents (a followed run wrote more); UI thread only.

        Panes keep their ``ReportData``: their later reads go to the newer file handle."""
        with self._lock:
            old, self._report = self._report, fresh._report
            self._stamp, self._told = fresh._stamp, False
            self.notices = fresh.notices
            self.account = fresh.account
            self.path = fresh.path
            self.bench = fresh.bench
            self.accuracy = fresh.accuracy
            self._index(fresh.run, fresh.frames, fresh.kernels, fresh.branches)
        self.costs = fresh.costs
        old.close()

    @property
    def trie(self) -> TrieNode:
        """The run's graph breaks under their user stacks (built when first asked for)."""
        if self._trie is None:
            self._trie = break_trie(self.frames)
        return self._trie

    # -- in memory ---------------------------------------------------------------------
    def frame(self, key: FrameKey) -> Frame | None:
        return self._frames_by_key.get(key)

    def frame_kernels(self, frame: Frame) -> list[Kernel]:
        return self._kernels_by_frame.get(frame_key(frame), [])

    def kernel(self, kernel_id: int) -> Kernel | None:
        return self._kernels_by_id.get(kernel_id)

    def later_recompiles(self, frame: Frame) -> list[tuple[Frame, FailedGuard]]:
        """Frames recompiled because a guard of *frame* failed, with the reason."""
        return [
            (f, r)
            for f, r in self._recompiled_by.get(frame.compile_id.without_rank(), [])
            if f.rank == frame.rank
        ]

    # -- on demand (any thread) --------------------------------------------------------
    def _reading(self) -> threading.Lock:
        """The lock every lazy read holds; first says (once) if the file changed since open."""
        if not self._told and self.on_change is not None and _stamp(self.opened_as) != self._stamp:
            self._told = True
            self.on_change(
                f"{self.opened_as} changed on disk after it was opened: showing it as it was"
                " (open it again to read the change)"
            )
        return self._lock

    def graph(self, frame: Frame, kind: str) -> str | None:
        with self._reading():
            return self._report.graph(frame.compile_id, kind)

    def kernel_source(self, kernel: Kernel) -> str:
        with self._reading():
            return self._report.kernel_source(kernel)

    def kernel_detail(self, kernel: Kernel) -> KernelDetail | None:
        """A Triton kernel's compiled stages, metadata and launches (kernel detail events), or None."""
        if kernel.language != "triton":
            return None
        with self._reading():
            return self._report.kernel_detail(kernel)

    def launch_reads(self, kernels: list[Kernel]) -> dict[int, int]:
        """Kernel id -> input bytes of its recorded launch (% limit's DRAM model), where recorded."""
        from inspectc.analysis.roofline import launch_reads

        with self._reading():
            return launch_reads(self._report, kernels)

    def cpu_build(self) -> CpuBuild | None:
        """The vector ISA and compile command of the report's C++ kernels, or None."""
        with self._reading():
            return self._report.cpu_build()

    def events(self, frame: Frame, limit: int = EVENT_LIMIT) -> list[EventRow]:
        with self._reading():
            return list(self._report.events(frame.compile_id, limit=limit))

    def event_payload(self, seq: int) -> str | None:
        with self._reading():
            return self._report.event_payload(seq)

    def with_report(self, use: Callable[[Report], T]) -> T:
        """Call *use* with the open report, holding the lock (for exporters)."""
        with self._reading():
            return use(self._report)

    def close(self) -> None:
        with self._lock:
            self._report.close()

    # -- search ------------------------------------------------------------------------
    def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
        """Case-insensitive substring search over frames, break reasons and kernel names."""
        needle = query.strip().lower()
        if not needle:
            return []
        hits: list[SearchHit] = []
        for frame in self.frames:
            if any(
                needle in f.lower()
                for f in (str(frame.compile_id), frame.function or "", frame.filename or "")
            ):
                hits.append(SearchHit("frame", frame.function or "?", frame.location, frame_key(frame)))
                if len(hits) >= limit:
                    return hits
        for group in self.groups:
            texts = (group.reason, group.gb_type or "", group.gb_id or "", group.location)
            if any(needle in f.lower() for f in texts):
                first = self._first_frame(group.compile_ids)
                if first is not None:
                    detail = f"{group.count}× {group.location}"
                    hits.append(SearchHit("break", group.reason, detail, first, break_reason=group.reason))
                    if len(hits) >= limit:
                        return hits
        for kernel in self.kernels:
            if needle in kernel.name.lower():
                detail = f"frame {kernel.compile_id} · {kernel.language}"
                hits.append(SearchHit("kernel", kernel.name, detail, kernel_key(kernel), kernel.id))
                if len(hits) >= limit:
                    return hits
        return hits

    def _first_frame(self, compile_ids: list[CompileId]) -> FrameKey | None:
        for frame in self.frames:
            if frame.compile_id in compile_ids:
                return frame_key(frame)
        return None


def load_report(
    path: str | Path, progress: Progress | None = None, on_run: Callable[[Run], None] | None = None
) -> ReportData:
    """Open *path* (a report, a share bundle, or a directory of per-rank reports, merged)
    and read what the overview needs; raises ``ReportError``."""
    tell = progress or (lambda _what, _done: None)
    tell("opening report", 0.0)
    report = open_report(path, private=True)  # a snapshot verified now: later reads read it only
    run = report.run
    if on_run is not None:
        on_run(run)
    tell("reading frames", 0.1)
    frames = report.frames
    tell(f"reading kernels ({len(frames):,} frames read)", 0.6)
    kernels = report.kernels
    tell("indexing", 0.9)
    branches = resume_branches(report, frames)
    data = ReportData(report, run, frames, kernels, opened_as=Path(path), branches=branches)
    data.measure_costs()
    tell("ready", 1.0)
    return data


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What says a file changed: its identity, size and mtime (None: gone)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def resume_branches(report: Report, frames: list[Frame]) -> dict[FrameKey, Branch]:
    """Where each resume frame that shares its name with another continues (the two sides
    of one break's branch): read from its original bytecode and Dynamo graph."""
    found: dict[FrameKey, Branch] = {}
    for frame in ambiguous_resumes(frames):
        original = bytecode(report, frame).original
        branch = branch_of(frame, original, report.graph(frame.compile_id, "dynamo"))
        if branch is not None:
            found[frame_key(frame)] = branch
    return found
