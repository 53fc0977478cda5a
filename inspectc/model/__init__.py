"""The report model: plain, typed, frozen dataclasses that every reader works from.

Stdlib only. A report file stores these as JSON (see ``schema.py``); nothing here imports
torch, so a report opens on a machine without it. Fields a torch version does not emit are
``None`` ("not recorded"), never missing.

The schema version and its changelog live in ``schema.py``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from inspectc.model.cells import checked_cells
from inspectc.model.compile_id import CompileId as CompileId  # re-exported: readers import it here
from inspectc.model.compile_id import ranked
from inspectc.model.compile_id import without_id_prefix as without_id_prefix

# Autotuning, CUDA graphs and symbolic shapes live in extras.py; they are part of this model.
from inspectc.model.extras import Autotune, CudaGraphs, SymbolicShapes
from inspectc.model.plain import from_plain as from_plain  # re-exported: the model's JSON round trip
from inspectc.model.plain import to_plain as to_plain
from inspectc.model.times import FrameTiming, KernelTime

# Frame statuses, in the order a reader should worry about them.
STATUS_FAILED = "failed"
STATUS_GRAPH_BREAK = "graph_break"
STATUS_EMPTY = "empty_graph"
STATUS_OK = "ok"
STATUS_COMPILING = "compiling"  # the run ended before the frame finished compiling
STATUS_INTERRUPTED = "interrupted"  # SIGINT/SIGTERM stopped the run during this compile

# What a frame row is. Only a compile Dynamo started (a ``dynamo_start``) is a compiled frame
# in the headline; the others are counted on their own lines.
KIND_DYNAMO = "dynamo"
KIND_COMPILED_AUTOGRAD = "compiled_autograd"  # compiled autograd's own graph ("!0")
KIND_EXPORT = "export"  # a strict torch.export trace: Dynamo ran without a dynamo_start
KIND_RECOMPILE_LIMIT = "recompile_limit"  # a compile id refused at the recompile limit
STATUSES = (
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_EMPTY,
    STATUS_OK,
    STATUS_COMPILING,
    STATUS_INTERRUPTED,
)

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
    "compiled_autograd": "Compiled autograd graph",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class StackFrame:
    """One user frame: ``File "filename", line N, in function`` and its source line."""

    filename: str | None
    line: int | None
    function: str | None
    code: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphBreak:
    """A graph break reason, split into what the user needs to read first."""

    reason: str  # one line: "gb_type: explanation", or the older "Unsupported: ..." line
    gb_type: str | None = None
    gb_id: str | None = None  # "GB0059", from the documentation link
    explanation: str | None = None
    hints: tuple[str, ...] = ()
    filename: str | None = None  # where in user code the break happened
    line: int | None = None
    user_stack: tuple[StackFrame, ...] = ()
    raw: str | None = None
    debug_context: str | None = None  # torch's "Developer debug context:"
    frame_skipped: bool = False  # Dynamo gave up on the whole frame and ran it eagerly
    then: str | None = (
        None  # the break Dynamo hit while handling this one ("graph break in loop: ..."), one line
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class FailedGuard:
    """The guard of one earlier cache entry that failed (``expected 2, actual 3``)."""

    text: str
    earlier_compile_id: CompileId | None = None  # stored as its text ("0/0")
    guard: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Recompile:
    """One ``recompile_reasons`` record: ``text``/``earlier_compile_id``/``guard`` are the
    newest entry's failed guard; ``failed`` lists every entry's (newest first)."""

    text: str
    earlier_compile_id: CompileId | None = None  # stored as its text ("0/0")
    guard: str | None = None
    failed: tuple[FailedGuard, ...] = ()

    @property
    def failed_guards(self) -> tuple[FailedGuard, ...]:
        one = FailedGuard(text=self.text, earlier_compile_id=self.earlier_compile_id, guard=self.guard)
        return self.failed or (one,)


@dataclass(frozen=True, kw_only=True, slots=True)
class Guard:
    """One leaf guard: its kind, the value it checks (source) and where it came from."""

    kind: str  # TENSOR_MATCH, ID_MATCH, TYPE_MATCH, LAMBDA_GUARD...; CODE when unknown
    source: str | None  # e.g. "L['x']": the nearest enclosing manager's source=
    code: str  # the check itself
    user_code: str | None = None  # the user's line that installed the guard
    filename: str | None = None  # as torch printed it (shortened relative to site-packages)
    line: int | None = None
    depth: int = 0  # 0 for the root and root-level guards
    function: str | None = None
    hint: str | None = None  # the "(HINT: type MLP)" torch appends to some guards


@dataclass(frozen=True, kw_only=True, slots=True)
class Failure:
    fail_type: str | None
    reason: str | None
    filename: str | None = None
    line: int | None = None
    graph_break: GraphBreak | None = None  # a break that fullgraph=True made fatal, parsed


PHASE_SECONDS = "phases_s"  # CompileMetrics.extra: seconds per compile phase (trace/phases.py)


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

    @property
    def phases(self) -> dict[str, float]:
        """Seconds per compile phase (torch's chromium spans), longest first ({}: not recorded)."""
        found = self.extra.get(PHASE_SECONDS)
        if not isinstance(found, dict):
            return {}
        timed = ((str(k), float(v)) for k, v in found.items() if isinstance(v, (int, float)))
        return dict(sorted(timed, key=lambda kv: -kv[1]))


@dataclass(frozen=True, kw_only=True, slots=True)
class Origin:
    op: str
    filename: str | None = None
    line: int | None = None
    module: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Kernel:
    id: int
    compile_id: CompileId  # stored as its text ("0/1"); carries ``rank``
    rank: int | None = None
    name: str
    language: str  # triton | cpp | extern
    kind: str
    source_size: int
    graph_kind: str = "output_code"  # which output code module it came from
    fused_nodes: tuple[str, ...] = ()
    origins: tuple[Origin, ...] = ()
    time: KernelTime | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compile_id", ranked(self.compile_id, self.rank))


@dataclass(frozen=True, kw_only=True, slots=True)
class Frame:
    compile_id: CompileId  # with ``rank``: the key in the report, stored as its text ("0/1")
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
    timing: FrameTiming | None = None
    attempts: int = 0
    cudagraph_skip_reason: str | None = None
    unknown_events: int = 0
    autotuning: tuple[Autotune, ...] = ()
    cudagraphs: CudaGraphs | None = None
    symbolic_shapes: SymbolicShapes | None = None
    # The frame as the user knows it (trace/names.py): "GPT2LMHeadModel.forward" when
    # ``function`` is a wrapper (or a method), and the user's line that called it.
    callable_name: str | None = None
    call_site: StackFrame | None = None
    kind: str = KIND_DYNAMO  # KIND_*: reports before it read every row as a Dynamo frame

    def __post_init__(self) -> None:
        # The stored text names no rank: the id carries the frame's own.
        object.__setattr__(self, "compile_id", ranked(self.compile_id, self.rank))

    @property
    def shown_name(self) -> str | None:
        """The user-visible callable, else Dynamo's function name."""
        return self.callable_name or self.function

    @property
    def location(self) -> str:
        if self.filename is None:
            return "?"
        return f"{self.filename}:{self.line}" if self.line is not None else self.filename


@dataclass(frozen=True, kw_only=True, slots=True)
class CompileBackend:
    name: str
    options: dict[str, Any] = field(default_factory=dict)
    dynamic: bool | None = None
    mode: str | None = None  # Inductor's mode, known from the options it applied
    fullgraph: bool | None = None


# A ConfigValue's key namespace -> the torch config module it names (``--config``, suggest).
CONFIG_MODULES = {
    "dynamo": "torch._dynamo.config",
    "inductor": "torch._inductor.config",
    "compiler": "torch.compiler.config",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class ConfigValue:
    """A Dynamo/Inductor/torch.compiler option: ``dynamo.capture_scalar_outputs`` = ``True``."""

    key: str  # namespace.name: dynamo. | inductor. | compiler.
    value: str  # repr of the value (or ``+=print`` for an addition)
    origin: str  # "--config" (inspectc run set it) | "run" (non-default when the run ended)


# A frame's identity in one report: its compile id, with its rank. Frames matched across ranks or
# runs have keys of their own (analysis.ranks.RankMatch, analysis.diff.RunMatch).
FrameKey = CompileId  # carries the rank

# Capture's default timing window: per compiled frame, skip 1 call, then time 10.
PROFILE_WINDOW = (1, 10)


@dataclass(frozen=True, kw_only=True, slots=True)
class RunOptions:
    """How the report was made: capture's switches (None: not recorded, e.g. an import)."""

    fresh: bool | None = None
    provenance: bool | None = None
    timings: bool | None = None
    profile_window: tuple[int, ...] | None = None  # (skip, count) calls per compiled frame
    kernel_harness: bool | None = None  # config.benchmark_kernel (schema 3)
    sources: tuple[str, ...] = ()  # imported TORCH_TRACE logs
    compile_backends: tuple[CompileBackend, ...] = ()
    registered_backends: tuple[str, ...] = ()
    config: tuple[ConfigValue, ...] | None = None  # --config settings, then every non-default option


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
    options: RunOptions = field(default_factory=lambda: RunOptions())
    capture_errors: tuple[str, ...] = ()
    # A notebook's cells: the file name IPython compiled each under -> its execution count
    # (``In [3]``); None: not recorded (not a notebook, or an older report). Checked here. Left
    # out of the hash (a dict has none), so a run stays hashable as it was.
    cells: dict[str, int] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", checked_cells(self.cells))

    def cell(self, filename: str | None) -> int | None:
        """The execution count of the notebook cell whose code is *filename*; None: not one."""
        return self.cells.get(filename) if self.cells and filename else None

    @property
    def in_notebook(self) -> bool:
        """Captured in a Jupyter kernel: its argv is the kernel's (``ipykernel_launcher.py -f
        kernel-N.json``), not the user's notebook, which the process never names."""
        first = (self.argv[0] if self.argv else "").replace("\\", "/")
        return (
            first.endswith(("/ipykernel_launcher.py", "/ipykernel/__main__.py"))
            or first == "ipykernel_launcher.py"
        )

    @property
    def command_text(self) -> str | None:
        """The command as a user reads it (None: not recorded); a notebook's says so."""
        if self.in_notebook:
            return "a Jupyter notebook (ipykernel)"
        return shlex.join(self.argv) if self.argv else None
