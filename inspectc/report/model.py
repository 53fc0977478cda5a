"""The report model: plain, typed, frozen dataclasses that every reader works from.

Stdlib only. A report file stores these as JSON (see ``schema.py``); nothing here imports
torch, so a report opens on a machine without it. Fields a torch version does not emit are
``None`` ("not recorded"), never missing.

The schema version and its changelog live in ``schema.py``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

# Frame statuses, in the order a reader should worry about them.
STATUS_FAILED = "failed"
STATUS_GRAPH_BREAK = "graph_break"
STATUS_EMPTY = "empty_graph"
STATUS_OK = "ok"
STATUS_COMPILING = "compiling"  # the run ended before the frame finished compiling
STATUSES = (STATUS_FAILED, STATUS_GRAPH_BREAK, STATUS_EMPTY, STATUS_OK, STATUS_COMPILING)

# Graph kinds a frame may carry (key -> human title).
GRAPH_KINDS: dict[str, str] = {
    "dynamo": "Dynamo output graph",
    "aot_forward": "AOT forward graph",
    "aot_backward": "AOT backward graph",
    "aot_inference": "AOT inference graph",
    "aot_joint": "AOT joint graph",
    "pre_grad": "Pre-grad graph",
    "post_grad": "Post-grad graph",
    "fx_graph_runnable": "Runnable repro (fx_graph_runnable)",
    "output_code": "Inductor output code",
    "guards": "Guards (raw tree)",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class StackFrame:
    filename: str | None
    line: int | None
    function: str | None
    code: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphBreak:
    reason: str
    gb_type: str | None = None
    gb_id: str | None = None
    explanation: str | None = None
    hints: tuple[str, ...] = ()
    filename: str | None = None
    line: int | None = None
    user_stack: tuple[StackFrame, ...] = ()
    raw: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Recompile:
    text: str
    earlier_compile_id: str | None = None
    guard: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Guard:
    kind: str
    source: str | None
    code: str
    user_code: str | None = None
    filename: str | None = None
    line: int | None = None
    depth: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Failure:
    fail_type: str | None
    reason: str | None
    filename: str | None = None
    line: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class CompileMetrics:
    entire_frame_s: float | None = None
    backend_s: float | None = None
    inductor_s: float | None = None
    codegen_s: float | None = None
    op_count: int | None = None
    node_count: int | None = None
    input_count: int | None = None
    guard_count: int | None = None
    shape_env_guard_count: int | None = None
    start_time: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class Origin:
    op: str
    filename: str | None = None
    line: int | None = None
    module: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelTime:
    calls: int
    total_us: float
    mean_us: float
    min_us: float
    max_us: float
    share: float | None = None  # of the frame's measured kernel time


@dataclass(frozen=True, kw_only=True, slots=True)
class Kernel:
    id: int
    compile_id: str
    name: str
    language: str  # triton | cpp | extern
    kind: str
    source_size: int
    graph_kind: str = "output_code"  # which output code module it came from
    fused_nodes: tuple[str, ...] = ()
    origins: tuple[Origin, ...] = ()
    time: KernelTime | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class Frame:
    compile_id: str
    rank: int | None = None
    ordinal: int = 0
    function: str | None = None
    filename: str | None = None
    line: int | None = None
    user_stack: tuple[StackFrame, ...] = ()
    status: str = STATUS_COMPILING
    failure: Failure | None = None
    cache: dict[str, str | None] = field(default_factory=dict)
    graph_breaks: tuple[GraphBreak, ...] = ()
    recompiles: tuple[Recompile, ...] = ()
    guards: tuple[Guard, ...] = ()
    metrics: CompileMetrics = field(default_factory=CompileMetrics)
    graph_kinds: tuple[str, ...] = ()
    kernel_count: int = 0
    region_time_us: float | None = None  # time inside the compiled region (measured calls)
    region_calls: int | None = None
    attempts: int = 0
    cudagraph_skip_reason: str | None = None
    unknown_events: int = 0

    @property
    def location(self) -> str:
        if self.filename is None:
            return "?"
        return f"{self.filename}:{self.line}" if self.line is not None else self.filename


@dataclass(frozen=True, kw_only=True, slots=True)
class Run:
    argv: tuple[str, ...] = ()
    cwd: str | None = None
    mode: str | None = None  # script | module | api | import
    started: float | None = None
    ended: float | None = None
    exit_code: int | None = None
    exception: str | None = None
    end_reason: str | None = None  # exit | exception | signal | killed | running
    python_version: str | None = None
    torch_version: str | None = None
    triton_version: str | None = None
    cuda_version: str | None = None
    devices: tuple[str, ...] = ()
    platform: str | None = None
    hostname: str | None = None
    pid: int | None = None
    rank: int | None = None
    world_size: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    capture_errors: tuple[str, ...] = ()


# ---------------------------------------------------------------------------
# JSON round trip: dataclasses <-> plain dicts, tolerant of unknown and missing keys.

T = TypeVar("T")

_NESTED: dict[type, dict[str, type]] = {}


def to_plain(obj: Any) -> Any:
    """A dataclass (or nested structure of them) as JSON-ready dicts and lists."""
    if hasattr(obj, "__dataclass_fields__"):
        return {k: to_plain(v) for k, v in asdict(obj).items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    return obj


def from_plain(cls: type[T], data: Any) -> T:
    """Build *cls* from a dict written by :func:`to_plain`; unknown keys are ignored."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    nested = _NESTED.get(cls, {})
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        sub = nested.get(f.name)
        if sub is not None and value is not None:
            if isinstance(value, list):
                value = tuple(from_plain(sub, v) for v in value)
            else:
                value = from_plain(sub, value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)


_NESTED.update(
    {
        GraphBreak: {"user_stack": StackFrame},
        Frame: {
            "user_stack": StackFrame,
            "failure": Failure,
            "graph_breaks": GraphBreak,
            "recompiles": Recompile,
            "guards": Guard,
            "metrics": CompileMetrics,
        },
        Kernel: {"origins": Origin, "time": KernelTime},
    }
)
