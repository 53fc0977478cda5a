"""Per-rank differences of a distributed run, and DDPOptimizer's graph splits. No torch.

In a data-parallel job every rank should compile the same frames into the same graphs and
kernels; when one rank graph-breaks, recompiles or fuses differently, its collectives no
longer line up with the others' and the job hangs. :func:`rank_differences` lists what is
not the same on every rank: frames (and recompiles) that only some ranks compiled, graph
breaks, recompile reasons, kernels, statuses and DDP splits.

DDP + ``torch.compile``: Dynamo's DDPOptimizer splits a frame's graph at DDP's gradient
bucket boundaries and compiles each piece as a submodule. torch logs that as
``optimize_ddp_split_graph`` / ``optimize_ddp_split_child`` events (and counts the pieces
in ``compilation_metrics.num_graph_breaks``); :func:`ddp_splits` finds them so readers show
them as DDP splits, not as graph breaks. Graph breaks inside DDP's own Python wrapper
(``torch/nn/parallel/distributed.py``) are real breaks of torch's code, labelled as such.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspectc.readers.analysis import printable as _clean
from inspectc.readers.paths import comparable_path
from inspectc.report.model import Frame, Kernel
from inspectc.report.reader import Report

DDP_SPLIT_GRAPH = "optimize_ddp_split_graph"
DDP_SPLIT_CHILD = "optimize_ddp_split_child"
DDP_WRAPPER_FILE = "torch/nn/parallel/distributed.py"
MAX_SHOWN = 12

Rank = int | None
# A frame's identity across ranks: code location plus which compile of it (0 first, 1+ recompiles).
FrameKey = tuple[str | None, int | None, str | None, str]


@dataclass(frozen=True, slots=True)
class RankDifference:
    """One thing that is not the same on every rank."""

    kind: str  # frame | recompile | graph_break | recompile_reason | status | kernels | ddp_split
    what: str  # one line naming the thing
    ranks_with: tuple[Rank, ...]  # ranks where it is present (or that differ from the majority)
    ranks_without: tuple[Rank, ...]
    per_rank: dict[str, Any] = field(default_factory=dict)  # rank -> its value, as text keys

    def to_plain(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "what": self.what,
            "ranks_with": list(self.ranks_with),
            "ranks_without": list(self.ranks_without),
            "per_rank": self.per_rank,
        }


@dataclass(frozen=True, slots=True)
class DdpSplit:
    """A frame whose graph DDPOptimizer split into submodules at bucket boundaries."""

    rank: Rank
    compile_id: str
    submodules: tuple[str, ...]


def ranks_of(frames: Iterable[Frame]) -> list[Rank]:
    return sorted({f.rank for f in frames}, key=_rank_order)


def _rank_order(rank: Rank) -> int:
    return -1 if rank is None else rank


def _rank_text(rank: Rank) -> str:
    return "none" if rank is None else str(rank)


def compile_index(compile_id: str) -> str:
    """Which compile of a frame: "0" first, "1"+ recompiles; compiled-autograd ids keep their prefix."""
    head, _, tail = compile_id.rpartition("/")
    return f"{head.split('/')[0]}/{tail}" if head.startswith("!") else tail


Cwds = Mapping[Rank, str | None]  # each rank's working directory, where recorded


def frame_key(frame: Frame, cwds: Cwds | None = None) -> FrameKey:
    """Where a frame's code is (its path as :func:`comparable_path` keys it) and which compile."""
    path = _path(frame.filename, frame.rank, cwds)
    return (path, frame.line, frame.function, compile_index(frame.compile_id))


def _path(filename: str | None, rank: Rank, cwds: Cwds | None) -> str | None:
    if filename is None:
        return None
    cwds = cwds or {}
    return comparable_path(filename, cwds.get(rank), cwds.values())


def rank_cwds(report: Report) -> dict[Rank, str | None]:
    """Each rank's working directory: from a merged report's inputs, else the run's."""
    out: dict[Rank, str | None] = {f.rank: report.run.cwd for f in report.frames}
    try:
        inputs = json.loads(report.meta.get("ranks") or "[]")
    except ValueError:
        inputs = []
    for item in inputs if isinstance(inputs, list) else []:
        run = item.get("run") if isinstance(item, dict) else None
        rank = item.get("rank") if isinstance(item, dict) else None
        if (
            isinstance(run, dict)
            and isinstance(run.get("cwd"), str)
            and (rank is None or isinstance(rank, int))
        ):
            out[rank] = run["cwd"]
    return out


def describe_key(key: FrameKey) -> str:
    filename, line, function, index = key
    where = f"{_tail(filename)}:{line}" if line is not None else _tail(filename)
    nth = "" if index == "0" else f", recompile #{index}"
    return f"{function or '?'}() at {where}{nth}"


def _tail(path: str | None, parts: int = 2) -> str:
    if not path:
        return "?"
    return "/".join(path.replace("\\", "/").split("/")[-parts:])


def kernel_signature(kernel: Kernel) -> str:
    return f"{kernel.graph_kind}:{kernel.name}"


def rank_differences(
    frames: Sequence[Frame],
    kernels: Sequence[Kernel] = (),
    splits: Sequence[DdpSplit] = (),
    cwds: Cwds | None = None,
) -> list[RankDifference]:
    """What is not the same on every rank (empty for a run of one rank)."""
    ranks = ranks_of(frames)
    if len(ranks) < 2:
        return []
    by_key: dict[FrameKey, dict[Rank, Frame]] = {}
    for f in frames:
        by_key.setdefault(frame_key(f, cwds), {})[f.rank] = f
    common = [(key, per_rank) for key, per_rank in by_key.items() if len(per_rank) == len(ranks)]
    out = _compile_count_differences(frames, ranks, cwds)
    out.extend(_break_differences(frames, ranks, cwds))
    for key, per_rank in common:
        out.extend(_frame_differences(key, per_rank, ranks))
    out.extend(_kernel_differences(common, kernels, ranks))
    out.extend(_split_differences(common, splits, ranks))
    return out


def _compile_count_differences(
    frames: Sequence[Frame], ranks: list[Rank], cwds: Cwds | None
) -> list[RankDifference]:
    """Code that some ranks compiled more often (recompiles) or not at all (frames)."""
    compiles: dict[tuple[str | None, int | None, str | None], dict[Rank, list[Frame]]] = {}
    for f in frames:
        where = (_path(f.filename, f.rank, cwds), f.line, f.function)
        compiles.setdefault(where, {}).setdefault(f.rank, []).append(f)
    out = []
    for (filename, line, function), per_rank in compiles.items():
        counts = {r: len(per_rank.get(r, ())) for r in ranks}
        if len(set(counts.values())) == 1:
            continue
        fewest = min(counts.values())
        more = tuple(r for r in ranks if counts[r] > fewest)
        rest = tuple(r for r in ranks if counts[r] == fewest)
        values: dict[str, Any] = {}
        for r in ranks:
            extra = per_rank.get(r, [])[fewest:]
            reasons = [rc.guard or rc.text for f in extra for rc in f.recompiles]
            values[_rank_text(r)] = {"compiles": counts[r], "reasons": reasons[:3]}
        what = describe_key((filename, line, function, "0"))
        out.append(RankDifference("frame" if fewest == 0 else "recompile", what, more, rest, values))
    return out


def _majority_split(values: dict[Rank, Any], ranks: list[Rank]) -> tuple[tuple[Rank, ...], tuple[Rank, ...]]:
    """(ranks whose value differs from the most common one, ranks that have the common one)."""
    counts = Counter(_freeze(values.get(r)) for r in ranks)
    common = counts.most_common(1)[0][0]
    odd = tuple(r for r in ranks if _freeze(values.get(r)) != common)
    same = tuple(r for r in ranks if _freeze(values.get(r)) == common)
    return odd, same


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _break_differences(frames: Sequence[Frame], ranks: list[Rank], cwds: Cwds | None) -> list[RankDifference]:
    counts: dict[tuple[str | None, int | None, str], Counter[Rank]] = {}
    for f in frames:
        for gb in f.graph_breaks:
            key = (_path(gb.filename, f.rank, cwds), gb.line, gb.reason)
            counts.setdefault(key, Counter())[f.rank] += 1
    out = []
    for (filename, line, reason), per_rank in counts.items():
        if len({per_rank.get(r, 0) for r in ranks}) == 1:
            continue
        values = {r: per_rank.get(r, 0) for r in ranks}
        fewest = min(values.values())
        where = f"{_tail(filename)}:{line}" if line is not None else _tail(filename)
        out.append(
            RankDifference(
                "graph_break",
                f"{where}: {_first_line(reason, 1000)}",
                tuple(r for r in ranks if values[r] > fewest),
                tuple(r for r in ranks if values[r] == fewest),
                {_rank_text(r): values[r] for r in ranks},
            )
        )
    return out


def _frame_differences(key: FrameKey, per_rank: dict[Rank, Frame], ranks: list[Rank]) -> list[RankDifference]:
    out = []
    statuses = {r: per_rank[r].status for r in ranks}
    if len(set(statuses.values())) > 1:
        odd, same = _majority_split(statuses, ranks)
        out.append(
            RankDifference(
                "status", describe_key(key), odd, same, {_rank_text(r): statuses[r] for r in ranks}
            )
        )
    reasons = {r: [rc.guard or rc.text for rc in per_rank[r].recompiles] for r in ranks}
    if len({tuple(v) for v in reasons.values()}) > 1:
        odd, same = _majority_split(reasons, ranks)
        out.append(
            RankDifference(
                "recompile_reason",
                describe_key(key),
                odd,
                same,
                {_rank_text(r): reasons[r][:3] for r in ranks},
            )
        )
    return out


def _kernel_differences(
    common: list[tuple[FrameKey, dict[Rank, Frame]]], kernels: Sequence[Kernel], ranks: list[Rank]
) -> list[RankDifference]:
    by_frame: dict[tuple[Rank, str], Counter[str]] = {}
    for k in kernels:
        by_frame.setdefault((k.rank, k.compile_id), Counter())[kernel_signature(k)] += 1
    out = []
    for key, per_rank in common:
        sets = {r: by_frame.get((r, per_rank[r].compile_id), Counter()) for r in ranks}
        if len({_freeze(dict(c)) for c in sets.values()}) == 1:
            continue
        everywhere = sets[ranks[0]].copy()
        for c in sets.values():
            everywhere &= c
        only = {_rank_text(r): sorted((sets[r] - everywhere).elements())[:MAX_SHOWN] for r in ranks}
        odd, same = _majority_split({r: dict(sets[r]) for r in ranks}, ranks)
        out.append(RankDifference("kernels", describe_key(key), odd, same, only))
    return out


def _split_differences(
    common: list[tuple[FrameKey, dict[Rank, Frame]]], splits: Sequence[DdpSplit], ranks: list[Rank]
) -> list[RankDifference]:
    pieces = {(s.rank, s.compile_id): len(s.submodules) for s in splits}
    out = []
    for key, per_rank in common:
        values = {r: pieces.get((r, per_rank[r].compile_id), 0) for r in ranks}
        if len(set(values.values())) > 1:
            odd, same = _majority_split(values, ranks)
            out.append(
                RankDifference(
                    "ddp_split", describe_key(key), odd, same, {_rank_text(r): values[r] for r in ranks}
                )
            )
    return out


def _first_line(text: str, width: int = 90) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"


# ---------------------------------------------------------------------------
# DDPOptimizer splits (read from the raw events of the frames that may have them)


def ddp_splits(report: Report) -> list[DdpSplit]:
    """Frames whose graph DDPOptimizer split, with their submodule names, in frame order."""
    out = []
    for f in report.frames:
        if not _may_have_splits(f):
            continue
        names: list[str] = []
        split = False
        for event in report.events(f.compile_id, f.rank):
            if event.name == DDP_SPLIT_GRAPH:
                split = True
            elif event.name == DDP_SPLIT_CHILD:
                split = True
                child = event.metadata.get(DDP_SPLIT_CHILD)
                name = child.get("name") if isinstance(child, dict) else None
                names.append(name if isinstance(name, str) else f"submod_{len(names)}")
        if split:
            out.append(DdpSplit(rank=f.rank, compile_id=f.compile_id, submodules=tuple(names)))
    return out


def _may_have_splits(frame: Frame) -> bool:
    # The builder counts events it does not interpret (these two among them); torch counts
    # the pieces as graph breaks in its own metrics. Either says: look at the raw events.
    torch_breaks = frame.metrics.extra.get("num_graph_breaks")
    return frame.unknown_events > 0 or (
        isinstance(torch_breaks, int) and torch_breaks > len(frame.graph_breaks)
    )


def in_ddp_wrapper(frame: Frame) -> bool:
    """True when a frame's graph breaks happen inside DDP's Python wrapper (torch's code)."""
    if not frame.graph_breaks:
        return False
    paths = [frame.filename] + [s.filename for s in frame.user_stack]
    for gb in frame.graph_breaks:
        paths.append(gb.filename)
        paths.extend(s.filename for s in gb.user_stack)
    return any(p and p.replace("\\", "/").endswith(DDP_WRAPPER_FILE) for p in paths)


# ---------------------------------------------------------------------------
# Rendering (the summary's sections) and the JSON export's "rank_differences"


def export_rank_differences(report: Report) -> list[dict[str, Any]]:
    frames = report.frames
    if len(ranks_of(frames)) < 2:
        return []
    diffs = rank_differences(frames, report.kernels, ddp_splits(report), rank_cwds(report))
    return [d.to_plain() for d in diffs]


def export_ddp_splits(report: Report) -> list[dict[str, Any]]:
    return [
        {"rank": s.rank, "compile_id": s.compile_id, "submodules": list(s.submodules)}
        for s in ddp_splits(report)
    ]


def render_sections(report: Report) -> list[str]:
    """Summary lines for DDP splits and per-rank differences ([] when there is neither)."""
    frames = report.frames
    splits = ddp_splits(report)
    lines = _render_splits(frames, splits)
    ranks = ranks_of(frames)
    if len(ranks) >= 2:
        diffs = rank_differences(frames, report.kernels, splits, rank_cwds(report))
        lines.extend(render_differences(diffs, ranks))
    return lines


def _render_splits(frames: Sequence[Frame], splits: Sequence[DdpSplit]) -> list[str]:
    wrapper = [f for f in frames if in_ddp_wrapper(f)]
    if not splits and not wrapper:
        return []
    lines = ["", "DDP (DistributedDataParallel)"]
    if splits:
        lines.append(
            "  DDPOptimizer split these graphs at gradient-bucket boundaries (DDP splits, not graph breaks):"
        )
    by_frame = {(f.rank, f.compile_id): f for f in frames}
    for s in splits[:MAX_SHOWN]:
        f = by_frame.get((s.rank, s.compile_id))
        rank = f"r{s.rank} " if s.rank is not None else ""
        names = ", ".join(s.submodules[:6]) + (", …" if len(s.submodules) > 6 else "")
        lines.append(
            f"    {rank}{s.compile_id:<6} {_clean((f.function if f else None) or '?')}():"
            f" {len(s.submodules)} submodules ({names})"
        )
    if len(splits) > MAX_SHOWN:
        lines.append(f"  … {len(splits) - MAX_SHOWN} more split frames")
    if wrapper:
        count = sum(len(f.graph_breaks) for f in wrapper)
        ids = ", ".join(sorted({f.compile_id for f in wrapper}))
        lines.append(
            f"  {count} graph break{'s' * (count != 1)} inside DDP's own wrapper ({DDP_WRAPPER_FILE};"
            f" frames {ids}): torch's code around your model, expected when compiling a DDP module"
        )
    return lines


def render_differences(diffs: Sequence[RankDifference], ranks: Sequence[Rank]) -> list[str]:
    names = ", ".join(_rank_text(r) for r in ranks)
    if not diffs:
        return ["", f"Ranks ({names}): every rank compiled the same frames, breaks and kernels"]
    lines = [
        "",
        f"Rank differences ({len(diffs)}; ranks {names}): ranks that compile differently can"
        " hang in collectives",
    ]
    for d in diffs[: MAX_SHOWN * 2]:
        lines.append(f"  {d.kind:<16} {_clean(_first_line(d.what, 110))}")
        lines.append(f"  {'':<16}   {_where(d)}")
    if len(diffs) > MAX_SHOWN * 2:
        lines.append(f"  … {len(diffs) - MAX_SHOWN * 2} more (inspectc export --json: rank_differences)")
    return lines


def _where(d: RankDifference) -> str:
    if d.kind in ("frame", "recompile"):
        counts = "; ".join(f"rank {k}: {v['compiles']}×" for k, v in d.per_rank.items())
        reasons = [r for v in d.per_rank.values() for r in v["reasons"]][:1]
        text = f"compiled {counts}"
        return _clean(text + (f"; first extra: {_first_line(reasons[0], 70)}" if reasons else ""))[:200]
    values = "; ".join(f"rank {k}: {_short(v)}" for k, v in d.per_rank.items())
    return _clean(values)[:200]


def _short(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_first_line(str(v), 50) for v in value[:4]) or "-"
    return str(value)
