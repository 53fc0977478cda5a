"""Per-rank differences of a distributed run's frames. No torch.

In a data-parallel job every rank should compile the same frames into the same graphs and
kernels; when one rank graph-breaks, recompiles or fuses differently, its collectives no
longer line up with the others' and the job hangs. :func:`rank_differences` lists what is
not the same on every rank: frames (and recompiles) that only some ranks compiled, graph
breaks, recompile reasons, kernels, statuses and DDP splits. Object addresses in guard
reasons (``___check_obj_id(fn, 140118962476784)``) differ in every process: they are
normalised (:func:`normalise_reason`) before reasons are compared.

Beside it: ``ddp.py`` (DDPOptimizer's splits), ``rank_records.py`` (cache, collectives,
execution order, tensor metadata, runtime estimates), ``rank_render.py`` (summary, JSON).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspectc.analysis.ddp import DdpSplit
from inspectc.analysis.paths import comparable_path
from inspectc.model import CompileId, Frame, Kernel
from inspectc.store.reader import Report

MAX_SHOWN = 12

Rank = int | None
# A frame's identity across ranks: code location plus which compile of it (0 first, 1+ recompiles).
RankMatch = tuple[str | None, int | None, str | None, str]


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


_OBJECT_ID = re.compile(r"\b(___check_(?:obj|type)_id\(.*?,\s*)\d{6,}(\))")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def normalise_reason(text: str) -> str:
    """A guard reason with per-process object ids and addresses replaced by ``<id>``."""
    return _ADDRESS.sub("<address>", _OBJECT_ID.sub(r"\1<id>\2", text))


def ranks_of(frames: Iterable[Frame]) -> list[Rank]:
    return sorted({f.rank for f in frames}, key=_rank_order)


def _rank_order(rank: Rank) -> int:
    return -1 if rank is None else rank


def _rank_text(rank: Rank) -> str:
    return "none" if rank is None else str(rank)


Cwds = Mapping[Rank, str | None]  # each rank's working directory, where recorded


def frame_key(frame: Frame, cwds: Cwds | None = None) -> RankMatch:
    """Where a frame's code is (its path as :func:`comparable_path` keys it) and which compile."""
    path = _path(frame.filename, frame.rank, cwds)
    return (path, frame.line, frame.function, frame.compile_id.index)  # rank-free: "1" of r0's and r1's "0/1"


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


def match_name(key: RankMatch) -> str:
    filename, line, function, index = key
    where = f"{_tail(filename)}:{line}" if line is not None else _tail(filename)
    nth = "" if index == "0" else f", recompile #{index}"
    return f"{function or '?'}() at {where}{nth}"


def frames_on_every_rank(
    frames: Sequence[Frame], ranks: list[Rank], cwds: Cwds | None = None
) -> list[tuple[RankMatch, dict[Rank, Frame]]]:
    """Frames by their cross-rank key, kept where every rank compiled that frame."""
    by_key: dict[RankMatch, dict[Rank, Frame]] = {}
    for f in frames:
        by_key.setdefault(frame_key(f, cwds), {})[f.rank] = f
    return [(key, per_rank) for key, per_rank in by_key.items() if len(per_rank) == len(ranks)]


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
    common = frames_on_every_rank(frames, ranks, cwds)
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
            reasons = [normalise_reason(rc.guard or rc.text) for f in extra for rc in f.recompiles]
            values[_rank_text(r)] = {"compiles": counts[r], "reasons": reasons[:3]}
        what = match_name((filename, line, function, "0"))
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


def _frame_differences(
    key: RankMatch, per_rank: dict[Rank, Frame], ranks: list[Rank]
) -> list[RankDifference]:
    out = []
    statuses = {r: per_rank[r].status for r in ranks}
    if len(set(statuses.values())) > 1:
        odd, same = _majority_split(statuses, ranks)
        out.append(
            RankDifference("status", match_name(key), odd, same, {_rank_text(r): statuses[r] for r in ranks})
        )
    reasons = {r: [normalise_reason(rc.guard or rc.text) for rc in per_rank[r].recompiles] for r in ranks}
    if len({tuple(v) for v in reasons.values()}) > 1:
        odd, same = _majority_split(reasons, ranks)
        out.append(
            RankDifference(
                "recompile_reason",
                match_name(key),
                odd,
                same,
                {_rank_text(r): reasons[r][:3] for r in ranks},
            )
        )
    return out


def _kernel_differences(
    common: list[tuple[RankMatch, dict[Rank, Frame]]], kernels: Sequence[Kernel], ranks: list[Rank]
) -> list[RankDifference]:
    by_frame: dict[CompileId, Counter[str]] = {}
    for k in kernels:
        by_frame.setdefault(k.compile_id, Counter())[kernel_signature(k)] += 1
    out = []
    for key, per_rank in common:
        sets = {r: by_frame.get(per_rank[r].compile_id, Counter()) for r in ranks}
        if len({_freeze(dict(c)) for c in sets.values()}) == 1:
            continue
        everywhere = sets[ranks[0]].copy()
        for c in sets.values():
            everywhere &= c
        only = {_rank_text(r): sorted((sets[r] - everywhere).elements())[:MAX_SHOWN] for r in ranks}
        odd, same = _majority_split({r: dict(sets[r]) for r in ranks}, ranks)
        out.append(RankDifference("kernels", match_name(key), odd, same, only))
    return out


def _split_differences(
    common: list[tuple[RankMatch, dict[Rank, Frame]]], splits: Sequence[DdpSplit], ranks: list[Rank]
) -> list[RankDifference]:
    pieces = {s.compile_id: len(s.submodules) for s in splits}
    out = []
    for key, per_rank in common:
        values = {r: pieces.get(per_rank[r].compile_id, 0) for r in ranks}
        if len(set(values.values())) > 1:
            odd, same = _majority_split(values, ranks)
            out.append(
                RankDifference(
                    "ddp_split", match_name(key), odd, same, {_rank_text(r): values[r] for r in ranks}
                )
            )
    return out


def _first_line(text: str, width: int = 90) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"
