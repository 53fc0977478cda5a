"""Stable anchors for a report's frames, breaks and kernels (``report.html#frame-0-1``).

An anchor is made from what the thing is, never from its position on a page, so a link
pasted into an issue comment keeps pointing at the same frame or kernel.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

from inspectc.model import CompileId, Kernel

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _part(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-") or "x"


def frame_anchor(cid: CompileId) -> str:
    """``frame-0-1``; ``frame-r1-0-1`` on rank 1; ``frame-c1-0-0`` for compiled autograd."""
    return "frame-" + _part(cid.label.replace(" ", "-").replace("!", "c"))


def break_anchor(filename: str | None, line: int | None, reason: str) -> str:
    """``break-graph_breaks.py-24-3f2a1b``: the place, and a digest of the reason."""
    digest = hashlib.sha1(reason.encode("utf-8", "replace")).hexdigest()[:6]  # noqa: S324 - a name
    name = (filename or "?").replace("\\", "/").rsplit("/", 1)[-1]
    return f"break-{_part(name)}-{line if line is not None else 0}-{digest}"


class KernelAnchors:
    """``kernel-triton_poi_fused_add_0``, the frame added where two frames share a name."""

    def __init__(self, kernels: Iterable[Kernel]) -> None:
        self._names = Counter(k.name for k in kernels)

    def __call__(self, kernel: Kernel) -> str:
        anchor = "kernel-" + _part(kernel.name)
        if self._names[kernel.name] > 1:
            anchor += "-" + frame_anchor(kernel.compile_id).removeprefix("frame-")
            if kernel.graph_kind.endswith("_backward"):
                anchor += "-bwd"
        return anchor
