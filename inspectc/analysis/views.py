"""Derived views over a report's frames: deduplicated graph breaks, totals. No torch."""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass, field

from inspectc.analysis.breaks import user_site
from inspectc.analysis.text import one_line, printable
from inspectc.model import (
    KIND_COMPILED_AUTOGRAD,
    KIND_DYNAMO,
    KIND_EXPORT,
    KIND_RECOMPILE_LIMIT,
    STATUS_FAILED,
    CompileId,
    Frame,
    GraphBreak,
    StackFrame,
)

__all__ = [
    "LIMIT_HIT",
    "BreakGroup",
    "Totals",
    "break_groups",
    "one_line",
    "printable",
    "shown_status",
    "totals",
]

# A compile id refused at the recompile limit: it did not fail to compile (its calls ran
# eagerly), and the headline counts it apart from the failed frames (``Totals.limit_hits``).
LIMIT_HIT = "limit_hit"


def shown_status(frame: Frame) -> str:
    """The status every output shows for *frame*: its own, or ``limit_hit`` for a compile id
    refused at the recompile limit (recorded as failed, with Dynamo's "recompile limit
    exceeded" as the failure)."""
    return LIMIT_HIT if frame.kind == KIND_RECOMPILE_LIMIT else frame.status


@dataclass(slots=True)
class BreakGroup:
    """All graph breaks at one user location with one reason."""

    filename: str | None
    line: int | None
    reason: str
    gb_type: str | None
    gb_id: str | None
    example: GraphBreak
    compile_ids: list[CompileId] = field(default_factory=list)  # each with its rank
    skipped: list[CompileId] = field(default_factory=list)  # where the break made Dynamo skip the frame
    skip_example: GraphBreak | None = None  # one of those (what it did: ``breaks.consequence``)
    # a break inside a library (torch/optim/optimizer.py): the user's own line under it
    site: StackFrame | None = None

    @property
    def count(self) -> int:
        return len(self.compile_ids)

    @property
    def location(self) -> str:
        if self.filename is None:
            return "?"
        return f"{self.filename}:{self.line}" if self.line is not None else self.filename

    @property
    def user_location(self) -> str:
        """Where the user would look: the user's line under a break inside a library, else
        the break's own place (summary, TUI and suggest all name this one)."""
        site = self.site
        if site is None or not site.filename:
            return self.location
        return f"{site.filename}:{site.line}" if site.line is not None else site.filename


def break_groups(frames: Iterable[Frame]) -> list[BreakGroup]:
    """Graph breaks deduplicated by (file, line, reason), most frequent first."""
    groups: dict[tuple[str | None, int | None, str], BreakGroup] = {}
    for frame in frames:
        for gb in frame.graph_breaks:
            key = (gb.filename, gb.line, gb.reason)
            group = groups.get(key)
            if group is None:
                group = groups[key] = BreakGroup(
                    filename=gb.filename,
                    line=gb.line,
                    reason=gb.reason,
                    gb_type=gb.gb_type,
                    gb_id=gb.gb_id,
                    example=gb,
                    site=user_site(gb),
                )
            group.compile_ids.append(frame.compile_id)
            if gb.frame_skipped or gb.then:
                group.skipped.append(frame.compile_id)
                group.skip_example = group.skip_example or gb
    return sorted(groups.values(), key=lambda g: (-g.count, g.location, g.reason))


@dataclass(frozen=True, slots=True)
class Totals:
    """The headline's counts. ``frames`` are the compiles Dynamo started (its ``dynamo_start``
    records); the rows that are no such compile are counted apart: compiled autograd's own
    graphs, strict torch.export traces, compile ids refused at the recompile limit."""

    frames: int
    graph_breaks: int
    unique_breaks: int
    recompiles: int
    failed: int  # frames and export traces that failed (a limit hit is one of limit_hits)
    kernels: int
    compile_time_s: float
    autograd_graphs: int = 0
    export_traces: int = 0
    limit_hits: int = 0

    def beside(self) -> list[tuple[int, str]]:
        """(count, what) of the rows beside the frames, those there are."""
        said = (
            (self.autograd_graphs, "compiled-autograd graph"),
            (self.export_traces, "torch.export trace"),
            (self.limit_hits, "recompile limit hit"),
        )
        return [(n, what) for n, what in said if n]


def totals(frames: list[Frame]) -> Totals:
    kinds = collections.Counter(f.kind for f in frames)
    return Totals(
        frames=kinds[KIND_DYNAMO],
        graph_breaks=sum(len(f.graph_breaks) for f in frames),
        unique_breaks=len(break_groups(frames)),
        recompiles=sum(len(f.recompiles) for f in frames),
        failed=sum(1 for f in frames if f.status == STATUS_FAILED and f.kind != KIND_RECOMPILE_LIMIT),
        kernels=sum(f.kernel_count for f in frames),
        compile_time_s=sum(f.metrics.entire_frame_s or 0.0 for f in frames),
        autograd_graphs=kinds[KIND_COMPILED_AUTOGRAD],
        export_traces=kinds[KIND_EXPORT],
        limit_hits=kinds[KIND_RECOMPILE_LIMIT],
    )
