"""``inspectc diff A B``: what changed between two runs (a code change, or another torch). No torch.

Structural differences (they make ``inspectc diff`` exit 1, like ``diff``):
  frames added or removed: matched by rank, file, function and which compile of that function
  (first, second...), not by line, so an edit above a function does not move its frames;
  frame status changes (ok -> failed...);
  graph breaks fixed, new or happening a different number of times: matched by the user's
  file:line and the break's reason;
  recompiles added or removed: matched by frame and guard;
  kernels added, removed or changed: within matched frames, matched by the ops they fuse (the
  kernel name less its language prefix and index: ``cpp_fused_add_mul_3`` -> ``fused_add_mul``)
  and compared by source (less the kernel's name, include directories, and the profiling and
  provenance lines that capture's kernel timings add).
Kernel times are noisy: their ratios (B / A of the median per call) are shown, a change within
noise is said to be (``difftimes.py``: too few samples, or samples a rank test cannot tell
apart) and never counts as a slowdown; a slowdown changes the exit code only when asked
(``--fail-on-slowdown PCT``). Run metadata (argv, dates, hosts) is never a difference.
Paths are compared by :func:`paths.comparable_path`: relative to each run's working directory
(an imported log, which records none, borrows the other run's), and inside site-packages or the
Python library relative to that, so two venvs or checkouts compare equal.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from inspectc.analysis.difftimes import (
    Slowdown,
    TimeChange,  # noqa: F401 - TimeChange re-exported
    slowdowns,
    time_change,
    total_ratio,
)
from inspectc.analysis.paths import comparable_path
from inspectc.analysis.views import one_line
from inspectc.analysis.volatile import normalised
from inspectc.model import CompileId, Frame, Kernel, without_id_prefix
from inspectc.store.reader import Report

_INDEX = re.compile(r"(?:_\d+|:\d+)$")
_PREFIX = re.compile(r"^(?:triton|cpp|halide|cuda|mps|pallas)_(?:(?:poi|red|per|tem|for|mix|spl|unk)_)?")
_INCLUDE_DIR = re.compile(r'(#include\s*["<])[^">]*/')
# What capture's kernel timings and provenance add to generated code (C++ kernel profiling
# records each call; provenance comments name call sites): not a change of the kernel.
_INSTRUMENTATION = re.compile(
    r"^.*(?:RAIIAtenRecordFunctionHandle|#include <torch/csrc/inductor/aoti_runtime/utils\.h>"
    r"|\[Provenance debug handles\]).*\n?",
    re.MULTILINE,
)

Rank = int | None
# A frame matched across two runs: rank, file, function, n-th compile of that function.
RunMatch = tuple[Rank, str, str, int]


@dataclass(frozen=True, slots=True)
class Change:
    kind: str  # frame | status | graph_break | recompile | kernel
    change: str  # added | removed | fixed | new | count | changed
    what: str  # one line naming the thing
    before: Any = None
    after: Any = None
    rank: int | None = None  # the rank the change is on (None: one process)


@dataclass(slots=True)
class RunSide:
    label: str
    torch_version: str | None
    frames: int
    graph_breaks: int
    recompiles: int
    kernels: int
    # rank -> its frames, graph breaks, recompiles and kernels (empty: one process)
    per_rank: dict[int, dict[str, int]] = field(default_factory=dict)


@dataclass(slots=True)
class ReportDiff:
    a: RunSide
    b: RunSide
    changes: list[Change] = field(default_factory=list)
    times: list[TimeChange] = field(default_factory=list)

    @property
    def structural(self) -> bool:
        return bool(self.changes)

    @property
    def total_time_ratio(self) -> float | None:
        return total_ratio(self.times)

    def slowdowns(self, pct: float) -> list[Slowdown]:
        """What got slower than *pct* percent beyond noise (``difftimes.slowdowns``)."""
        return slowdowns(self.times, pct)

    def exit_code(self, fail_on_slowdown: float | None = None) -> int:
        if self.structural:
            return 1
        if fail_on_slowdown is not None and self.slowdowns(fail_on_slowdown):
            return 1
        return 0


# ---------------------------------------------------------------------------
# Normalising what is compared


def _text(value: str | None) -> str:
    return normalised(" ".join((value or "").split()))


def op_signature(kernel: Kernel) -> str:
    """What a kernel fuses, independent of its language prefix and index."""
    return _PREFIX.sub("", _INDEX.sub("", kernel.name))


def _source_digest(source: str, name: str) -> str:
    text = _INCLUDE_DIR.sub(r"\1", _INSTRUMENTATION.sub("", source).replace(name, "KERNEL"))
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


# ---------------------------------------------------------------------------
# The comparison


@dataclass(slots=True)
class _Side:
    report: Report
    cwd: str | None
    frames: dict[RunMatch, Frame]
    kernels: dict[CompileId, list[Kernel]]
    multi_rank: bool

    fallback_cwd: str | None = None  # the other run's, for a run that recorded none

    @classmethod
    def of(cls, report: Report, other: Report) -> _Side:
        cwd = report.run.cwd
        fallback = None if cwd else other.run.cwd
        frames: dict[RunMatch, Frame] = {}
        seen: Counter[tuple[Rank, str, str]] = Counter()
        for f in report.frames:
            base = (f.rank, normalised(comparable_path(f.filename, cwd, [fallback])), f.function or "?")
            frames[(*base, seen[base])] = f
            seen[base] += 1
        kernels: dict[CompileId, list[Kernel]] = {}
        for k in report.kernels:
            kernels.setdefault(k.compile_id, []).append(k)
        multi = len({f.rank for f in report.frames}) > 1
        return cls(report, cwd, frames, kernels, multi, fallback)

    def path(self, path: str | None) -> str:
        return normalised(comparable_path(path, self.cwd, [self.fallback_cwd]))

    def frame_kernels(self, frame: Frame) -> list[Kernel]:
        return self.kernels.get(frame.compile_id, [])


def _side_summary(label: str, report: Report) -> RunSide:
    frames = report.frames

    def counts(group: list[Frame]) -> dict[str, int]:
        return {
            "frames": len(group),
            "graph_breaks": sum(len(f.graph_breaks) for f in group),
            "recompiles": sum(len(f.recompiles) for f in group),
            "kernels": sum(f.kernel_count for f in group),
        }

    ranks = sorted({f.rank for f in frames if f.rank is not None})
    per_rank = {r: counts([f for f in frames if f.rank == r]) for r in ranks} if len(ranks) > 1 else {}
    return RunSide(label=label, torch_version=report.run.torch_version, **counts(frames), per_rank=per_rank)


def diff_reports(a: Report, b: Report, *, labels: tuple[str, str] | None = None) -> ReportDiff:
    """Everything structural that differs from *a* to *b*, and the kernel time ratios."""
    names = labels or (str(a.path), str(b.path))
    out = ReportDiff(_side_summary(names[0], a), _side_summary(names[1], b))
    sa, sb = _Side.of(a, b), _Side.of(b, a)
    multi = sa.multi_rank or sb.multi_rank
    for key in sorted(sa.frames.keys() - sb.frames.keys(), key=_key_order):
        out.changes.append(Change("frame", "removed", _frame_what(key, sa.frames[key], multi), rank=key[0]))
    for key in sorted(sb.frames.keys() - sa.frames.keys(), key=_key_order):
        out.changes.append(Change("frame", "added", _frame_what(key, sb.frames[key], multi), rank=key[0]))
    matched = [(key, sa.frames[key], sb.frames[key]) for key in sa.frames.keys() & sb.frames.keys()]
    matched.sort(key=lambda m: (m[1].ordinal, m[0][1:]))
    for key, fa, fb in matched:
        if fa.status != fb.status:
            out.changes.append(
                Change("status", "changed", _frame_what(key, fb, multi), fa.status, fb.status, rank=key[0])
            )
    out.changes.extend(_break_changes(sa, sb, multi))
    out.changes.extend(_recompile_changes(sa, sb, multi))
    for key, fa, fb in matched:
        changes, times = _kernel_changes(key, fa, fb, sa, sb, multi)
        out.changes.extend(changes)
        out.times.extend(times)
    total = sum(t.before_us for t in out.times)
    out.times = [replace(t, share=t.before_us / total if total else 0.0) for t in out.times]
    order = {"frame": 0, "status": 1, "graph_break": 2, "recompile": 3, "kernel": 4}
    out.changes.sort(key=lambda c: order.get(c.kind, 9))
    return out


def _key_order(key: RunMatch) -> tuple[int, str, str, int]:
    rank, path, function, nth = key
    return (-1 if rank is None else rank, path, function, nth)


def _rank_prefix(rank: Rank, multi: bool) -> str:
    return f"r{rank} " if multi and rank is not None else ""


def _frame_what(key: RunMatch, frame: Frame, multi: bool) -> str:
    rank, path, function, nth = key
    where = f"{path}:{frame.line}" if frame.line is not None else path
    again = f", compile #{nth + 1}" if nth else ""
    return f"{_rank_prefix(rank, multi)}{function}() at {where}{again} ({frame.compile_id})"


def _breaks(side: _Side) -> Counter[tuple[Rank, str, int | None, str]]:
    counts: Counter[tuple[Rank, str, int | None, str]] = Counter()
    for f in side.frames.values():
        for gb in f.graph_breaks:
            counts[(f.rank, side.path(gb.filename), gb.line, _text(gb.reason))] += 1
    return counts


def _break_changes(sa: _Side, sb: _Side, multi: bool) -> list[Change]:
    ba, bb = _breaks(sa), _breaks(sb)
    out = []
    for key in sorted(ba.keys() | bb.keys(), key=lambda k: (str(k[0]), k[1], k[2] or 0, k[3])):
        rank, path, line, reason = key
        what = (
            f"{_rank_prefix(rank, multi)}{path}:{line if line is not None else '?'}  {one_line(reason, 100)}"
        )
        before, after = ba.get(key, 0), bb.get(key, 0)
        if before == after:
            continue
        change = "fixed" if not after else "new" if not before else "count"
        out.append(Change("graph_break", change, what, before, after, rank=rank))
    return out


def _recompiles(side: _Side) -> Counter[tuple[Rank, str, str, str]]:
    counts: Counter[tuple[Rank, str, str, str]] = Counter()
    for f in side.frames.values():
        for rc in f.recompiles:
            reason = without_id_prefix(_text(rc.guard or rc.text))
            counts[(f.rank, side.path(f.filename), f.function or "?", reason)] += 1
    return counts


def _recompile_changes(sa: _Side, sb: _Side, multi: bool) -> list[Change]:
    ra, rb = _recompiles(sa), _recompiles(sb)
    out = []
    for key in sorted(ra.keys() | rb.keys(), key=lambda k: (str(k[0]), k[1], k[2], k[3])):
        before, after = ra.get(key, 0), rb.get(key, 0)
        if before == after:
            continue
        rank, path, function, reason = key
        what = f"{_rank_prefix(rank, multi)}{function}() in {path}: {one_line(reason, 100)}"
        change = "removed" if not after else "added" if not before else "count"
        out.append(Change("recompile", change, what, before, after, rank=rank))
    return out


def _kernel_changes(
    key: RunMatch, fa: Frame, fb: Frame, sa: _Side, sb: _Side, multi: bool
) -> tuple[list[Change], list[TimeChange]]:
    ka = _by_signature(sa.frame_kernels(fa))
    kb = _by_signature(sb.frame_kernels(fb))
    frame = f"{_rank_prefix(key[0], multi)}{key[2]}()"
    changes: list[Change] = []
    times: list[TimeChange] = []
    for sig in sorted(ka.keys() | kb.keys()):
        left, right = ka.get(sig, []), kb.get(sig, [])
        for k in left[len(right) :]:
            changes.append(Change("kernel", "removed", f"{frame} {k.graph_kind}: {k.name}", rank=key[0]))
        for k in right[len(left) :]:
            changes.append(Change("kernel", "added", f"{frame} {k.graph_kind}: {k.name}", rank=key[0]))
        for x, y in zip(left, right, strict=False):
            what = f"{frame} {y.graph_kind}: {y.name}"
            if _changed(sa.report, x, sb.report, y):
                changes.append(Change("kernel", "changed", what, x.name, y.name, rank=key[0]))
            if x.time is not None and y.time is not None and x.time.calls and y.time.calls:
                times.append(replace(time_change(what, x.time, y.time), rank=key[0]))
    return changes, times


def _by_signature(kernels: Iterable[Kernel]) -> dict[tuple[str, str], list[Kernel]]:
    out: dict[tuple[str, str], list[Kernel]] = {}
    for k in kernels:
        out.setdefault((k.graph_kind, op_signature(k)), []).append(k)
    return out


def _changed(ra: Report, ka: Kernel, rb: Report, kb: Kernel) -> bool:
    if ka.language != kb.language or ka.kind != kb.kind:
        return True
    if ka.language == "extern":
        return False  # a library call: its "source" is the call site, which names buffers
    return _source_digest(ra.kernel_source(ka), ka.name) != _source_digest(rb.kernel_source(kb), kb.name)
