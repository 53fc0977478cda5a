"""Inductor's runtime estimates, collective schedules and collectives parity, per rank.

What tlparse's multi-rank landing page shows for these (its "Graph Runtime Analysis",
"collective operation sequence groups" and per-rank ``collectives_parity.json``), from the
typed :class:`~inspectc.model.runrecords.GraphCollectives` the importer keeps per graph:

- :func:`graph_runtimes`: per graph (compile id), each rank's estimated runtime (the sum of
  its ops' ``estimated_runtime_ns``), the fastest and slowest rank and the delta. tlparse
  compares graphs by position and gives up when the ranks compiled different numbers of
  graphs; here graphs are matched by compile id and a rank without estimates for one is
  named ("not recorded").
- :func:`schedule_groups`: ranks grouped by their whole collective sequence (every graph's
  schedule, in compile-id order): more than one group is a desync risk.
- :func:`parity`: per rank and graph, the collectives Inductor scheduled against the
  ``_c10d_functional`` calls its output code makes (per collective kind, tlparse's
  normalisation), and the collectives whose ``wait_tensor`` the code never calls.

:func:`render_runtime_sections` gives the summary's lines (every number labelled with its
rank). No torch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from inspectc.model import CompileId, Frame
from inspectc.model.runrecords import GraphCollectives, RunRecords

KINDS = ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all")
MAX_ROWS = 12  # graphs shown in the summary (the JSON export has them all)
MAX_RANKS = 16  # ranks listed per graph in the summary


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphRuntime:
    """One graph's estimated runtime on every rank that logged estimates for it."""

    compile_id: CompileId  # the same graph on every rank (no rank)
    function: str | None
    ms: dict[int | None, float]  # rank -> estimated ms
    ops: dict[int | None, int]  # rank -> scheduled ops
    missing: tuple[int | None, ...] = ()  # ranks that compiled the graph without estimates

    @property
    def fastest(self) -> int | None:
        return min(self.ms, key=lambda r: (round(self.ms[r], 6), _rank_order(r)))

    @property
    def slowest(self) -> int | None:
        return max(self.ms, key=lambda r: (round(self.ms[r], 6), -_rank_order(r)))

    @property
    def delta_ms(self) -> float:
        return self.ms[self.slowest] - self.ms[self.fastest]


@dataclass(frozen=True, kw_only=True, slots=True)
class ParityIssue:
    """A graph whose code calls other collectives than its schedule lists, or skips waits."""

    rank: int | None
    compile_id: CompileId
    offset: int  # sum over kinds of |scheduled - called|
    missing_waits: int  # collectives called minus wait_tensor calls
    scheduled: dict[str, int]
    called: dict[str, int]


def collective_kind(op: str) -> str | None:
    """``torch.ops._c10d_functional.all_reduce_.default`` -> ``all_reduce`` (tlparse's rule)."""
    name = op.rstrip("_")
    for kind in KINDS:
        if kind in name:
            return kind
    return "reduce" if "reduce" in name else None


def graph_runtimes(records: RunRecords, frames: Sequence[Frame] = ()) -> list[GraphRuntime]:
    """Per compile id with estimates on any rank, in compile-id order."""
    names = {f.compile_id.without_rank(): f.function for f in frames}
    compiled: dict[CompileId, set[int | None]] = {}
    for f in frames:
        compiled.setdefault(f.compile_id.without_rank(), set()).add(f.rank)
    per_id: dict[CompileId, dict[int | None, GraphCollectives]] = {}
    for g in records.collectives:
        if g.estimates:
            per_id.setdefault(g.compile_id.without_rank(), {})[g.rank] = g
    out = []
    for cid in sorted(per_id, key=_id_order):
        graphs = per_id[cid]
        ms = {r: sum(op.runtime_ns or 0.0 for op in g.estimates or ()) / 1e6 for r, g in graphs.items()}
        missing = tuple(sorted((r for r in compiled.get(cid, ()) if r not in graphs), key=_rank_order))
        out.append(
            GraphRuntime(
                compile_id=cid,
                function=names.get(cid),
                ms=dict(sorted(ms.items(), key=lambda kv: _rank_order(kv[0]))),
                ops={r: len(g.estimates or ()) for r, g in graphs.items()},
                missing=missing,
            )
        )
    return out


def schedule_groups(records: RunRecords) -> list[tuple[tuple[int | None, ...], tuple[str, ...]]]:
    """(ranks, their collective sequence) per distinct sequence, largest group first; [] when
    no rank logged a schedule."""
    by_rank: dict[int | None, list[tuple[CompileId, tuple[str, ...]]]] = {}
    for g in records.collectives:
        if g.schedule is not None:
            by_rank.setdefault(g.rank, []).append((g.compile_id, g.schedule))
    groups: dict[tuple[str, ...], list[int | None]] = {}
    for rank, graphs in by_rank.items():
        sequence = tuple(op for _, ops in sorted(graphs, key=lambda g: _id_order(g[0])) for op in ops)
        groups.setdefault(sequence, []).append(rank)
    out = [(tuple(sorted(ranks, key=_rank_order)), seq) for seq, ranks in groups.items()]
    return sorted(out, key=lambda g: (-len(g[0]), _rank_order(g[0][0])))


def parity(records: RunRecords) -> list[ParityIssue]:
    """Graphs whose scheduled and called collectives differ, or whose code misses waits."""
    out = []
    for g in records.collectives:
        if g.schedule is None or g.code_calls is None:
            continue
        scheduled = _kinds(g.schedule)
        called = _kinds(g.code_calls)
        waits = sum(1 for op in g.code_calls if op == "wait_tensor")
        offset = sum(abs(scheduled[k] - called[k]) for k in set(scheduled) | set(called))
        missing = max(sum(called.values()) - waits, 0)
        if offset or missing:
            out.append(
                ParityIssue(
                    rank=g.rank,
                    compile_id=g.compile_id,
                    offset=offset,
                    missing_waits=missing,
                    scheduled=dict(scheduled),
                    called=dict(called),
                )
            )
    return sorted(out, key=lambda p: (_rank_order(p.rank), _id_order(p.compile_id)))


def export_runtime(records: RunRecords, frames: Sequence[Frame]) -> dict[str, Any]:
    """The JSON export's ``runtime_estimates``: graphs, schedule groups, parity issues."""
    return {
        "graphs": [
            {
                "compile_id": str(g.compile_id),
                "function": g.function,
                "ms_by_rank": [{"rank": r, "ms": round(ms, 6), "ops": g.ops[r]} for r, ms in g.ms.items()],
                "not_recorded_ranks": list(g.missing),
                "fastest_rank": g.fastest,
                "slowest_rank": g.slowest,
                "delta_ms": round(g.delta_ms, 6),
            }
            for g in graph_runtimes(records, frames)
        ],
        "schedule_groups": [
            {"ranks": list(ranks), "ops": list(seq)} for ranks, seq in schedule_groups(records)
        ],
        "collectives_parity": [
            {
                "rank": p.rank,
                "compile_id": str(p.compile_id),
                "offset": p.offset,
                "missing_waits": p.missing_waits,
                "scheduled": p.scheduled,
                "called": p.called,
            }
            for p in parity(records)
        ],
    }


def _kinds(ops: Iterable[str]) -> Counter[str]:
    return Counter(k for k in (collective_kind(op) for op in ops) if k is not None)


def _ops_text(seq: Sequence[str], shown: int = 6) -> str:
    short = [
        op.removeprefix("torch.ops.").removeprefix("_c10d_functional.").removesuffix(".default") for op in seq
    ]
    return ", ".join(short[:shown]) + (f", … (+{len(short) - shown})" if len(short) > shown else "")


def _rank(rank: int | None) -> str:
    return f"r{rank}" if rank is not None else "(no rank)"


def _ranks_text(ranks: Sequence[int | None]) -> str:
    named = [str(r) for r in ranks if r is not None]
    if not named:
        return "one process"
    return ("rank " if len(named) == 1 else "ranks ") + ", ".join(named)


def _rank_order(rank: int | None) -> int:
    return -1 if rank is None else rank


def _id_order(cid: CompileId) -> tuple[int, ...]:
    """``0/10`` after ``0/9``; compiled-autograd ids (``!0/1/0``) after Dynamo's; any rank."""
    return cid.without_rank().sort_key
