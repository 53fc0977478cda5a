"""What each graph break and recompile costs, measured, and which to fix first. No torch.

A break's cost is the time its frame spends outside compiled code between the end of its last
graph call and the entry of the resume function the break made (``model/costs.py``: capture
measures it per call, in its profiler windows), pooled over the break's frames (a recompiled
frame breaks at the same line again). Its share is of the whole call of the top-level frame it
runs in. On CUDA the cost is the device's idle time over that gap: a host gap the device did
not wait for (it still had queued kernels) costs nothing; the finding says which the call
waits on. A recompile costs the compile it caused (its frame's compile seconds).

A break torch places on purpose (``torch.optim``'s ``_use_grad``, a ``graph_break()`` inside
torch, DDP's wrapper) is *intended*: it gets no "remove the call" advice and ``check`` can
leave it out.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inspectc.analysis.ddp import DDP_WRAPPER_FILE
from inspectc.analysis.views import BreakGroup, break_groups
from inspectc.model import KIND_RECOMPILE_LIMIT, Frame, GraphBreak, KernelTime, Recompile
from inspectc.model.costs import WAITS_ON_DEVICE, WAITS_ON_HOST, EagerFrame, RegionGaps
from inspectc.model.decode.resume import resumed_function
from inspectc.model.stats import summary

CHEAP_US = 50.0  # a break under this per call is cheap...
CHEAP_SHARE = 0.01  # ...and so is one under 1% of its call
IDLE_SHARE = 0.5  # device idle under half the host gap: the device had work queued

_TORCH_FILE = re.compile(r"(?:^|[/\\])torch[/\\](?:optim|_dynamo|nn[/\\]parallel|distributed|utils)[/\\]")
_INTENDED_WHY = {
    "optim": "torch.optim breaks here on purpose (the optimizer step runs outside the model's graph)",
    "ddp": "DDP's own wrapper breaks here (torch's code around your model)",
    "torch": "torch places this graph_break() itself",
}


@dataclass(frozen=True, slots=True)
class BreakCost:
    """A break group with what it measured to cost (``gap``: host µs per occurrence)."""

    group: BreakGroup
    gap: KernelTime | None = None
    device: KernelTime | None = None  # CUDA: the device's idle time over the gap
    call: KernelTime | None = None  # the top-level call the break happens in
    intended: str | None = None  # why torch breaks here on purpose (None: the user's break)

    @property
    def measured(self) -> bool:
        return self.gap is not None and self.gap.calls > 0

    @property
    def waits_on(self) -> str | None:
        """``host`` (the device idled as long: the gap costs the call) or ``device`` (the
        device had queued work: the gap is hidden); None on CPU or unmeasured."""
        if self.device is None or self.gap is None or not self.gap.typical_us:
            return None
        hidden = self.device.typical_us < IDLE_SHARE * self.gap.typical_us
        return WAITS_ON_DEVICE if hidden else WAITS_ON_HOST

    @property
    def cost_us(self) -> float | None:
        """What the break costs per occurrence: the device's idle time on CUDA, else host time."""
        if self.device is not None:
            return self.device.typical_us
        return self.gap.typical_us if self.gap is not None else None

    @property
    def share(self) -> float | None:
        cost = self.cost_us
        if cost is None or self.call is None or not self.call.typical_us:
            return None
        return min(cost / self.call.typical_us, 1.0)

    @property
    def cheap(self) -> bool:
        cost = self.cost_us
        return cost is not None and (cost < CHEAP_US or (self.share or 1.0) < CHEAP_SHARE)


@dataclass(frozen=True, slots=True)
class RecompileCost:
    """A recompile and the compile it caused; at the recompile limit, the calls that then ran
    eagerly instead (*eager*: counted by capture, None: not recorded)."""

    frame: Frame  # the frame compiled again (or refused at the limit)
    recompile: Recompile
    compile_s: float | None  # its compile time (torch's entire_frame_s)
    eager: EagerFrame | None = None

    @property
    def limit_hit(self) -> bool:
        return self.frame.kind == KIND_RECOMPILE_LIMIT

    @property
    def eager_s(self) -> float:
        """Seconds the eager calls took in all (0: none, or not timed)."""
        t = self.eager.time if self.eager is not None else None
        return (
            (t.mean_us * (self.eager.calls or 0)) / 1e6 if t is not None and self.eager is not None else 0.0
        )


def intended(gb: GraphBreak) -> str | None:
    """Why torch breaks here on purpose, when it does (None: a break of the user's code)."""
    path = (gb.filename or "").replace("\\", "/")
    if path.endswith(DDP_WRAPPER_FILE):
        return _INTENDED_WHY["ddp"]
    if not _TORCH_FILE.search(path):
        return None
    if "/optim/" in path:
        return _INTENDED_WHY["optim"]
    if "graph_break()" in (gb.gb_type or gb.reason):
        return _INTENDED_WHY["torch"]
    return None


def _pooled(times: Sequence[KernelTime]) -> KernelTime | None:
    """Several measurements of one thing as one (their samples together)."""
    if not times:
        return None
    if len(times) == 1:
        return times[0]
    kept = [s for t in times for s in t.samples]
    found = summary(
        kept,
        n=sum(t.calls for t in times),
        total=sum(t.total_us for t in times),
        low=min(t.min_us for t in times),
        high=max(t.max_us for t in times),
    )
    median = found.get("median_us") if kept else statistics.median(t.typical_us for t in times)
    return KernelTime(
        calls=found["calls"],
        total_us=found["total_us"],
        mean_us=found["mean_us"],
        min_us=found["min_us"],
        max_us=found["max_us"],
        median_us=median,
        p90_us=found.get("p90_us"),
        cv=found.get("cv"),
        samples=tuple(kept),
    )


def _break_of(before: Frame, after: Frame) -> GraphBreak | None:
    """The break of *before* whose resume function *after* is (by the line it resumes at)."""
    resumed = resumed_function(after.function)
    if resumed is None:
        return None
    line = resumed[1]
    found = [gb for gb in before.graph_breaks if gb.line == line]
    return found[0] if found else None


def break_costs(frames: Sequence[Frame], measured: Iterable[RegionGaps]) -> list[BreakCost]:
    """Every break group with its measured cost, the dearest first (unmeasured ones last)."""
    by_id: dict[tuple[int | None, str], Frame] = {
        (f.rank, str(f.compile_id.without_rank())): f for f in frames
    }
    gaps: dict[tuple[str | None, int | None, str], list[KernelTime]] = {}
    device: dict[tuple[str | None, int | None, str], list[KernelTime]] = {}
    calls: dict[tuple[str | None, int | None, str], list[KernelTime]] = {}
    for process in measured:
        tops = {c.compile_id: c.host for c in process.calls}
        parent = {g.after: g.before for g in process.gaps}
        for g in process.gaps:
            before, after = by_id.get((process.rank, g.before)), by_id.get((process.rank, g.after))
            gb = _break_of(before, after) if before is not None and after is not None else None
            if gb is None:
                continue
            key = (gb.filename, gb.line, gb.reason)
            gaps.setdefault(key, []).append(g.host)
            if g.device is not None:
                device.setdefault(key, []).append(g.device)
            top = _top(g.before, parent)
            if top in tops:
                calls.setdefault(key, []).append(tops[top])
    out = []
    for group in break_groups(frames):
        key = (group.filename, group.line, group.reason)
        out.append(
            BreakCost(
                group=group,
                gap=_pooled(gaps.get(key, [])),
                device=_pooled(device.get(key, [])),
                call=_pooled(calls.get(key, [])),
                intended=intended(group.example),
            )
        )
    return sorted(out, key=lambda c: (not c.measured, -(c.cost_us or 0.0), -c.group.count))


def _top(cid: str, parent: dict[str, str]) -> str:
    seen = {cid}
    while cid in parent and parent[cid] not in seen:
        cid = parent[cid]
        seen.add(cid)
    return cid


def recompile_costs(frames: Sequence[Frame], eager: Sequence[EagerFrame] = ()) -> list[RecompileCost]:
    """Every recompile with the compile time it caused and, at the limit, the calls that ran
    eagerly: limit hits first, then the dearest compile first."""
    by_id = {(e.rank, e.compile_id): e for e in eager}
    out = [
        RecompileCost(
            frame=f,
            recompile=r,
            compile_s=f.metrics.entire_frame_s,
            eager=by_id.get((f.rank, str(f.compile_id))) if f.kind == KIND_RECOMPILE_LIMIT else None,
        )
        for f in frames
        for r in f.recompiles[:1]  # one compile per recompiled frame, whatever guards failed
    ]
    # a limit hit first (its new inputs run eagerly on every call), the most eager calls first
    return sorted(
        out,
        key=lambda c: (
            not c.limit_hit,
            -((c.eager.calls or 0) if c.eager else 0),
            -(c.eager_s + (c.compile_s or 0.0)),
        ),
    )
