"""``inspectc diff`` in words: the sides' counts, each change, the kernel times' ratios and the
verdict (the text), and the same as JSON (``--json``). What changed is found by
:mod:`inspectc.analysis.diff`; this says it. No torch."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from inspectc.analysis.diff import Change, ReportDiff, RunSide
from inspectc.analysis.difftimes import TIME_SHOWN, Slowdown, TimeChange, per_rank_ratios, total_ratio
from inspectc.analysis.text import printable as _clean


def change_plain(c: Change) -> dict[str, Any]:
    return {
        "kind": c.kind,
        "change": c.change,
        "what": c.what,
        "before": c.before,
        "after": c.after,
        "rank": c.rank,
    }


def slowdown_text(s: Slowdown) -> str:
    """``kernel time per call of 2 matched kernels: ×1.32`` or one kernel's ratio and times."""
    if s.change is None:
        return f"kernel time per call of {s.kernels} matched kernels: ×{s.ratio:.2f}"
    t = s.change
    return f"{t.what}: ×{t.ratio:.2f} ({t.before_us:.1f}µs -> {t.after_us:.1f}µs)"


def diff_plain(diff: ReportDiff, fail_on_slowdown: float | None = None) -> dict[str, Any]:
    """``inspectc diff --json``: the sides, every change, the kernel times and the verdict."""

    def side(s: RunSide) -> dict[str, Any]:
        return {
            "report": s.label,
            "torch_version": s.torch_version,
            "frames": s.frames,
            "graph_breaks": s.graph_breaks,
            "recompiles": s.recompiles,
            "kernels": s.kernels,
            "per_rank": [{"rank": r, **counts} for r, counts in s.per_rank.items()],
        }

    return {
        "a": side(diff.a),
        "b": side(diff.b),
        "structural": diff.structural,
        "changes": [change_plain(c) for c in diff.changes],
        "kernel_times": [
            {
                "what": t.what,
                "before_us": t.before_us,
                "after_us": t.after_us,
                "ratio": t.ratio,
                "share": t.share,
                "within_noise": t.noise,
                "rank": t.rank,
            }
            for t in diff.times
        ],
        "total_time_ratio": diff.total_time_ratio,
        "total_time_ratio_per_rank": [
            {"rank": r, "ratio": ratio} for r, ratio in per_rank_ratios(diff.times).items()
        ],
        "slowdowns": [slowdown_text(s) for s in diff.slowdowns(fail_on_slowdown)]
        if fail_on_slowdown is not None
        else [],
        "exit_code": diff.exit_code(fail_on_slowdown),
    }


_MARK = {"added": "+", "new": "+", "removed": "-", "fixed": "-", "changed": "~", "count": "~"}
_TITLES = {
    "frame": "Frames",
    "status": "Frame status",
    "graph_break": "Graph breaks",
    "recompile": "Recompiles",
    "kernel": "Kernels",
}


def render_diff(diff: ReportDiff, *, fail_on_slowdown: float | None = None, limit: int = 40) -> str:
    a, b = diff.a, diff.b
    lines = [
        f"inspectc diff: {_clean(a.label)} (torch {_clean(a.torch_version or 'not recorded')}) -> "
        f"{_clean(b.label)} (torch {_clean(b.torch_version or 'not recorded')})",
        _counts_line(a, b) + ("  (ranks together)" if a.per_rank or b.per_rank else ""),
    ]
    for rank in sorted(a.per_rank.keys() | b.per_rank.keys()):
        lines.append(_rank_counts_line(rank, a.per_rank.get(rank), b.per_rank.get(rank)))
    for kind, title in _TITLES.items():
        items = [c for c in diff.changes if c.kind == kind]
        if not items:
            continue
        tally = Counter(c.change for c in items)
        lines.append("")
        lines.append(f"{title} ({', '.join(f'{n} {what}' for what, n in tally.items())})")
        for c in items[:limit]:
            lines.append(f"  {_MARK.get(c.change, '~')} {c.change:<7} {_clean(c.what)}{_before_after(c)}")
        if len(items) > limit:
            lines.append(f"  … {len(items) - limit} more (--json lists all)")
    lines.extend(time_lines(diff.times, fail_on_slowdown, limit))
    if diff.a.per_rank or diff.b.per_rank:
        ratios = per_rank_ratios(diff.times)
        if ratios:
            lines.append(
                "  per rank: "
                + ", ".join(f"r{r} ×{ratio:.2f}" for r, ratio in ratios.items() if ratio is not None)
            )
    lines.append("")
    slow = diff.slowdowns(fail_on_slowdown) if fail_on_slowdown is not None else []
    if diff.structural:
        lines.append(f"{len(diff.changes)} structural difference{'s' * (len(diff.changes) != 1)} (exit 1)")
    elif slow:
        lines.append(f"No structural differences; slower than {fail_on_slowdown:g}% (exit 1)")
    else:
        lines.append("No structural differences (exit 0)")
    return "\n".join(lines)


def _counts_line(a: RunSide, b: RunSide) -> str:
    def pair(name: str, x: int, y: int) -> str:
        return f"{name} {x}" if x == y else f"{name} {x} -> {y}"

    return "  " + ", ".join(
        (
            pair("frames", a.frames, b.frames),
            pair("graph breaks", a.graph_breaks, b.graph_breaks),
            pair("recompiles", a.recompiles, b.recompiles),
            pair("kernels", a.kernels, b.kernels),
        )
    )


def _rank_counts_line(rank: int, a: dict[str, int] | None, b: dict[str, int] | None) -> str:
    """One rank's counts, A -> B (a rank only one side has says so)."""
    if a is None or b is None:
        counts = a or b or {}
        side = "only in A" if b is None else "only in B"
        return f"    r{rank} ({side}): " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items())

    def pair(name: str) -> str:
        assert a is not None and b is not None
        x, y = a[name], b[name]
        return f"{name.replace('_', ' ')} {x}" if x == y else f"{name.replace('_', ' ')} {x} -> {y}"

    return f"    r{rank}: " + ", ".join(pair(n) for n in ("frames", "graph_breaks", "recompiles", "kernels"))


def _before_after(c: Change) -> str:
    if c.kind == "status" or c.change == "count":
        return f"  ({c.before} -> {c.after})"
    if c.kind in ("graph_break", "recompile") and (c.before or c.after):
        return f"  ({max(c.before or 0, c.after or 0)}×)"
    return ""


def time_lines(times: Sequence[TimeChange], fail_on_slowdown: float | None, limit: int) -> list[str]:
    if not times:
        return []
    shown = sorted(
        (t for t in times if abs(t.ratio - 1) >= TIME_SHOWN), key=lambda t: (bool(t.noise), -abs(t.ratio - 1))
    )
    total = total_ratio(times)
    gate = (
        f"; fails above {fail_on_slowdown:g}%"
        if fail_on_slowdown is not None
        else "; --fail-on-slowdown PCT makes a slowdown fail"
    )
    noisy = sum(1 for t in times if t.noise)
    lines = [
        "",
        f"Kernel times (B/A of the median per call, {len(times)} matched kernels, {noisy} within noise{gate})",
    ]
    for t in shown[:limit]:
        note = f"  within noise ({t.noise})" if t.noise else ""
        lines.append(f"  ×{t.ratio:<6.2f} {_clean(t.what)}  {t.before_us:.1f}µs -> {t.after_us:.1f}µs{note}")
    if not shown:
        lines.append(f"  no kernel changed by {TIME_SHOWN:.0%} or more")
    if total is not None:
        lines.append(f"  total per call, changes within noise counted as none: ×{total:.2f}")
    return lines
