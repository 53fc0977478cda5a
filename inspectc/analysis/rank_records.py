"""Per-rank differences in what the ranks' compilers decided and ran, beside their frames.

tlparse's multi-rank analyses, on the data a report keeps per process (run records and
frames): each is a :class:`~inspectc.analysis.ranks.RankDifference` of its own kind, so the
summary, the JSON export (``rank_differences``), the TUI, ``share`` and ``check`` show them
like the frame-level ones.

- ``cache``: a frame's FX-graph / AOTAutograd cache status differs (one rank missed where
  the others hit: its compile took longer, and its collectives start late).
- ``collective_schedule``: the collectives Inductor scheduled in a graph, in order
  (``inductor_collective_schedule``), differ. A rank whose graph came from the FX-graph
  cache logs no schedule: "not recorded", never a difference by itself.
- ``collectives_parity``: the number of collectives each rank's graphs schedule in all
  differs: the classic hang.
- ``execution_order``: the graphs each rank ran, in order (``graph_execution``), differ;
  a graph loaded from the cache has no compile id there ("?"), so ranks are compared by
  count when ids are missing.
- ``tensor_meta``: the output tensors (dtype, shape, stride) of a graph's ops differ
  (``inductor_runtime_and_tensor_meta``).
- ``runtime_estimate``: Inductor's estimated runtime of a graph differs by more than
  :data:`ESTIMATE_TOLERANCE` between ranks.
No torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspectc.analysis.ranks import (
    Rank,
    RankDifference,
    RankMatch,
    _freeze,
    _majority_split,
    _rank_text,
    frames_on_every_rank,
    match_name,
)
from inspectc.model import Frame
from inspectc.model.runrecords import GraphCollectives, RunRecords

ESTIMATE_TOLERANCE = 0.10  # relative spread of a graph's estimated runtime across ranks
NOT_RECORDED = "not recorded"
KINDS = (
    "cache",
    "collective_schedule",
    "collectives_parity",
    "execution_order",
    "tensor_meta",
    "runtime_estimate",
)
Cwds = dict[Rank, str | None]


def record_differences(
    frames: Sequence[Frame], records: RunRecords, ranks: list[Rank], cwds: Cwds | None = None
) -> list[RankDifference]:
    """The record-level differences of a run of two or more ranks."""
    if len(ranks) < 2:
        return []
    common = frames_on_every_rank(frames, ranks, cwds)
    graphs = {g.compile_id: g for g in records.collectives}
    out = _cache_differences(common, ranks)
    for key, per_rank in common:
        entries = {r: graphs.get(per_rank[r].compile_id) for r in ranks}
        out.extend(_graph_differences(key, entries, per_rank, ranks))
    out.extend(_parity(records.collectives, ranks))
    out.extend(_execution_order(records, ranks))
    return out


def _cache_differences(
    common: list[tuple[RankMatch, dict[Rank, Frame]]], ranks: list[Rank]
) -> list[RankDifference]:
    out = []
    for key, per_rank in common:
        values = {
            r: f"fx_graph {per_rank[r].cache.get('fx_graph') or '-'}, aot_autograd {per_rank[r].cache.get('aot_autograd') or '-'}"
            for r in ranks
        }
        if len(set(values.values())) > 1:
            odd, same = _split(values)
            out.append(
                RankDifference("cache", match_name(key), odd, same, {_rank_text(r): values[r] for r in ranks})
            )
    return out


def _graph_differences(
    key: RankMatch,
    entries: dict[Rank, GraphCollectives | None],
    per_rank: dict[Rank, Frame],
    ranks: list[Rank],
) -> list[RankDifference]:
    out: list[RankDifference] = []
    what = match_name(key)

    def why_missing(r: Rank) -> str:
        hit = per_rank[r].cache.get("fx_graph") == "hit"
        return NOT_RECORDED + (" (FX graph cache hit)" if hit else "")

    schedules = {r: (e.schedule if e is not None else None) for r, e in entries.items()}
    known = {r: list(s or ()) for r, s in schedules.items() if s is not None or _compiled(entries[r])}
    if len(known) >= 2 and len({tuple(v) for v in known.values()}) > 1:
        odd, same = _split(known)
        shown = {_rank_text(r): known[r] if r in known else why_missing(r) for r in ranks}
        out.append(RankDifference("collective_schedule", what, odd, same, shown))
    metas = {
        r: [list(op.outputs) for op in e.estimates]
        for r, e in entries.items()
        if e and e.estimates is not None
    }
    if len(metas) >= 2 and len({repr(v) for v in metas.values()}) > 1:
        odd, same = _split({r: repr(v) for r, v in metas.items()})
        shown = {_rank_text(r): _meta_text(metas[r]) if r in metas else why_missing(r) for r in ranks}
        out.append(RankDifference("tensor_meta", what, odd, same, shown))
    totals = {
        r: sum(op.runtime_ns or 0.0 for op in e.estimates)
        for r, e in entries.items()
        if e and e.estimates is not None
    }
    if len(totals) >= 2:
        low, high = min(totals.values()), max(totals.values())
        if high > 0 and (high - low) / high > ESTIMATE_TOLERANCE:
            slow = tuple(r for r in totals if totals[r] > low * (1 + ESTIMATE_TOLERANCE))
            rest = tuple(r for r in totals if r not in slow)
            shown = {
                _rank_text(r): f"{totals[r] / 1e3:.1f}us" if r in totals else why_missing(r) for r in ranks
            }
            out.append(RankDifference("runtime_estimate", what, slow, rest, shown))
    return out


def _split(values: dict[Rank, Any]) -> tuple[tuple[Rank, ...], tuple[Rank, ...]]:
    """Like the frame-level majority split; when no value is shared, every rank differs."""
    if len({_freeze(v) for v in values.values()}) == len(values):
        return tuple(values), ()
    return _majority_split(values, list(values))


def _compiled(entry: GraphCollectives | None) -> bool:
    """A graph Inductor scheduled (it logged estimates) but with no collective in it."""
    return entry is not None and entry.estimates is not None


def _meta_text(outputs: list[list[str]]) -> str:
    flat = [t for op in outputs for t in op]
    return f"{len(outputs)} ops: " + ", ".join(flat[:4]) + (", …" if len(flat) > 4 else "")


def _parity(collectives: Sequence[GraphCollectives], ranks: list[Rank]) -> list[RankDifference]:
    counts: dict[Rank, int] = {}
    for g in collectives:
        if g.schedule is not None:
            counts[g.rank] = counts.get(g.rank, 0) + sum(1 for op in g.schedule if "wait_tensor" not in op)
    if len(counts) < 2:  # a rank with no schedule at all (its graphs came from the cache)
        return []  # is not recorded, not zero
    if len(set(counts.values())) == 1:
        return []
    odd, same = _split(counts)
    shown: dict[str, Any] = {_rank_text(r): counts.get(r, NOT_RECORDED) for r in ranks}
    return [
        RankDifference("collectives_parity", "collectives scheduled in compiled graphs", odd, same, shown)
    ]


def _execution_order(records: RunRecords, ranks: list[Rank]) -> list[RankDifference]:
    orders: dict[Rank, tuple[str, ...]] = {}
    for e in records.execution_orders:  # the ids' texts: the same graphs across ranks
        orders[e.rank] = orders.get(e.rank, ()) + tuple(str(c) for c in e.compile_ids)
    if len(orders) < 2:
        return []
    comparable = orders
    if any(not c.known for e in records.execution_orders for c in e.compile_ids):
        # a cached graph's id is not logged: compared by count
        comparable = {r: tuple("?" for _ in o) for r, o in orders.items()}
    if len(set(comparable.values())) == 1:
        return []
    odd, same = _split({r: list(v) for r, v in comparable.items()})
    shown = {_rank_text(r): _order_text(orders[r]) if r in orders else NOT_RECORDED for r in ranks}
    return [RankDifference("execution_order", "graphs run, in order (graph_execution)", odd, same, shown)]


def _order_text(order: tuple[str, ...]) -> str:
    text = " > ".join(order[:8]) + (" > …" if len(order) > 8 else "")
    return f"{len(order)} graphs: {text}" if order else "0 graphs"
