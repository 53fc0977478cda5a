"""Several processes: DDP's graph splits, what differs between ranks (the cause of many
hangs), Inductor's runtime estimates, collective schedules and their parity, per rank."""

from __future__ import annotations

from collections.abc import Sequence

from inspectc.analysis.ddp import DDP_WRAPPER_FILE, DdpSplit, ddp_splits, in_ddp_wrapper
from inspectc.analysis.rank_runtime import graph_runtimes, parity, schedule_groups
from inspectc.analysis.ranks import MAX_SHOWN, Rank, RankDifference, _first_line, ranks_of
from inspectc.model import Frame
from inspectc.model.runrecords import RunRecords
from inspectc.render.rank_render import describe, report_differences
from inspectc.render.sections import WARNING, Item, Line, Section, line, plural, ranges
from inspectc.store.reader import Report

MAX_ROWS = 12
MAX_RANKS = 8


def rank_sections(report: Report) -> list[Section]:
    """DDP splits first, then the differences between ranks (or that there are none)."""
    frames = report.frames
    splits = ddp_splits(report)
    out = [s for s in (ddp(frames, splits),) if s is not None]
    ranks = ranks_of(frames)
    if len(ranks) >= 2:
        out.append(differences(report_differences(report, splits), ranks))
    return out


def ddp(frames: Sequence[Frame], splits: Sequence[DdpSplit]) -> Section | None:
    wrapper = [f for f in frames if in_ddp_wrapper(f)]
    if not splits and not wrapper:
        return None
    items = []
    if splits:
        items.append(
            Item(
                line(
                    "DDPOptimizer split these graphs at gradient-bucket boundaries (DDP splits, not graph breaks):"
                )
            )
        )
    by_frame = {f.compile_id: f for f in frames}
    for s in splits[:MAX_SHOWN]:
        f = by_frame.get(s.compile_id)
        rank = f"r{s.rank} " if s.rank is not None else ""
        names = ", ".join(s.submodules[:6]) + (", …" if len(s.submodules) > 6 else "")
        items.append(
            Item(
                line(
                    f"{rank}{s.compile_id:<6} {(f.function if f else None) or '?'}(): {len(s.submodules)} submodules ({names})"
                ),
                indent=4,
            )
        )
    if len(splits) > MAX_SHOWN:
        items.append(Item(line(f"… {len(splits) - MAX_SHOWN} more split frames")))
    if wrapper:
        count = sum(len(f.graph_breaks) for f in wrapper)
        ids = ", ".join(
            str(c) for c in sorted({f.compile_id.without_rank() for f in wrapper}, key=lambda c: c.sort_key)
        )
        items.append(
            Item(
                line(
                    f"{plural(count, 'graph break')} inside DDP's own wrapper ({DDP_WRAPPER_FILE}; frames {ids}):"
                    " torch's code around your model, expected when compiling a DDP module"
                )
            )
        )
    return Section(
        key="ddp", title="DDP (DistributedDataParallel)", items=tuple(items), counts={"splits": len(splits)}
    )


def differences(diffs: Sequence[RankDifference], ranks: Sequence[Rank]) -> Section:
    numbered = ranges(r for r in ranks if r is not None)
    names = ", ".join(x for x in (numbered, "none" if None in ranks else "") if x)
    if not diffs:
        return Section(
            key="rank_differences",
            title=f"Ranks ({names}): every rank compiled the same frames, breaks, kernels, caches and collectives",
            counts={"differences": 0, "ranks": len(ranks)},
        )
    shown = MAX_SHOWN * 2
    items = tuple(
        Item(
            line(f"{d.kind:<19} {_first_line(d.what, 110)}"),
            (line(describe(d)),),
            severity=WARNING,
            note_indent=22,
        )
        for d in diffs[:shown]
    )
    more = len(diffs) - shown
    return Section(
        key="rank_differences",
        title=f"Rank differences ({len(diffs)}; ranks {names}): ranks that compile differently can hang in collectives",
        severity=WARNING,
        items=items,
        notes=(line(f"… {more} more (inspectc export --json: rank_differences)"),) if more > 0 else (),
        counts={"differences": len(diffs), "ranks": len(ranks)},
    )


def _rank(rank: int | None) -> str:
    return f"r{rank}" if rank is not None else "(no rank)"


def _ranks_text(ranks: Sequence[int | None]) -> str:
    named = [str(r) for r in ranks if r is not None]
    if not named:
        return "one process"
    return ("rank " if len(named) == 1 else "ranks ") + ", ".join(named)


def _ops_text(seq: Sequence[str], shown: int = 6) -> str:
    short = [
        op.removeprefix("torch.ops.").removeprefix("_c10d_functional.").removesuffix(".default") for op in seq
    ]
    return ", ".join(short[:shown]) + (f", … (+{len(short) - shown})" if len(short) > shown else "")


def runtime_sections(records: RunRecords, frames: Sequence[Frame]) -> list[Section]:
    """Runtime estimates, schedule groups and parity ([] when none)."""
    out: list[Section] = []
    runtimes = graph_runtimes(records, frames)
    if runtimes:
        ranks = sorted(
            {r for g in runtimes for r in g.ms} | {r for g in runtimes for r in g.missing},
            key=lambda r: -1 if r is None else r,
        )
        items = []
        for g in runtimes[:MAX_ROWS]:
            head = f"{g.compile_id:<7} {g.function or '?'}"
            if len(g.ms) > 1 and not g.delta_ms:
                head += f": the same on {_ranks_text(list(g.ms))}"
            elif len(g.ms) > 1:
                head += (
                    f": delta {g.delta_ms:.3f} ms (fastest {_rank(g.fastest)} {g.ms[g.fastest]:.3f} ms,"
                    f" slowest {_rank(g.slowest)} {g.ms[g.slowest]:.3f} ms)"
                )
            per_rank = [f"{_rank(r)} {ms:.3f} ms ({g.ops[r]} ops)" for r, ms in g.ms.items()]
            per_rank += [f"{_rank(r)} not recorded" for r in g.missing]
            more = f"; … {len(per_rank) - MAX_RANKS} more ranks (JSON)" if len(per_rank) > MAX_RANKS else ""
            items.append(Item(line(head), (line("; ".join(per_rank[:MAX_RANKS]) + more),), note_indent=10))
        notes: tuple[Line, ...] = ()
        if len(runtimes) > MAX_ROWS:
            notes = (
                line(f"… {len(runtimes) - MAX_ROWS} more graphs (inspectc export --json: runtime_estimates)"),
            )
        out.append(
            Section(
                key="runtime_estimates",
                title=f"Runtime estimates (Inductor's, per graph; {_ranks_text(ranks)})",
                items=tuple(items),
                notes=notes,
                counts={"graphs": len(runtimes)},
            )
        )
    groups = schedule_groups(records)
    if groups:
        if len(groups) == 1:
            items = [Item(line(f"the same on {_ranks_text(groups[0][0])}: {len(groups[0][1])} ops"))]
        else:
            items = [
                Item(
                    line(f"{len(groups)} different sequences: ranks that disagree can hang in a collective"),
                    severity=WARNING,
                )
            ]
            items += [
                Item(line(f"{_ranks_text(group)}: {len(seq)} ops: {_ops_text(seq)}")) for group, seq in groups
            ]
        out.append(
            Section(
                key="collective_schedules",
                title="Collective schedules (every graph's, in compile-id order)",
                severity=WARNING if len(groups) > 1 else "",
                items=tuple(items),
                counts={"groups": len(groups)},
            )
        )
    issues = parity(records)
    if issues:
        items = []
        for p in issues[:MAX_ROWS]:
            what = []
            if p.offset:
                kinds = sorted(set(p.scheduled) | set(p.called))
                counts = ", ".join(f"{k} {p.scheduled.get(k, 0)} vs {p.called.get(k, 0)}" for k in kinds)
                what.append(f"offset {p.offset} ({counts})")
            if p.missing_waits:
                what.append(f"{p.missing_waits} wait_tensor missing")
            items.append(Item(line(f"{_rank(p.rank)} {p.compile_id}: {'; '.join(what)}"), severity=WARNING))
        hidden = len(issues) - MAX_ROWS
        out.append(
            Section(
                key="collectives_parity",
                title="Collectives parity (scheduled vs called in the output code, per rank)",
                severity=WARNING,
                items=tuple(items),
                notes=(line(f"… {hidden} more"),) if hidden > 0 else (),
                counts={"issues": len(issues)},
            )
        )
    elif any(g.schedule is not None and g.code_calls is not None for g in records.collectives):
        out.append(
            Section(
                key="collectives_parity",
                title="Collectives parity: every graph's code calls what its schedule lists, each with its wait",
                counts={"issues": 0},
            )
        )
    return out
