"""Per-frame state while structured-trace events arrive, and its frozen :class:`Frame`.

The builder keeps one :class:`FrameState` per compiled frame (see ``builder.py`` for which
records belong to which frame). ``compilation_metrics`` is read here (:meth:`FrameState.
apply_metrics`): it finishes the frame and carries its location, failure, cache counters,
restart reasons and timings. No torch.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from inspectc.model import (
    KIND_COMPILED_AUTOGRAD,
    KIND_DYNAMO,
    KIND_EXPORT,
    KIND_RECOMPILE_LIMIT,
    STATUS_COMPILING,
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_INTERRUPTED,
    STATUS_OK,
    CompileId,
    CompileMetrics,
    Failure,
    Frame,
    FrameTiming,
    GraphBreak,
    Guard,
    Kernel,
    Recompile,
    StackFrame,
)
from inspectc.trace import names
from inspectc.trace.payloads import extras as compile_extras
from inspectc.trace.payloads import guards, provenance
from inspectc.trace.phases import Phases
from inspectc.trace.records import as_num

# torch's words for a compile refused at the recompile limit (cache_size_limit before 2.6)
_LIMIT = re.compile(r"recompile.limit|cache.size.limit|cache_size_limit", re.IGNORECASE)
_GRAPH_FILE = re.compile(r"# File: (?P<file>.+?):(?P<line>\d{1,18}) in (?P<fn>[\w<>.]+)")
_TORCH_FILE = re.compile(r"[/\\]torch[/\\]_(?:dynamo|inductor)[/\\]")

# compilation_metrics keys kept as they are in ``CompileMetrics.extra``.
_EXTRA_METRICS = (
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


@dataclass(slots=True)
class FrameState:
    """Mutable twin of :class:`Frame` while events arrive."""

    compile_id: str  # as the builder keys it ("0/1", "0/0#2"); parsed into ``id`` once
    rank: int | None
    ordinal: int
    id: CompileId = field(init=False)
    function: str | None = None
    filename: str | None = None
    line: int | None = None
    user_stack: tuple[StackFrame, ...] = ()
    failure: Failure | None = None
    finished: bool = False
    empty: bool = False
    interrupted: bool = False  # a signal ended the run during this compile (Builder.interrupted)
    export_trace: bool = False  # records with no compile id finished it (a strict torch.export)
    cache: dict[str, str | None] = field(default_factory=dict)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    restart_breaks: list[int] = field(default_factory=list)  # graph_breaks read from restart_reasons
    recompiles: list[Recompile] = field(default_factory=list)
    guards: tuple[Guard, ...] = ()
    metrics: CompileMetrics = field(default_factory=CompileMetrics)
    graph_kinds: list[str] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    region_time_us: float | None = None
    region_calls: int | None = None
    timing: FrameTiming | None = None
    timed_graphs: list[dict[str, Any]] = field(default_factory=list)  # every graph timed so far
    unattributed: dict[str, float] = field(default_factory=dict)  # measured, joined no kernel
    attempts: int = 0
    attempt_ids: set[int] = field(default_factory=set)  # restarts: 0, 1... (records' "attempt")
    cudagraph_skip_reason: str | None = None
    unknown_events: int = 0
    cache_key: str | None = None  # FX graph cache key of the graph compiled last
    pending_post_grad: int | None = None  # event seq of a post-grad graph awaiting its code
    extras: compile_extras.FrameExtras | None = None  # autotuning, CUDA graphs, symbols
    dynamo_text: str | None = None  # the Dynamo graph: module paths and lines of its ops
    phases: Phases = field(default_factory=Phases)  # chromium spans, described inputs
    # The graph compiled last: its output code, its kernels (indexes into `kernels`) and the
    # provenance records that follow it (same compile id, up to the next output code).
    graph_code: str | None = None
    graph_kernels: list[int] = field(default_factory=list)
    prov_mappings: provenance.NodeMappings | None = None
    prov_traces: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.id = CompileId.parse(self.compile_id, self.rank)

    def freeze(self) -> Frame:
        if self.failure is not None:
            status = STATUS_FAILED
        elif self.graph_breaks:
            status = STATUS_GRAPH_BREAK
        elif self.interrupted:
            status = STATUS_INTERRUPTED
        elif not self.finished and not self._autograd_graph():
            status = STATUS_COMPILING
        elif self.empty:
            status = STATUS_EMPTY
        else:
            status = STATUS_OK
        extras = self.extras.typed() if self.extras is not None else compile_extras.TypedExtras()
        return Frame(
            compile_id=self.id,
            rank=self.rank,
            ordinal=self.ordinal,
            function=self.function or ("compiled autograd" if self._autograd_graph() else None),
            filename=self.filename,
            line=self.line,
            user_stack=self.user_stack,
            status=status,
            failure=self.failure,
            cache=dict(self.cache),
            graph_breaks=tuple(self.graph_breaks),
            recompiles=tuple(self.recompiles),
            guards=self.guards,
            metrics=replace(self.metrics, extra={**self.metrics.extra, **self._extra()}),
            graph_kinds=tuple(self.graph_kinds),
            kernel_count=len(self.kernels),
            region_time_us=self.region_time_us,
            region_calls=self.region_calls,
            timing=self.timing,
            attempts=max(self.attempts, len(self.attempt_ids)),
            cudagraph_skip_reason=self.cudagraph_skip_reason,
            unknown_events=self.unknown_events,
            autotuning=extras.autotuning,
            cudagraphs=extras.cudagraphs,
            symbolic_shapes=extras.symbolic_shapes,
            callable_name=names.callable_name(
                self.function, self.filename, self.user_stack, self.guards, exported=self.export_trace
            ),
            call_site=names.call_site(self.user_stack),
            kind=self._kind(),
        )

    def _kind(self) -> str:
        """A compile Dynamo started (a ``dynamo_start``), or a row that is none: compiled
        autograd's graph, a strict export's trace, a compile id refused at the recompile limit
        (its ``compilation_metrics`` is all it has)."""
        if self._autograd_graph():
            return KIND_COMPILED_AUTOGRAD
        if self.attempts > 0:
            return KIND_DYNAMO
        if self.export_trace:
            return KIND_EXPORT
        failure = self.failure
        if failure is not None and _LIMIT.search(f"{failure.fail_type} {failure.reason}"):
            return KIND_RECOMPILE_LIMIT
        return KIND_DYNAMO

    def apply_backward_metrics(self, data: dict[str, Any]) -> None:
        """``bwd_compilation_metrics``: the lazily compiled backward's times."""
        self.finished = True
        extra = dict(self.metrics.extra)
        for key in ("inductor_compile_time_s", "compiled_autograd_id"):
            if key in data:
                extra["backward_" + key] = data[key]
        self.metrics = replace(self.metrics, extra=extra)

    def _autograd_graph(self) -> bool:
        """A compiled-autograd id with no Dynamo frame ("!0"): its graph is all it has (the
        frames that compile it, "!0/2/0", finish on their own)."""
        return "compiled_autograd" in self.graph_kinds and "/" not in self.compile_id

    def _extra(self) -> dict[str, Any]:
        extra = self.phases.plain()
        if self.cache_key:
            extra["fx_graph_cache_key"] = self.cache_key
        return extra

    def _located(self, gb: GraphBreak) -> GraphBreak:
        """A break read from ``restart_reasons`` has no place of its own: the frame's (the
        export types a break's filename and line as never null)."""
        if gb.filename is not None and gb.line is not None:
            return gb
        top = self.user_stack[-1] if self.user_stack else None
        if top is not None and top.filename and _TORCH_FILE.search(top.filename):
            top = None  # older torch: the stack ends in torch's own eval_frame.py
        filename = gb.filename or (top.filename if top else None) or self.filename or "?"
        line = gb.line if gb.line is not None else (top.line if top else None)
        return replace(gb, filename=filename, line=line if line is not None else self.line or 0)

    def apply_runtime_metrics(self, data: dict[str, Any]) -> None:
        """``compilation_metrics_runtime``: its ``runtime_*`` times, under ``extra["runtime"]``."""
        extra = dict(self.metrics.extra)
        runtime = dict(extra.get("runtime") or {})
        for key, value in data.items():
            if key.startswith("runtime_") and as_num(value) is not None:
                runtime[key] = runtime.get(key, 0) + value
        extra["runtime"] = runtime
        self.metrics = replace(self.metrics, extra=extra)

    def apply_cache(self, which: str, status: str, payload: str | None) -> None:
        """An ``fx_graph``/``aotautograd`` cache artifact: the strongest status seen (a bypass
        over a miss over a hit), and the FX graph's cache key from its payload."""
        if _CACHE_RANK[status] > _CACHE_RANK.get(self.cache.get(which), 0):
            self.cache[which] = status
        if which == "fx_graph" and payload:
            try:
                data = json.loads(payload)
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("key"), str):
                self.cache_key = data["key"]

    def fail_unstarted(self, data: dict[str, Any], parse_break: Any, stack: tuple[StackFrame, ...]) -> None:
        """A failing ``compilation_metrics`` with no compile id, for this frame that had records
        but no ``dynamo_start`` (a strict ``torch.export`` whose trace Dynamo gave up on); its
        place is where Dynamo gave up, in the user's code."""
        self.export_trace = True
        self.apply_metrics(data, parse_break)
        gb = self.failure.graph_break if self.failure is not None else None
        if self.function is None and gb is not None and gb.user_stack:
            top = gb.user_stack[-1]
            self.function, self.filename, self.line = top.function, top.filename, top.line
        self.user_stack = self.user_stack or stack

    def export_record(
        self,
        name: str,
        data: dict[str, Any],
        payload: str | None,
        stack: tuple[StackFrame, ...],
        parse_break: Any,
    ) -> bool:
        """A strict export's record without a compile id, for this frame (``Builder._frameless``):
        its guard tree, or its ``compilation_metrics``; a failing one is the frame's failure,
        placed where Dynamo gave up in the user's code. False: nothing to read."""
        if name == "dynamo_cpp_guards_str":
            if not payload:
                return False
            self.guards = tuple(guards.parse_guards(payload))
            self.export_trace = True
        elif data.get("fail_type"):
            self.fail_unstarted(data, parse_break, stack)
        else:
            self.export_trace = True
            self.apply_metrics(data, parse_break)
        self.user_stack = self.user_stack or stack
        self.name_export()
        return True

    def name_export(self) -> None:
        """A strict export's trace names no code object: the user's code Dynamo traced is the
        first ``# File: path:line in fn`` of its graph (the module's ``forward``)."""
        found = _GRAPH_FILE.search(self.dynamo_text or "")
        if self.function is None and found is not None:
            self.function, self.filename = found.group("fn"), found.group("file")
            self.line = int(found.group("line"))

    def apply_metrics(self, data: dict[str, Any], parse_break: Any) -> None:
        """``compilation_metrics``: the frame finished; *parse_break* reads a reason's text."""
        self.finished = True
        self.function = as_str(data.get("co_name")) or self.function
        self.filename = as_str(data.get("co_filename")) or self.filename
        line = data.get("co_firstlineno")
        self.line = line if isinstance(line, int) else self.line
        fail_type = as_str(data.get("fail_type"))
        if fail_type or data.get("fail_reason"):
            fline = data.get("fail_user_frame_lineno")
            reason = as_str(data.get("fail_reason"))
            self.failure = Failure(
                fail_type=fail_type,
                reason=reason,
                graph_break=parse_break(reason) if fail_type == "Unsupported" and reason else None,
                filename=as_str(data.get("fail_user_frame_filename")),
                line=fline if isinstance(fline, int) else None,
            )
        reasons = data.get("restart_reasons")
        if isinstance(reasons, list) and not self.graph_breaks:
            # Older torch (or a break with no artifact): the break text lives here only.
            for reason in reasons:
                if isinstance(reason, str) and not _is_benign_restart(reason):
                    self.restart_breaks.append(len(self.graph_breaks))
                    self.graph_breaks.append(self._located(parse_break(reason)))
        ops = data.get("graph_op_count")
        self.empty = ops == 0 or (ops is None and data.get("has_guarded_code") is False)
        self.cudagraph_skip_reason = as_str(data.get("cudagraph_skip_reason"))
        for key, which in (
            ("inductor_fx_local_cache_hit_count", "fx_graph"),
            ("aotautograd_local_cache_hit_count", "aot_autograd"),
        ):
            if self.cache.get(which) is None and as_num(data.get(key)):
                self.cache[which] = "hit"
        self.metrics = CompileMetrics(
            entire_frame_s=_seconds(data, "entire_frame_compile_time_s", "dynamo_cumulative_compile_time_us"),
            backend_s=_seconds(data, "backend_compile_time_s", "aot_autograd_cumulative_compile_time_us"),
            inductor_s=_seconds(data, "inductor_compile_time_s", "inductor_cumulative_compile_time_us"),
            codegen_s=_seconds(data, "code_gen_time_s", "inductor_code_gen_cumulative_compile_time_us"),
            op_count=as_int(ops),
            node_count=as_int(data.get("graph_node_count")),
            input_count=as_int(data.get("graph_input_count")),
            guard_count=as_int(data.get("guard_count")),
            shape_env_guard_count=as_int(data.get("shape_env_guard_count")),
            start_time=as_num(data.get("start_time")),
            extra={k: data[k] for k in _EXTRA_METRICS if data.get(k) not in (None, "")},
        )


_CACHE_RANK = {None: 0, "hit": 1, "miss": 2, "bypass": 3}


def piece_kind(base: str, existing: list[str], backward: bool) -> str:
    """``output_code``/``output_code_backward``; later pieces of one frame (DDPOptimizer
    splits a frame into several graphs) become ``output_code_2``, ``output_code_2_backward``."""
    suffix = "_backward" if backward else ""
    n = 1
    while (base + (f"_{n}" if n > 1 else "") + suffix) in existing:
        n += 1
    return base + (f"_{n}" if n > 1 else "") + suffix


def _is_benign_restart(reason: str) -> bool:
    # Dynamo also restarts analysis for reasons that are not graph breaks, recorded as an
    # exception class (e.g. "<class '...TensorifyScalarRestartAnalysis'>").
    return reason.startswith("<class ") or "RestartAnalysis" in reason


def _seconds(data: dict[str, Any], key_s: str, key_us: str) -> float | None:
    """A time in seconds: the ``*_time_s`` field, or (logs of late 2024, whose ``_s`` fields
    are null) its ``*_cumulative_compile_time_us`` counterpart."""
    seconds = as_num(data.get(key_s))
    if seconds is not None:
        return seconds
    micros = as_num(data.get(key_us))
    return micros / 1e6 if micros is not None else None


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cut_short(entries: list[FrameState]) -> list[FrameState]:
    """The frames a SIGINT/SIGTERM stopped: those still compiling, and the last one to finish
    when it has no op count and no failure (a KeyboardInterrupt is no ``Exception``: Dynamo
    writes its ``compilation_metrics`` with no ``fail_type`` and no op count, an empty graph's)."""
    finished = [s for s in entries if s.finished]
    cut = [s for s in entries if not s.finished]
    last = finished[-1] if finished else None
    if last is not None and last.failure is None and last.metrics.op_count is None and last.empty:
        cut.append(last)
    return cut
