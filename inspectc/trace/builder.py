"""Structured-trace events -> report rows. The one place that knows torch's event formats.

Live capture and ``inspectc import`` both feed events here (metadata dict + payload text),
so a captured and an imported run give the same report. Every event is stored raw; the
events this module understands also update the frame they belong to. No torch import:
formats of several torch versions are handled by tolerant parsing, and a field a version
lacks stays ``None``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from inspectc.errors import RankConflict
from inspectc.model import Frame, GraphBreak, StackFrame
from inspectc.model.costs import EAGER_EVENT, GAPS_EVENT
from inspectc.trace import kernels, phases, resume, timings
from inspectc.trace.account import RecordAccount, account_name
from inspectc.trace.frames import FrameState, cut_short, piece_kind
from inspectc.trace.own import is_own_frame, users_frames  # noqa: F401 - is_own_frame re-exported
from inspectc.trace.payloads import breaks, ddp, export, guards
from inspectc.trace.payloads import extras as compile_extras
from inspectc.trace.records import MalformedRecord, StringTable, compile_id, event_name
from inspectc.trace.run_records import RunRecordsBuilder
from inspectc.trace.sink import Sink

# Events that belong to a frame but carry nothing for the structured view (kept raw).
# (compile_extras.EVENTS -- autotuning, CUDA graphs, symbolic shapes -- go to _on_extra.)
_QUIET = {
    "guard_added",
    "propagate_real_tensors",
    "str",
    "link",
}

# Events of a frame kept raw and read on demand through trace.payloads.ddp (DDP splits).
_READ_BY_READERS = ddp.EVENTS

# Graph events: event name -> graph kind.
_GRAPH_EVENTS = {
    "dynamo_output_graph": "dynamo",
    "aot_forward_graph": "aot_forward",
    "aot_backward_graph": "aot_backward",
    "aot_inference_graph": "aot_inference",
    "aot_joint_graph": "aot_joint",
    "inductor_post_grad_graph": "post_grad",  # 2.4-2.7 cold; 2.8+ an FX-graph-cache hit
    "artifact:inductor_post_grad_graph": "post_grad",  # 2.10+ cold compile
    "artifact:after_post_grad_graph": "post_grad",  # 2.8-2.9 cold compile
    "inductor_pre_grad_graph": "pre_grad",
    "artifact:after_pre_grad_graph": "pre_grad",
    "artifact:fx_graph_runnable": "fx_graph_runnable",
    "dynamo_cpp_guards_str": "guards",
    "compiled_autograd_graph": "compiled_autograd",  # on the compiled-autograd id ("!0")
}

FRAME_WRITE_S = 0.05
MAX_ERRORS = 50  # malformed records kept in errors for capture (the importer counts them all)
MAX_RANK = 10**9  # a record naming a larger (or negative) rank is read as naming none (a stranger's log)

_CACHE_EVENT = re.compile(r"^artifact:(fx_graph|aotautograd)_cache_(hit|miss|bypass)$")
_AOT_ID = re.compile(r"#\s*AOT ID:\s*\[?'?(\S*?)'?\]?\s*$", re.MULTILINE)


class Builder:
    """Feeds events into a :class:`Sink`, keeping per-frame state in memory."""

    def __init__(
        self,
        writer: Sink,
        *,
        rank: int | None = None,
        on_frame: Callable[[Frame], None] | None = None,
        strict_rank: bool = False,
        name_rank: bool = False,
    ) -> None:
        self.writer = writer
        self.rank = rank
        self.strict_rank = strict_rank  # import: a record of another rank than its file's is refused
        self.name_rank = name_rank  # import: the file's name gives the rank of all its records
        self.strings = StringTable()
        self.frames: dict[tuple[int | None, str], FrameState] = {}  # latest entry of each id
        self.entries: list[FrameState] = []  # every entry, in order
        self._seen: dict[tuple[int | None, str], int] = {}
        self.account = RecordAccount()
        self.run_phases = phases.Phases()  # chromium spans and tensors outside any compile
        self.torch_version: str | None = None
        self.event_count = 0
        self.errors: list[str] = []  # what could not be read (capture records them)
        self._on_frame = on_frame
        # A frame's JSON is rewritten at most every FRAME_WRITE_S while events pour in (a
        # compile sends hundreds): re-serialising it after each one was most of capture's own
        # time. Pending frames are written at the next event after that, and at finish().
        self._written_at: dict[tuple[int | None, str], float] = {}
        self._pending: dict[tuple[int | None, str], FrameState] = {}
        self.run_records = RunRecordsBuilder(writer, self.strings.resolve)  # beside the frames

    # -- entry point -------------------------------------------------------------------
    def feed(self, metadata: dict[str, Any], payload: str | None, ts: float | None = None) -> str | None:
        """Store one record and read it; a malformed one (kept raw): why, else None."""
        if self._pending:
            self._write_pending(time.monotonic() - FRAME_WRITE_S)
        name = event_name(metadata)
        cid = compile_id(metadata)
        rank = self._rank_of(metadata)
        # A compile id Dynamo starts again (torch._dynamo.reset(), a cache hit after a miss)
        # is a new entry: its records go to it, stored under its own key ("0/0#2").
        state = self._frame(rank, cid, again=name == "dynamo_start") if cid is not None else None
        seq = self.writer.add_event(
            name=name,
            metadata=metadata,
            payload=payload,
            compile_id=state.compile_id if state is not None else None,
            rank=rank,
            ts=ts,
        )
        self.event_count += 1
        if state is not None and isinstance(metadata.get("attempt"), int):
            state.attempt_ids.add(metadata["attempt"])
        try:
            used = self._use(state, name, metadata, payload, cid, rank, seq)
        except MalformedRecord as exc:  # kept raw (stored above), read no further
            self.account.settle(account_name(name, metadata), False)
            if len(self.errors) < MAX_ERRORS:
                self.errors.append(f"malformed {name} record: {exc}")
            return f"malformed {name} record: {exc}"
        self.account.settle(account_name(name, metadata), used)
        return None

    def _use(
        self,
        state: FrameState | None,
        name: str,
        md: dict[str, Any],
        payload: str | None,
        cid: str | None,
        rank: int | None,
        seq: int,
    ) -> bool:
        """Give the record to what reads it; True when something did (the account)."""
        if name == "str":
            return self.strings.add(md)
        if name == "artifact:torch_version":
            return self._torch_version(payload)
        used = self.run_records.feed(name, md, payload, cid, rank, seq)
        if name in phases.NAMES:
            used = (state.phases if state is not None else self.run_phases).feed(name, md, payload) or used
        if name in compile_extras.EVENTS:
            return self._on_extra(name, md, payload, cid, rank) or used
        if state is None:
            if name in (GAPS_EVENT, EAGER_EVENT):  # capture's: Report.region_gaps(), eager_calls()
                return True
            if name == "inspectc_kernel_times":  # capture could not tie it to a compile id
                with _figures():
                    return self._place_times(rank, payload) or used
            if name in ("compilation_metrics", "dynamo_cpp_guards_str") and not used:
                return self._frameless(rank, name, md, payload)
            return used
        handler = _HANDLERS.get(name)
        if handler is None:
            if name in _GRAPH_EVENTS:
                handler = Builder._on_graph
            elif _CACHE_EVENT.match(name):
                handler = Builder._on_cache
            elif name in _READ_BY_READERS:
                return True
            elif name in _QUIET or name.startswith("artifact:") or name in phases.NAMES:
                return used
            else:
                state.unknown_events += 1
                self._put(state)
                return used
        done = handler(self, state, name, md, payload, seq)
        self._put(state)
        return done is not False or used

    def interrupted(self) -> None:
        """SIGINT/SIGTERM ended the run: mark the compiles it cut short (``frames.cut_short``)."""
        for state in cut_short(self.entries):
            state.interrupted = True
            self._put(state, now=True)

    def finish(self) -> None:
        resume.name_orphans(self.entries)
        resume.place_restart_breaks(self.entries)
        for state in self.entries:
            self._flush_post_grad(state, backward=False)
            self._put(state, now=True)
        self.run_records.finish(self.rank)
        self.account.write(self.writer, self.rank, self.run_phases.plain())
        self.writer.flush()

    def _rank_of(self, metadata: dict[str, Any]) -> int | None:
        """One rule: the record's ``rank`` key, else the file's rank (its name), else none.
        A record that names another rank than the file's is refused, never merged."""
        rank = metadata.get("rank")
        if not isinstance(rank, int) or isinstance(rank, bool) or self.name_rank or not 0 <= rank < MAX_RANK:
            return self.rank
        if self.rank is not None and rank != self.rank and self.strict_rank:
            raise RankConflict(self.rank, rank)
        return rank

    def _on_extra(
        self, name: str, metadata: dict[str, Any], payload: str | None, cid: str | None, rank: int | None
    ) -> bool:
        found = compile_extras.read_event(name, metadata, payload, self.strings.resolve)
        if found is None:
            return False
        if cid is None:
            # Run-time events (a CUDA graph recorded) name their compile id in the payload.
            if found.compile_id is None or (rank, found.compile_id) not in self.frames:
                return False
        state = self._frame(rank, cid or found.compile_id or "")
        if state.extras is None:
            state.extras = compile_extras.FrameExtras()
        state.extras.add(found)
        if cid is None or state.finished:
            self._put(state)  # compile-time events: the frame is written when it finishes
        return True

    # -- helpers -----------------------------------------------------------------------
    def _frame(self, rank: int | None, cid: str, *, again: bool = False) -> FrameState:
        key = (rank, cid)
        state = self.frames.get(key)
        if state is None or (again and state.finished):
            seen = self._seen[key] = self._seen.get(key, 0) + 1
            entry = cid if seen == 1 else f"{cid}#{seen}"
            state = FrameState(compile_id=entry, rank=rank, ordinal=len(self.entries))
            self.frames[key] = state  # the latest entry of the id gets its records
            self.entries.append(state)
        return state

    def _put(self, state: FrameState, *, now: bool = False) -> None:
        key = (state.rank, state.compile_id)
        t = time.monotonic()
        last = self._written_at.get(key)
        if not now and last is not None and t - last < FRAME_WRITE_S:
            self._pending[key] = state
            return
        self._pending.pop(key, None)
        self._written_at[key] = t
        frame = state.freeze()
        self.writer.put_frame(frame)
        if self._on_frame is not None:
            self._on_frame(frame)

    def _write_pending(self, before: float) -> None:
        for key, state in list(self._pending.items()):
            if self._written_at.get(key, 0.0) <= before:
                self._put(state, now=True)

    def write_pending(self) -> None:
        """Write every frame held back (before a commit that must keep them)."""
        self._write_pending(float("inf"))

    def _stack(self, entries: Any) -> tuple[StackFrame, ...]:
        return users_frames(export.stack(entries, self.strings.resolve))

    def _torch_version(self, payload: str | None) -> bool:
        try:
            data = json.loads(payload or "")
        except ValueError:
            return False
        if isinstance(data, dict) and isinstance(data.get("pytorch_version"), str):
            self.torch_version = data["pytorch_version"]
            return True
        return False

    # -- handlers (signature: self, state, name, metadata, payload, seq) --------------
    def _on_dynamo_start(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        st.attempts += 1
        start = md.get("dynamo_start")
        stack = self._stack(start.get("stack") if isinstance(start, dict) else None)
        if stack:
            st.user_stack = stack
            top = stack[-1]
            st.function = st.function or top.function
            st.filename = st.filename or top.filename
            st.line = st.line if st.line is not None else top.line

    def _on_graph_break(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        if not payload:
            return False
        st.graph_breaks.append(_graph_break(payload))
        return True

    def _on_recompile(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        found = breaks.parse_recompile_reasons(payload or "")
        if found is not None:
            st.recompiles.append(found)
        return found is not None

    def _on_graph(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        if payload is None:
            return False
        kind = _GRAPH_EVENTS[name]
        if kind == "post_grad":
            # Forward or backward is only known when its output code arrives: hold it.
            self._flush_post_grad(st, backward=False)
            st.pending_post_grad = seq
            return True
        if kind == "dynamo":
            st.dynamo_text = payload
        if kind == "guards":
            st.guards = tuple(guards.parse_guards(payload))
        self._add_graph(st, kind, seq)
        return True

    def _flush_post_grad(self, st: FrameState, *, backward: bool) -> None:
        if st.pending_post_grad is not None:
            kind = piece_kind("post_grad", st.graph_kinds, backward)
            self._add_graph(st, kind, st.pending_post_grad)
            st.pending_post_grad = None

    def _add_graph(self, st: FrameState, kind: str, seq: int) -> None:
        self.writer.put_graph(rank=st.rank, compile_id=st.compile_id, kind=kind, seq=seq)
        if kind not in st.graph_kinds:
            st.graph_kinds.append(kind)

    def _on_output_code(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        if payload is None:
            return False
        match = _AOT_ID.search(payload[:2000])
        if match:
            backward = "backward" in match.group(1)
        else:  # older torch: no AOT ID header; the second module of a frame is its backward
            backward = "output_code" in st.graph_kinds
        self._flush_post_grad(st, backward=backward)
        kind = piece_kind("output_code", st.graph_kinds, backward)
        self._add_graph(st, kind, seq)
        kernels.add_output_code(self.writer, st, payload, seq, kind)
        return True

    def _on_cache(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        match = _CACHE_EVENT.match(name)
        if match is not None:
            st.apply_cache(
                "fx_graph" if match.group(1) == "fx_graph" else "aot_autograd", match.group(2), payload
            )

    def _on_provenance(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        kernels.read_provenance(st, name, payload)
        try:
            kernels.apply_provenance(self.writer, st)
        except ValueError as exc:  # provenance's own error: recorded, the kernels keep no groups
            self.errors.append(f"frame {st.compile_id}: {exc}")

    def _on_kernel_times(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        with _figures():
            return timings.apply_times(self.writer, st, payload)

    def _on_guards_json(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        found = guards.parse_guard_list(payload)  # older torch: dynamo_guards, a JSON list
        if found is None:
            return False
        st.guards = st.guards or found
        return True

    def _on_kernel_nodes(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        if not kernels.read_kernel_nodes(st, payload):
            return False
        self._on_provenance_applied(st)
        return True

    def _on_provenance_applied(self, st: FrameState) -> None:
        try:
            kernels.apply_provenance(self.writer, st)
        except ValueError as exc:  # provenance's own error: recorded, the kernels keep no groups
            self.errors.append(f"frame {st.compile_id}: {exc}")

    def _frameless(self, rank: int | None, name: str, md: dict[str, Any], payload: str | None) -> bool:
        """A guard tree or ``compilation_metrics`` without a compile id: a strict
        ``torch.export`` (Dynamo traced it with no ``dynamo_start``). They belong to the rank's
        last frame that has records but neither started nor finished; with none, they stay raw."""
        data = md.get(name)
        waiting = [s for s in self.entries if s.rank == rank and not s.finished and s.attempts == 0]
        if not isinstance(data, dict) or not waiting:
            return False
        state = waiting[-1]
        if not state.export_record(name, data, payload, self._stack(md.get("stack")), _graph_break):
            return False
        self._put(state, now=True)
        return True

    def _place_times(self, rank: int | None, payload: str | None) -> bool:
        """Timings capture could not tie to a compile id (no FX graph key): by kernel names."""
        states = [st for st in self.entries if st.rank == rank]
        placed, left = timings.place_times(states, payload)
        for st, part in placed:
            timings.apply_times(self.writer, st, part)
            self._put(st)
        if left:
            self.errors.append(
                f"kernel timings: {left} graph(s) without an FX graph key matched no single frame "
                "by kernel names (not applied)"
            )
        return bool(placed)

    def _on_metrics(self, st: FrameState, name: str, md: dict, payload: str | None, seq: int) -> bool:
        data = md.get(name)
        if not isinstance(data, dict):
            return False
        if name.endswith("_runtime"):  # 2.7+: run-time compile work (autotuning, cudagraphify)
            st.apply_runtime_metrics(data)
            return True
        if name == "bwd_compilation_metrics":
            st.apply_backward_metrics(data)
            return True
        st.apply_metrics(data, _graph_break)
        if isinstance(data.get("pytorch_version"), str):
            self.torch_version = self.torch_version or data["pytorch_version"]
        return True


def _graph_break(text: str) -> GraphBreak:
    parsed = breaks.parse_break(text)
    return replace(parsed, user_stack=users_frames(parsed.user_stack))


_HANDLERS: dict[str, Callable[..., bool | None]] = {
    "dynamo_start": Builder._on_dynamo_start,
    "artifact:dynamo_graph_break_reason": Builder._on_graph_break,
    "artifact:recompile_reasons": Builder._on_recompile,
    "inductor_output_code": Builder._on_output_code,
    "compilation_metrics": Builder._on_metrics,
    "bwd_compilation_metrics": Builder._on_metrics,
    "compilation_metrics_runtime": Builder._on_metrics,
    "bwd_compilation_metrics_runtime": Builder._on_metrics,
    "dynamo_guards": Builder._on_guards_json,
    "inspectc_kernel_times": Builder._on_kernel_times,
    "inspectc_kernel_nodes": Builder._on_kernel_nodes,
    "artifact:inductor_provenance_tracking_node_mappings": Builder._on_provenance,
    "artifact:inductor_provenance_tracking_kernel_stack_traces": Builder._on_provenance,
}


@contextmanager
def _figures() -> Iterator[None]:
    """Timings whose figures are no numbers (``"calls": "x"``, a 400-digit total): malformed."""
    try:
        yield
    except (TypeError, ValueError, OverflowError) as exc:
        raise MalformedRecord(f"{type(exc).__name__}: {exc}") from None
