"""Rank differences for the readers: one list for summary, JSON export, TUI, share, check.

:func:`report_differences` joins the frame-level differences (``ranks.py``) and the
record-level ones (``rank_records.py``); :func:`render_sections` is the summary's section
(DDP splits first), :func:`export_rank_differences` the JSON export's ``rank_differences``.
No torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspectc.analysis.ddp import ddp_splits
from inspectc.analysis.rank_records import record_differences
from inspectc.analysis.ranks import (
    RankDifference,
    _first_line,
    rank_cwds,
    rank_differences,
    ranks_of,
)
from inspectc.analysis.views import printable as _clean
from inspectc.store.reader import Report


def report_differences(report: Report, splits: Sequence[Any] | None = None) -> list[RankDifference]:
    """Everything that is not the same on every rank ([] for one rank)."""
    frames = report.frames
    ranks = ranks_of(frames)
    if len(ranks) < 2:
        return []
    cwds = rank_cwds(report)
    splits = ddp_splits(report) if splits is None else splits
    diffs = rank_differences(frames, report.kernels, splits, cwds)
    return diffs + record_differences(frames, report.run_records, ranks, cwds)


def export_rank_differences(report: Report) -> list[dict[str, Any]]:
    return [d.to_plain() for d in report_differences(report)]


def describe(d: RankDifference) -> str:
    """One line: what each rank has (for the summary, share and the TUI)."""
    return _where(d)


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
