"""Calls that ran eagerly because a frame hit the recompile limit. No torch.

When a frame's compiles reach ``torch._dynamo.config.recompile_limit`` (``cache_size_limit``
before 2.6), Dynamo refuses the next compile and from then on runs that code object's cached
graphs only: a call none of them guards for runs eagerly, silently, every time. torch logs the
refusal once (a ``compilation_metrics`` record whose failure names the limit) and never again.

A watcher on the trace records (:attr:`inspectc.capture.recorder.Recorder.watchers`) learns each
frame's code location from its ``compilation_metrics``; at a refusal it finds that code object
(on the compiling stack, else among live functions) and, on Python 3.12 and later, counts its
calls with :mod:`sys.monitoring` local events on that one code object: a call Dynamo serves from
its cache runs the transformed code, so every ``PY_START`` of the original code from then on is
an eager call (the refused one included), timed to its ``PY_RETURN``. Nothing else is
instrumented, so the rest of the program runs at full speed. On Python 3.11 (no
``sys.monitoring``) the refusal is recorded with the calls "not recorded".

Emits one ``inspectc_eager_calls`` record (``model/costs.py``) when capture stops.
"""

from __future__ import annotations

import gc
import re
import sys
import threading
import time
import types
from typing import Any

from inspectc.model import CompileId
from inspectc.model.costs import EagerFrame, eager_record, kernel_time
from inspectc.model.stats import Samples
from inspectc.trace import live

_LIMIT = re.compile(r"recompile.limit|cache.size.limit|cache_size_limit", re.IGNORECASE)
_TOOL_NAME = "inspectc"
_MAX_FRAMES = 64  # refused frames counted at once
_MAX_STACK = 64  # open calls per code object (recursion; an exception leaves one open)

Where = tuple[str, str, int]  # (co_name, co_filename, co_firstlineno)


class EagerCalls:
    """Watches the trace records; counts the eager calls of every frame refused at the limit."""

    def __init__(self) -> None:
        self._where: dict[tuple[int | None, int | None], Where] = {}  # frame (of "0/2") -> its code
        self._refused: dict[str, dict[str, Any]] = {}  # compile id -> what is known of it
        self._codes: dict[types.CodeType, str] = {}  # code object counted -> compile id refused
        self._calls: dict[str, int] = {}
        self._times: dict[str, Samples] = {}
        self._open: dict[types.CodeType, list[float]] = {}
        self._lock = threading.Lock()
        self._tool: int | None = None
        self.why_not: str | None = None if hasattr(sys, "monitoring") else "Python 3.11 has no sys.monitoring"

    def observe(self, metadata: dict[str, Any], payload: str | None) -> None:
        """A trace record, before the builder: a frame's metrics, or its refusal at the limit."""
        ended = live.ended_frame(metadata)
        if ended is None:
            return
        cid, found, reason = ended
        key = _frame_key(cid)
        if found is not None:
            self._where.setdefault(key, found)
        if not _LIMIT.search(reason) or cid in self._refused or len(self._refused) >= _MAX_FRAMES:
            return
        where = self._where.get(key)
        self._refused[cid] = {"compile_id": cid, "where": where}
        if where is None or self.why_not is not None:
            return
        code = _find_code(where)
        if code is None:
            self._refused[cid]["why_not"] = "its code object was not found"
            return
        self._count(code, cid)

    def _count(self, code: types.CodeType, cid: str) -> None:
        mon = sys.monitoring  # type: ignore[attr-defined]  # Python 3.12+
        if self._tool is None:
            tool = next((t for t in (4, 3, 5) if mon.get_tool(t) is None), None)
            if tool is None:
                self.why_not = "every sys.monitoring tool id is taken"
                return
            mon.use_tool_id(tool, _TOOL_NAME)
            mon.register_callback(tool, mon.events.PY_START, self._start)
            mon.register_callback(tool, mon.events.PY_RETURN, self._return)
            self._tool = tool
        if code in self._codes:
            return
        self._codes[code] = cid
        self._calls[cid] = 0
        mon.set_local_events(self._tool, code, mon.events.PY_START | mon.events.PY_RETURN)

    def _start(self, code: types.CodeType, offset: int) -> Any:
        cid = self._codes.get(code)
        if cid is None:
            return sys.monitoring.DISABLE  # type: ignore[attr-defined]
        with self._lock:
            self._calls[cid] += 1
            stack = self._open.setdefault(code, [])
            if len(stack) < _MAX_STACK:
                stack.append(time.perf_counter())
        return None

    def _return(self, code: types.CodeType, offset: int, value: Any) -> Any:
        cid = self._codes.get(code)
        if cid is None:
            return sys.monitoring.DISABLE  # type: ignore[attr-defined]
        with self._lock:
            stack = self._open.get(code)
            if stack:
                self._times.setdefault(cid, Samples()).add((time.perf_counter() - stack.pop()) * 1e6)
        return None

    def stop(self) -> None:
        """Stop counting (the program is over); idempotent."""
        if self._tool is None:
            return
        mon = sys.monitoring  # type: ignore[attr-defined]
        for code in self._codes:
            mon.set_local_events(self._tool, code, 0)
        mon.register_callback(self._tool, mon.events.PY_START, None)
        mon.register_callback(self._tool, mon.events.PY_RETURN, None)
        mon.free_tool_id(self._tool)
        self._tool = None

    def record(self) -> tuple[dict[str, Any], str] | None:
        """The ``inspectc_eager_calls`` record (metadata, payload); None when no frame was refused."""
        if not self._refused:
            return None
        frames = []
        for cid, known in self._refused.items():
            where: Where | None = known.get("where")
            why = known.get("why_not") or self.why_not
            if where is None:
                why = why or "the frame's code location was not logged"
            counted = why is None and cid in self._calls
            times = self._times.get(cid)
            frames.append(
                EagerFrame(
                    compile_id=cid,
                    function=where[0] if where else None,
                    filename=where[1] if where else None,
                    line=where[2] if where else None,
                    calls=self._calls[cid] if counted else None,
                    time=kernel_time(times.as_dict(with_samples=False), times.kept)
                    if counted and times is not None and times.n
                    else None,
                    why_not=None if counted else why,
                )
            )
        return eager_record(frames)


def _frame_key(cid: str) -> tuple[int | None, int | None]:
    """ "0/2" and "0/0" -> the same frame: (compiled autograd's id, the frame's)."""
    parsed = CompileId.parse(cid)
    return parsed.autograd, parsed.frame


def _find_code(where: Where) -> types.CodeType | None:
    """The code object at *where*: on the compiling stack (Dynamo's convert_frame holds the
    frame it refused), else the ``__code__`` of a live function."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            code = value
            if not isinstance(value, types.CodeType) and "Frame" in type(value).__name__:
                code = getattr(value, "f_code", None)  # Dynamo's frame (a C type, no __getattr__)
            if isinstance(code, types.CodeType) and _is(code, where):
                return code
        frame = frame.f_back
    for obj in gc.get_objects():
        code = getattr(obj, "__code__", None) if isinstance(obj, types.FunctionType) else None
        if isinstance(code, types.CodeType) and _is(code, where):
            return code
    return None


def _is(code: types.CodeType, where: Where) -> bool:
    return (code.co_name, code.co_filename, code.co_firstlineno) == where
