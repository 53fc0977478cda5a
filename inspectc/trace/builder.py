"""Structured-trace events -> report rows. The one place that knows torch's event formats.

Live capture and ``inspectc import`` both feed events here (metadata dict + payload text),
so a captured and an imported run give the same report. Every event is stored raw; the
events this module understands also update the frame they belong to. No torch import:
formats of several torch versions are handled by tolerant parsing, and a field a version
lacks stays ``None``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from inspectc.report.model import (
    STATUS_COMPILING,
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_OK,
    CompileId,
    CompileMetrics,
    Failure,
    Frame,
    GraphBreak,
    Guard,
    Kernel,
    KernelTime,
    Origin,
    Recompile,
    StackFrame,
)
from inspectc.report.writer import ReportWriter
from inspectc.trace.payloads import breaks, guards, provenance
from inspectc.trace.payloads import extras as compile_extras
from inspectc.trace.payloads import output_code as kernels
from inspectc.trace.records import StringTable, compile_id, event_name

# Events that belong to a frame but carry nothing for the structured view (kept raw).
# (compile_extras.EVENTS -- autotuning, CUDA graphs, symbolic shapes -- go to _on_extra.)
_QUIET = {
    "optimize_ddp_split_graph",
    "optimize_ddp_split_child",
    "describe_source",
    "describe_storage",
    "describe_tensor",
    "guard_added",
    "propagate_real_tensors",
    "str",
    "dump_file",
    "link",
}

# Graph events: event name -> graph kind.
_GRAPH_EVENTS = {
    "dynamo_output_graph": "dynamo",
    "aot_forward_graph": "aot_forward",
    "aot_backward_graph": "aot_backward",
    "aot_inference_graph": "aot_inference",
    "aot_joint_graph": "aot_joint",
    "inductor_post_grad_graph": "post_grad",
    "artifact:inductor_post_grad_graph": "post_grad",
    "inductor_pre_grad_graph": "pre_grad",
    "artifact:after_pre_grad_graph": "pre_grad",
    "artifact:fx_graph_runnable": "fx_graph_runnable",
    "dynamo_cpp_guards_str": "guards",
}

# inspectc's own frames (and runpy's) sit under the user's frames in `inspectc run`.
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_RUNNER_FILES = ("<frozen runpy>", "runpy.py")

_CACHE_EVENT = re.compile(r"^artifact:(fx_graph|aotautograd)_cache_(hit|miss|bypass)$")
_CACHE_RANK = {None: 0, "hit": 1, "miss": 2, "bypass": 3}
_AOT_ID = re.compile(r"#\s*AOT ID:\s*\[?'?(\S*?)'?\]?\s*$", re.MULTILINE)

Emit = Callable[[str], None]


@dataclass(slots=True)
class _FrameState:
    """Mutable twin of :class:`Frame` while events arrive."""

    compile_id: str
    rank: int | None
    ordinal: int
    function: str | None = None
    filename: str | None = None
    line: int | None = None
    user_stack: tuple[StackFrame, ...] = ()
    failure: Failure | None = None
    finished: bool = False
    empty: bool = False
    restart_reasons: list[str] = field(default_factory=list)
    cache: dict[str, str | None] = field(default_factory=dict)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    guards: tuple[Guard, ...] = ()
    metrics: CompileMetrics = field(default_factory=CompileMetrics)
    graph_kinds: list[str] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    region_time_us: float | None = None
    region_calls: int | None = None
    attempts: int = 0
    cudagraph_skip_reason: str | None = None
    unknown_events: int = 0
    cache_key: str | None = None  # FX graph cache key of the graph compiled last
    pending_post_grad: int | None = None  # event seq of a post-grad graph awaiting its code
    extras: compile_extras.FrameExtras | None = None  # autotuning, CUDA graphs, symbols
    dynamo_text: str | None = None  # the Dynamo graph: module paths and lines of its ops
    # The graph compiled last: its output code, its kernels (indexes into `kernels`) and the
    # provenance records that follow it (same compile id, up to the next output code).
    graph_code: str | None = None
    graph_kernels: list[int] = field(default_factory=list)
    prov_mappings: provenance.NodeMappings | None = None
    prov_traces: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def freeze(self) -> Frame:
        if self.failure is not None:
            status = STATUS_FAILED
        elif self.graph_breaks:
            status = STATUS_GRAPH_BREAK
        elif not self.finished:
            status = STATUS_COMPILING
        elif self.empty:
            status = STATUS_EMPTY
        else:
            status = STATUS_OK
        extras = self.extras.typed() if self.extras is not None else compile_extras.TypedExtras()
        return Frame(
            compile_id=self.compile_id,
            rank=self.rank,
            id=CompileId.parse(self.compile_id, self.rank),
            ordinal=self.ordinal,
            function=self.function,
            filename=self.filename,
            line=self.line,
            user_stack=self.user_stack,
            status=status,
            failure=self.failure,
            cache=dict(self.cache),
            graph_breaks=tuple(self.graph_breaks),
            recompiles=tuple(self.recompiles),
            guards=self.guards,
            metrics=self.metrics,
            graph_kinds=tuple(self.graph_kinds),
            kernel_count=len(self.kernels),
            region_time_us=self.region_time_us,
            region_calls=self.region_calls,
            attempts=self.attempts,
            cudagraph_skip_reason=self.cudagraph_skip_reason,
            unknown_events=self.unknown_events,
            autotuning=extras.autotuning,
            cudagraphs=extras.cudagraphs,
            symbolic_shapes=extras.symbolic_shapes,
        )


class Builder:
    """Feeds events into a :class:`ReportWriter`, keeping per-frame state in memory."""

    def __init__(
        self,
        writer: ReportWriter,
        *,
        rank: int | None = None,
        on_frame: Callable[[Frame], None] | None = None,
    ) -> None:
        self.writer = writer
        self.rank = rank
        self.strings = StringTable()
        self.frames: dict[tuple[int | None, str], _FrameState] = {}
        self.torch_version: str | None = None
        self.event_count = 0
        self._on_frame = on_frame

    # -- entry point -------------------------------------------------------------------
    def feed(self, metadata: dict[str, Any], payload: str | None, ts: float | None = None) -> None:
        name = event_name(metadata)
        if name == "str":
            self.strings.add(metadata)
        cid = compile_id(metadata)
        rank = metadata.get("rank", self.rank)
        rank = rank if isinstance(rank, int) else None
        seq = self.writer.add_event(
            name=name, metadata=metadata, payload=payload, compile_id=cid, rank=rank, ts=ts
        )
        self.event_count += 1
        if name == "artifact:torch_version" and payload:
            self._torch_version(payload)
        if name in compile_extras.EVENTS:
            self._on_extra(name, metadata, payload, cid, rank)
            return
        if cid is None:
            return
        state = self._frame(rank, cid)
        handler = _HANDLERS.get(name)
        if handler is None:
            if name in _GRAPH_EVENTS:
                handler = Builder._on_graph
            elif _CACHE_EVENT.match(name):
                handler = Builder._on_cache
            elif name in _QUIET or name.startswith("artifact:"):
                return
            else:
                state.unknown_events += 1
                self._put(state)
                return
        handler(self, state, name, metadata, payload, seq)
        self._put(state)

    def finish(self) -> None:
        for state in self.frames.values():
            self._flush_post_grad(state, backward=False)
            self._put(state)
        self.writer.flush()

    def _on_extra(
        self, name: str, metadata: dict[str, Any], payload: str | None, cid: str | None, rank: int | None
    ) -> None:
        found = compile_extras.read_event(name, metadata, payload, self.strings.resolve)
        if found is None:
            return
        if cid is None:
            # Run-time events (a CUDA graph recorded) name their compile id in the payload.
            if found.compile_id is None or (rank, found.compile_id) not in self.frames:
                return
        state = self._frame(rank, cid or found.compile_id or "")
        if state.extras is None:
            state.extras = compile_extras.FrameExtras()
        state.extras.add(found)
        if cid is None or state.finished:
            self._put(state)  # compile-time events: the frame is written when it finishes

    # -- helpers -----------------------------------------------------------------------
    def _frame(self, rank: int | None, cid: str) -> _FrameState:
        key = (rank, cid)
        state = self.frames.get(key)
        if state is None:
            state = _FrameState(compile_id=cid, rank=rank, ordinal=len(self.frames))
            self.frames[key] = state
        return state

    def _put(self, state: _FrameState) -> None:
        frame = state.freeze()
        self.writer.put_frame(frame)
        if self._on_frame is not None:
            self._on_frame(frame)

    def _stack(self, entries: Any) -> tuple[StackFrame, ...]:
        out = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            line = entry.get("line")
            filename = self.strings.resolve(entry.get("filename"))
            if _is_own_frame(filename):
                continue
            out.append(
                StackFrame(
                    filename=filename,
                    line=line if isinstance(line, int) else None,
                    function=entry.get("name") if isinstance(entry.get("name"), str) else None,
                    code=entry.get("loc") if isinstance(entry.get("loc"), str) else None,
                )
            )
        return tuple(out)

    def _torch_version(self, payload: str) -> None:
        try:
            data = json.loads(payload)
        except ValueError:
            return
        if isinstance(data, dict) and isinstance(data.get("pytorch_version"), str):
            self.torch_version = data["pytorch_version"]

    # -- handlers (signature: self, state, name, metadata, payload, seq) --------------
    def _on_dynamo_start(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        st.attempts += 1
        stack = self._stack((md.get("dynamo_start") or {}).get("stack"))
        if stack:
            st.user_stack = stack
            top = stack[-1]
            st.function = st.function or top.function
            st.filename = st.filename or top.filename
            st.line = st.line if st.line is not None else top.line

    def _on_graph_break(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        if not payload:
            return
        st.graph_breaks.append(_graph_break(payload))

    def _on_recompile(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        for rec in breaks.parse_recompile_reasons(payload or ""):
            st.recompiles.append(
                Recompile(text=rec.text, earlier_compile_id=rec.earlier_compile_id, guard=rec.guard)
            )

    def _on_graph(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        if payload is None:
            return
        kind = _GRAPH_EVENTS[name]
        if kind == "post_grad":
            # Forward or backward is only known when its output code arrives: hold it.
            self._flush_post_grad(st, backward=False)
            st.pending_post_grad = seq
            return
        if kind == "dynamo":
            st.dynamo_text = payload
        if kind == "guards":
            st.guards = tuple(
                Guard(
                    kind=g.kind,
                    source=g.source,
                    code=g.code,
                    user_code=g.user_code,
                    filename=g.filename,
                    line=g.line,
                    depth=g.depth,
                )
                for g in guards.parse_guards(payload)
            )
        self._add_graph(st, kind, seq)

    def _flush_post_grad(self, st: _FrameState, *, backward: bool) -> None:
        if st.pending_post_grad is not None:
            kind = _piece_kind("post_grad", st.graph_kinds, backward)
            self._add_graph(st, kind, st.pending_post_grad)
            st.pending_post_grad = None

    def _add_graph(self, st: _FrameState, kind: str, seq: int) -> None:
        self.writer.put_graph(rank=st.rank, compile_id=st.compile_id, kind=kind, seq=seq)
        if kind not in st.graph_kinds:
            st.graph_kinds.append(kind)

    def _on_output_code(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        if payload is None:
            return
        match = _AOT_ID.search(payload[:2000])
        if match:
            backward = "backward" in match.group(1)
        else:  # older torch: no AOT ID header; the second module of a frame is its backward
            backward = "output_code" in st.graph_kinds
        self._flush_post_grad(st, backward=backward)
        kind = _piece_kind("output_code", st.graph_kinds, backward)
        self._add_graph(st, kind, seq)
        st.graph_code = payload
        st.graph_kernels = []
        st.prov_mappings = None
        st.prov_traces = {}
        for span in kernels.split_output_code(payload):
            kernel = Kernel(
                id=-1,
                compile_id=st.compile_id,
                rank=st.rank,
                name=span.name,
                language=span.language,
                kind=span.kind,
                source_size=span.end - span.start,
                graph_kind=kind,
                meta=dict(span.meta),
            )
            kid = self.writer.add_kernel(kernel, seq=seq, start=span.start, stop=span.end)
            st.graph_kernels.append(len(st.kernels))
            st.kernels.append(replace(kernel, id=kid))

    def _on_cache(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        match = _CACHE_EVENT.match(name)
        if match is None:
            return
        which = "fx_graph" if match.group(1) == "fx_graph" else "aot_autograd"
        status = match.group(2)
        if _CACHE_RANK[status] > _CACHE_RANK.get(st.cache.get(which), 0):
            st.cache[which] = status
        if which == "fx_graph" and payload:
            try:
                data = json.loads(payload)
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("key"), str):
                st.cache_key = data["key"]

    def _on_provenance(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        if name.endswith("node_mappings"):
            st.prov_mappings = provenance.parse_node_mappings(payload)
        else:
            st.prov_traces = provenance.parse_kernel_stack_traces(payload)
        self._apply_provenance(st)

    def _apply_provenance(self, st: _FrameState) -> None:
        """Fused nodes and origins of the last graph's kernels, from its provenance records.

        Provenance names each call site ``<kernel>:<handle>`` (handles in call order, as the
        output code's ``# [Provenance debug handles]`` comments list them). A generated
        kernel gathers all its call sites; the n-th extern call of an op is its n-th handle.
        """
        if st.graph_code is None or not st.graph_kernels:
            return
        by_base: dict[str, list[str]] = {}
        for handle in provenance.kernel_handles(st.graph_code):
            by_base.setdefault(provenance.base_name(handle), []).append(handle)
        keys: dict[int, str] = {}
        seen: dict[str, int] = {}
        for i in st.graph_kernels:
            kernel = st.kernels[i]
            if kernel.language != "extern":
                keys[i] = kernel.name
                continue
            base = str(kernel.meta.get("op") or provenance.base_name(kernel.name))
            n = seen[base] = seen.get(base, -1) + 1
            handles = by_base.get(base, [])
            keys[i] = handles[n] if n < len(handles) else base
        groups = provenance.fusion_groups(
            st.prov_mappings or provenance.NodeMappings(),
            st.prov_traces,
            list(dict.fromkeys(keys.values())),
            pre_grad_graph=st.dynamo_text,
        )
        for i, key in keys.items():
            info = groups.get(key)
            if info is None:
                continue
            kernel = st.kernels[i]
            updated = replace(
                kernel,
                fused_nodes=tuple(info.fused_nodes),
                origins=tuple(
                    Origin(op=o.op, filename=o.filename, line=o.line, module=o.module) for o in info.origins
                ),
            )
            if updated != kernel:
                st.kernels[i] = updated
                self.writer.update_kernel(updated)

    def _on_kernel_times(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        try:
            data = json.loads(payload or "{}")
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        region = data.get("region") or {}
        if isinstance(region, dict) and isinstance(region.get("total_us"), (int, float)):
            st.region_time_us = float(region["total_us"])
            st.region_calls = int(region.get("calls") or 0)
        measured: dict[int, dict[str, Any]] = {}
        graphs = data.get("graphs")
        if isinstance(graphs, list) and graphs:
            # Per graph: forward kernels come from output_code, backward from *_backward.
            for graph in graphs:
                if not isinstance(graph, dict):
                    continue
                backward = graph.get("phase") == "backward"
                by_name = {
                    k.name: i
                    for i, k in enumerate(st.kernels)
                    if k.graph_kind.endswith("_backward") == backward
                }
                for entry in graph.get("kernels") or ():
                    if isinstance(entry, dict) and entry.get("name") in by_name:
                        measured.setdefault(by_name[entry["name"]], entry)
        else:
            flat = data.get("kernels") or {}
            for i, k in enumerate(st.kernels):
                if isinstance(flat, dict) and isinstance(flat.get(k.name), dict):
                    measured[i] = flat[k.name]
        total = sum(float(t.get("total_us") or 0.0) for t in measured.values())
        for i, t in measured.items():
            calls = int(t.get("calls") or 0)
            tot = float(t.get("total_us") or 0.0)
            updated = replace(
                st.kernels[i],
                time=KernelTime(
                    calls=calls,
                    total_us=tot,
                    mean_us=tot / calls if calls else 0.0,
                    min_us=float(t.get("min_us") or 0.0),
                    max_us=float(t.get("max_us") or 0.0),
                    share=tot / total if total else None,
                ),
            )
            st.kernels[i] = updated
            self.writer.update_kernel(updated)

    def _on_metrics(self, st: _FrameState, name: str, md: dict, payload: str | None, seq: int) -> None:
        data = md.get(name)
        if not isinstance(data, dict):
            return
        st.finished = True
        if name == "bwd_compilation_metrics":
            extra = dict(st.metrics.extra)
            for key in ("inductor_compile_time_s", "compiled_autograd_id"):
                if key in data:
                    extra["backward_" + key] = data[key]
            st.metrics = replace(st.metrics, extra=extra)
            return
        st.function = _str(data.get("co_name")) or st.function
        st.filename = _str(data.get("co_filename")) or st.filename
        line = data.get("co_firstlineno")
        st.line = line if isinstance(line, int) else st.line
        fail_type = _str(data.get("fail_type"))
        if fail_type or data.get("fail_reason"):
            fline = data.get("fail_user_frame_lineno")
            reason = _str(data.get("fail_reason"))
            st.failure = Failure(
                fail_type=fail_type,
                reason=reason,
                graph_break=_graph_break(reason) if fail_type == "Unsupported" and reason else None,
                filename=_str(data.get("fail_user_frame_filename")),
                line=fline if isinstance(fline, int) else None,
            )
        reasons = data.get("restart_reasons")
        if isinstance(reasons, list) and not st.graph_breaks:
            # Older torch (or a break with no artifact): the break text lives here only.
            for reason in reasons:
                if isinstance(reason, str) and not _is_benign_restart(reason):
                    st.graph_breaks.append(_graph_break(reason))
        ops = data.get("graph_op_count")
        st.empty = ops == 0 or (ops is None and data.get("has_guarded_code") is False)
        st.cudagraph_skip_reason = _str(data.get("cudagraph_skip_reason"))
        for key, which in (
            ("inductor_fx_local_cache_hit_count", "fx_graph"),
            ("aotautograd_local_cache_hit_count", "aot_autograd"),
        ):
            if st.cache.get(which) is None and _num(data.get(key)):
                st.cache[which] = "hit"
        st.metrics = CompileMetrics(
            entire_frame_s=_num(data.get("entire_frame_compile_time_s")),
            backend_s=_num(data.get("backend_compile_time_s")),
            inductor_s=_num(data.get("inductor_compile_time_s")),
            codegen_s=_num(data.get("code_gen_time_s")),
            op_count=_int(ops),
            node_count=_int(data.get("graph_node_count")),
            input_count=_int(data.get("graph_input_count")),
            guard_count=_int(data.get("guard_count")),
            shape_env_guard_count=_int(data.get("shape_env_guard_count")),
            start_time=_num(data.get("start_time")),
            extra={
                k: data[k]
                for k in (
                    "num_graph_breaks",
                    "triton_compile_time_us",
                    "compile_time_autotune_time_us",
                    "structured_logging_overhead_s",
                    "dynamo_time_before_restart_s",
                    "recompile_reason",
                    "restart_reasons",
                    "is_forward",
                    "pytorch_version",
                    "cuda_version",
                    "triton_version",
                )
                if data.get(k) not in (None, "")
            },
        )
        if isinstance(data.get("pytorch_version"), str):
            self.torch_version = self.torch_version or data["pytorch_version"]


def _piece_kind(base: str, existing: list[str], backward: bool) -> str:
    """``output_code``/``output_code_backward``; later pieces of one frame (DDPOptimizer
    splits a frame into several graphs) become ``output_code_2``, ``output_code_2_backward``."""
    suffix = "_backward" if backward else ""
    n = 1
    while (base + (f"_{n}" if n > 1 else "") + suffix) in existing:
        n += 1
    return base + (f"_{n}" if n > 1 else "") + suffix


def _graph_break(text: str) -> GraphBreak:
    parsed = breaks.parse_break(text)
    return GraphBreak(
        reason=parsed.reason,
        gb_type=parsed.gb_type,
        gb_id=parsed.gb_id,
        explanation=parsed.explanation,
        hints=tuple(parsed.hints),
        filename=parsed.filename,
        line=parsed.line,
        user_stack=tuple(
            StackFrame(filename=s.filename, line=s.line, function=s.function, code=s.code)
            for s in parsed.user_stack
            if not _is_own_frame(s.filename)
        ),
        raw=text,
    )


def _is_own_frame(filename: str | None) -> bool:
    if not filename:
        return False
    return filename.startswith(_OWN_DIR) or filename.endswith(_RUNNER_FILES)


def _is_benign_restart(reason: str) -> bool:
    # Dynamo also restarts analysis for reasons that are not graph breaks, recorded as an
    # exception class (e.g. "<class '...TensorifyScalarRestartAnalysis'>").
    return reason.startswith("<class ") or "RestartAnalysis" in reason


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_HANDLERS: dict[str, Callable[..., None]] = {
    "dynamo_start": Builder._on_dynamo_start,
    "artifact:dynamo_graph_break_reason": Builder._on_graph_break,
    "artifact:recompile_reasons": Builder._on_recompile,
    "inductor_output_code": Builder._on_output_code,
    "compilation_metrics": Builder._on_metrics,
    "bwd_compilation_metrics": Builder._on_metrics,
    "inspectc_kernel_times": Builder._on_kernel_times,
    "artifact:inductor_provenance_tracking_node_mappings": Builder._on_provenance,
    "artifact:inductor_provenance_tracking_kernel_stack_traces": Builder._on_provenance,
}
