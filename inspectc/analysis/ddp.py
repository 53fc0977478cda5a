"""DDPOptimizer's graph splits, and graph breaks inside DDP's own wrapper. No torch.

DDP + ``torch.compile``: Dynamo's DDPOptimizer splits a frame's graph at DDP's gradient
bucket boundaries and compiles each piece as a submodule. torch logs that as
two raw records (and counts the pieces in its graph-break count), which
:mod:`inspectc.model.decode.ddp` reads; :func:`ddp_splits` shows them as DDP splits, not as
graph breaks. Graph breaks inside DDP's own Python wrapper
(``torch/nn/parallel/distributed.py``) are real breaks of torch's code, labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspectc.model import CompileId, Frame
from inspectc.model.decode import ddp
from inspectc.store.reader import Report

DDP_WRAPPER_FILE = "torch/nn/parallel/distributed.py"
MAX_SHOWN = 12

Rank = int | None


@dataclass(frozen=True, slots=True)
class DdpSplit:
    """A frame whose graph DDPOptimizer split into submodules at bucket boundaries."""

    compile_id: CompileId  # with the rank
    submodules: tuple[str, ...]

    @property
    def rank(self) -> Rank:
        return self.compile_id.rank


def ddp_splits(report: Report) -> list[DdpSplit]:
    """Frames whose graph DDPOptimizer split, with their submodule names, in frame order."""
    out = []
    for f in report.frames:
        if not _may_have_splits(f):
            continue
        names = ddp.submodules((e.name, e.metadata) for e in report.events(f.compile_id))
        if names is not None:
            out.append(DdpSplit(compile_id=f.compile_id, submodules=names))
    return out


def _may_have_splits(frame: Frame) -> bool:
    # The builder counts events it does not interpret (these two among them); torch counts
    # the pieces as graph breaks in its own metrics. Either says: look at the raw events.
    torch_breaks = ddp.torch_break_count(frame.metrics.extra)
    return frame.unknown_events > 0 or (torch_breaks is not None and torch_breaks > len(frame.graph_breaks))


def in_ddp_wrapper(frame: Frame) -> bool:
    """True when a frame's graph breaks happen inside DDP's Python wrapper (torch's code)."""
    if not frame.graph_breaks:
        return False
    paths = [frame.filename] + [s.filename for s in frame.user_stack]
    for gb in frame.graph_breaks:
        paths.append(gb.filename)
        paths.extend(s.filename for s in gb.user_stack)
    return any(p and p.replace("\\", "/").endswith(DDP_WRAPPER_FILE) for p in paths)


def export_ddp_splits(report: Report) -> list[dict[str, Any]]:
    return [
        {"rank": s.rank, "compile_id": str(s.compile_id), "submodules": list(s.submodules)}
        for s in ddp_splits(report)
    ]
