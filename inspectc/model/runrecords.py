"""The report model beside the frames: exported programs, AOTInductor compiles, links and
artifacts, and the per-graph data distributed runs are compared by. Stdlib only.

A ``torch.export`` or AOTInductor run compiles no frame, yet its records say a lot: the
exported program, the draft-export report (data-dependent errors, guards added, fake-kernel
problems), the AOT wrapper and kernel code with its provenance. Artifacts and links torch logs
for a compile id (an FX-graph cache key, a link to a dashboard, the collective schedule of a
graph, Inductor's runtime estimates) belong to a frame but nothing else reads them.

All of them are :class:`RunRecords`, built by ``trace/run_records.py`` and stored as one
``inspectc_records`` event per process (JSON of these dataclasses): events survive ``merge``,
which gives each its rank; ``Report.run_records`` joins them. Bulky text (the printed program,
the AOT code) stays in the events table, named by a graph row: ``graphs(rank, key, kind)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from inspectc.model import CompileId, Kernel, StackFrame
from inspectc.model.compile_id import ranked, ranked_or_none

RECORDS_EVENT = "inspectc_records"  # the event holding a process's RunRecords (JSON)

# Export issue kinds, in the order a reader should worry about them.
ISSUE_KINDS = ("missing_fake_kernel", "mismatched_fake_kernel", "data_dependent_error", "guard_added")


@dataclass(frozen=True, kw_only=True, slots=True)
class ExportIssue:
    """What ``torch.export`` (``draft_export``) had to assume, add or could not check."""

    kind: str  # one of ISSUE_KINDS
    expr: str | None = None  # the symbolic expression (data-dependent error, guard)
    result: str | None = None  # what a data-dependent expression was specialised to
    op: str | None = None  # a fake-kernel issue's operator
    reason: str | None = None  # a mismatched fake kernel's reason
    prefix: str | None = None  # a guard's origin as torch names it ("eval", "runtime_assert")
    code: str | None = None  # the user's source line
    filename: str | None = None  # the user's frame (innermost of user_stack)
    line: int | None = None
    function: str | None = None
    user_stack: tuple[StackFrame, ...] = ()
    locals: dict[str, str] = field(default_factory=dict)  # the user's locals, as torch printed them
    sources: dict[str, str] = field(default_factory=dict)  # symbol -> the input it sizes
    occurrences: int = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class ExportedProgram:
    """One ``exported_program`` record: the program ``torch.export`` produced."""

    index: int  # 0, 1...: in log order within its process
    rank: int | None = None
    key: str  # its text: graph row (rank, key, "exported_program")
    size: int = 0  # characters of the printed program
    inputs: tuple[str, ...] = ()  # "x: USER_INPUT", "p_lin_weight: PARAMETER target='lin.weight'"
    outputs: tuple[str, ...] = ()
    range_constraints: str | None = None  # "{s77: VR[0, int_oo]}"
    op_count: int = 0  # calls in the graph (torch.ops...)
    ops: tuple[str, ...] = ()  # distinct ops, graph order
    unbacked_symbols: tuple[str, ...] = ()  # data-dependent sizes/values created while tracing
    issues: tuple[ExportIssue, ...] = ()  # the draft-export report (empty: nothing to report)
    call_site: StackFrame | None = None  # the user's line that exported


@dataclass(frozen=True, kw_only=True, slots=True)
class AotCode:
    """One piece of an AOTInductor compile's generated code (a ``graph_dump`` record)."""

    kind: str  # graph kind of its row: aot_wrapper_code | aot_kernel_code | aot_header_code
    language: str | None = None  # "cpp"
    path: str | None = None  # where Inductor wrote it
    size: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class AotKernel:
    """A kernel of an AOT compile, located in one of its code pieces."""

    kernel: Kernel  # name, language, kind, fused nodes and origins (from provenance)
    code: str  # the AotCode kind it is in
    start: int
    stop: int


@dataclass(frozen=True, kw_only=True, slots=True)
class AotCompile:
    """An AOTInductor compile (``aoti_compile_and_package``): no compile id, no frame."""

    index: int
    rank: int | None = None
    key: str  # its graphs: graph rows (rank, key, kind) for kind in graph_kinds
    graph_kinds: tuple[str, ...] = ()  # aot_inference, pre_grad, post_grad, ..., aot_wrapper_code
    code: tuple[AotCode, ...] = ()
    kernels: tuple[AotKernel, ...] = ()
    provenance: bool = False  # kernels carry fused nodes and user lines
    compile_s: float | None = None  # start to end of its compile (its compilation_metrics)
    call_site: StackFrame | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Link:
    """A ``link`` record: a named URL torch (or a plugin) logged for a compile."""

    name: str
    url: str
    rank: int | None = None
    compile_id: CompileId | None = None  # with ``rank``; stored as its text ("0/1")

    def __post_init__(self) -> None:
        _rank_id(self)


@dataclass(frozen=True, kw_only=True, slots=True)
class Artifact:
    """Artifacts of one name logged for one compile id that no other part of the report reads."""

    name: str
    rank: int | None = None
    compile_id: CompileId | None = None  # with ``rank``; stored as its text ("0/1")
    encoding: str | None = None  # "string" | "json"
    count: int = 1
    size: int = 0  # characters of payload, all of them (the payloads stay in the events)

    def __post_init__(self) -> None:
        _rank_id(self)


@dataclass(frozen=True, kw_only=True, slots=True)
class CacheKey:
    """The FX graph cache key of a compile (``fx_graph_cache_hash``): what made it hit or miss."""

    key: str
    rank: int | None = None
    compile_id: CompileId | None = None  # with ``rank``; stored as its text ("0/1")
    components: int = 0  # lines of the key's description (graph, inputs, configs)
    state: str | None = None  # hit | miss | bypass, when the record says
    bypass_reason: str | None = None

    def __post_init__(self) -> None:
        _rank_id(self)


@dataclass(frozen=True, kw_only=True, slots=True)
class OpEstimate:
    """One scheduled op of a graph: Inductor's runtime estimate and the tensors it writes."""

    name: str
    type: str | None = None  # compute | collective
    runtime_ns: float | None = None
    outputs: tuple[str, ...] = ()  # "float32[4, 8] stride [8, 1]"


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphCollectives:
    """Per graph (compile id): its collective schedule and Inductor's op estimates."""

    rank: int | None = None
    compile_id: CompileId  # with ``rank``; stored as its text ("0/1")
    schedule: tuple[str, ...] | None = None  # inductor_collective_schedule, in order
    estimates: tuple[OpEstimate, ...] | None = None  # inductor_runtime_and_tensor_meta
    # c10d functional ops the graph's inductor_output_code calls, in order ("all_reduce_",
    # "wait_tensor"); () when its code calls none; None when no code was read (older reports)
    code_calls: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "compile_id", ranked(self.compile_id, self.rank))


@dataclass(frozen=True, kw_only=True, slots=True)
class ExecutionOrder:
    """``graph_execution``: the compile ids of the graphs a process ran, in order."""

    rank: int | None = None
    # with ``rank``, stored as their texts; a graph loaded from the cache has no id (``known``
    # is False, shown "?")
    compile_ids: tuple[CompileId, ...] = ()

    def __post_init__(self) -> None:
        ids = tuple(ranked(c, self.rank) for c in self.compile_ids)
        object.__setattr__(self, "compile_ids", ids)


def _rank_id(record: Link | Artifact | CacheKey) -> None:
    """The record's compile id carries the record's rank (one key across ranks)."""
    object.__setattr__(record, "compile_id", ranked_or_none(record.compile_id, record.rank))


@dataclass(frozen=True, kw_only=True, slots=True)
class RunRecords:
    """Everything beside the frames, for one process (or, joined, for every rank)."""

    exported_programs: tuple[ExportedProgram, ...] = ()
    export_issues: tuple[ExportIssue, ...] = ()  # of an export that logged no program (failed)
    aot_compiles: tuple[AotCompile, ...] = ()
    links: tuple[Link, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    cache_keys: tuple[CacheKey, ...] = ()
    collectives: tuple[GraphCollectives, ...] = ()
    execution_orders: tuple[ExecutionOrder, ...] = ()
    export_traced: bool = False  # torch.export traced a program (its records' stacks say so)

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in self.__slots__)  # type: ignore[attr-defined]


def join(parts: Iterable[tuple[int | None, RunRecords]]) -> RunRecords:
    """One RunRecords from each process's (its event's rank, its records): a rank the event
    carries (a merged report gives each input its rank) is the rank of all it holds."""
    joined: dict[str, list[Any]] = {name: [] for name in RunRecords.__slots__}  # type: ignore[attr-defined]
    traced = False
    for rank, records in parts:
        traced = traced or records.export_traced
        for name, items in joined.items():
            if name == "export_traced":
                continue
            for item in getattr(records, name):
                items.append(item if rank is None or not hasattr(item, "rank") else replace(item, rank=rank))
    del joined["export_traced"]
    return RunRecords(**{name: tuple(items) for name, items in joined.items()}, export_traced=traced)
