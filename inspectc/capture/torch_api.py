"""Every private torch touch point of capture, one small function each (torch 2.11-2.14).

Capture reads and sets a handful of torch internals: Inductor config flags, Dynamo's
backend cache and guard-complete hook, the structured-trace intern table, Inductor's
autotuning feedback hook, the profiler's raw Kineto results. They live here (and, for
torch.compile's own options and config modules, in :mod:`inspectc.capture.torch_config`), and
only there, so that a new torch breaks one function, not a capture.

Each function names the internals it touches and never raises for a torch that lacks them:
it returns :class:`Missing` (why, for ``run.capture_errors``) where capture should say what
it could not record, or ``None`` where absence is normal. torch is imported lazily, inside
the functions: importing this module loads no torch.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspectc.errors import TorchMissing
from inspectc.trace import live

TRACE_LOGGER = "torch.__trace"  # torch._logging._internal.trace_log: what TORCH_TRACE writes
TESTED = ((2, 11), (2, 14))  # torch minor versions these touch points are written for

Restore = Callable[[], None]
GuardHook = Callable[[bool], bool]
_SELECT_ALGORITHM = "torch._inductor.select_algorithm"


@dataclass(frozen=True, slots=True)
class Missing:
    """A touch point this torch does not have, or that failed; *why* goes into the report."""

    why: str


def list_backends(include_all: bool) -> tuple[str, list[str]]:
    """(torch version, backend names) as ``torch._dynamo.list_backends`` gives them
    (``inspectc backends``: the one command that imports torch to read, by nature)."""
    try:
        import torch
        import torch._dynamo
    except ImportError as exc:
        raise TorchMissing(f"cannot list backends: torch does not import here ({exc})") from None
    names = torch._dynamo.list_backends(exclude_tags=()) if include_all else torch._dynamo.list_backends()
    return torch.__version__, sorted(str(n) for n in names)


# -- versions ---------------------------------------------------------------------------
def torch_version() -> str | None:
    """``torch.__version__`` (imports torch: capture starts only when torch is there)."""
    import torch

    return str(getattr(torch, "__version__", "")) or None


def cuda_version() -> str | None:
    """``torch.version.cuda``: None for CPU-only builds."""
    import torch

    version = getattr(getattr(torch, "version", None), "cuda", None)
    return str(version) if version else None


def _minor_version() -> tuple[int, int] | None:
    """(major, minor) of ``torch.__version__``; None when it does not read as numbers."""
    parts = (torch_version() or "").split("+")[0].split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def untested_version() -> str | None:
    """A note when ``torch.__version__`` is outside :data:`TESTED`, else None."""
    minor = _minor_version()
    if minor is None:
        return f"torch version {torch_version() or ''!r} not understood: some details may be missing"
    if TESTED[0] <= minor <= TESTED[1]:
        return None
    low, high = (f"{a}.{b}" for a, b in TESTED)
    return f"torch {torch_version()} is outside the versions inspectc knows ({low}-{high}): details may be missing"


def provenance_in_cache_key() -> bool:
    """Whether Inductor's FX graph cache key holds the provenance level (torch >= 2.12:
    ``FxGraphHashDetails.provenance_tracking_level``): a cache entry of a run without
    provenance then never serves a run with it. An unreadable version counts as not."""
    minor = _minor_version()
    return minor is not None and minor >= (2, 12)


# -- Inductor config flags ----------------------------------------------------------------
def _set_inductor_config(section: str | None, name: str, value: Any) -> Restore | Missing:
    """Set ``torch._inductor.config[.section].name``; the returned function puts it back."""
    where = "torch._inductor.config" + (f".{section}" if section else "")
    try:
        config: Any = importlib.import_module("torch._inductor.config")
    except ImportError as exc:
        return Missing(f"cannot import torch._inductor.config ({exc})")
    target = getattr(config, section, None) if section else config
    if target is None or not hasattr(target, name):
        return Missing(f"this torch has no {where}.{name}")
    old = getattr(target, name)
    setattr(target, name, value)
    return lambda: setattr(target, name, old)


def disable_inductor_caches() -> Restore | Missing:
    """``torch._inductor.config.force_disable_caches = True`` (``--fresh``: compile afresh)."""
    return _set_inductor_config(None, "force_disable_caches", True)


def enable_provenance_tracking(level: int = 1) -> Restore | Missing:
    """``torch._inductor.config.trace.provenance_tracking_level = level``.

    Makes Inductor emit the ``inductor_provenance_tracking_*`` artifacts (kernel <-> FX node
    mappings and kernel stack traces) that fusion groups are built from.
    """
    return _set_inductor_config("trace", "provenance_tracking_level", level)


def enable_cpp_kernel_profile() -> Restore | Missing:
    """``torch._inductor.config.cpp.enable_kernel_profile = True``.

    Named profiler ranges around C++ kernels (kernel timings read them). The flag is part of
    the FX graph cache key and changes no numerics, so it also keeps capture's compiles apart
    from cache entries of plain runs built without provenance (torch <= 2.11 leaves the
    provenance level out of the key).
    """
    return _set_inductor_config("cpp", "enable_kernel_profile", True)


def enable_benchmark_kernel() -> Restore | Missing:
    """``torch._inductor.config.benchmark_kernel = True`` (``inspectc run --kernel-harness``).

    Inductor then writes each Triton kernel's own ``get_args()``/``call()`` harness into its
    source and ``kernel_num_gb``/``kernel_flop`` into its ``inductor_meta``: what ``inspectc
    bench`` times per kernel and the roofline reads. It prints "Compiled module path" on
    stderr per compile, so it is off by default.
    """
    return _set_inductor_config(None, "benchmark_kernel", True)


def single_compile_thread() -> Restore | Missing:
    """``compile_threads = 1``: ``inspectc bench`` compiles a saved module without a worker pool."""
    return _set_inductor_config(None, "compile_threads", 1)


def load_output_code(code: str) -> Any:
    """Load an output code module as Inductor does (``PyCodeCache.load``): kernels compile here."""
    from torch._inductor.codecache import PyCodeCache

    return PyCodeCache.load(code)


# -- structured trace -----------------------------------------------------------------------
def interned_strings() -> list[tuple[str, int]] | Missing:
    """``torch._logging.structured.INTERN_TABLE``: strings interned before capture attached.

    torch emits each interned string (file names of stack frames) once, as a ``str`` record;
    strings interned before the trace handler was attached must be copied from the table.
    """
    try:
        from torch._logging.structured import INTERN_TABLE
    except ImportError as exc:
        return Missing(f"this torch has no torch._logging.structured.INTERN_TABLE ({exc})")
    if not isinstance(INTERN_TABLE, dict):
        return Missing(f"torch._logging.structured.INTERN_TABLE is a {type(INTERN_TABLE).__name__}")
    return [(str(text), int(index)) for text, index in list(INTERN_TABLE.items())]


def current_compile_id() -> dict[str, int]:
    """``torch._guards.CompileContext.current_compile_id()`` as trace metadata keys.

    ``frame_id``, ``frame_compile_id`` and ``compiled_autograd_id`` where set; empty outside
    a compile, or when this torch has no CompileContext.
    """
    guards = sys.modules.get("torch._guards")
    context = getattr(guards, "CompileContext", None)
    current = getattr(context, "current_compile_id", None)
    if current is None:
        return {}
    return live.compile_id_metadata(current())


def kernel_post_grad_nodes() -> dict[str, list[str]] | Missing:
    """``torch._inductor.debug._inductor_triton_kernel_to_post_grad_node_info``, copied.

    Kernel call site (``cpp_fused_sum_0:2``) -> post-grad FX node names. Inductor fills it
    while it generates code; for a lazily compiled backward graph it is never written to the
    ``inductor_provenance_tracking_node_mappings`` artifact (that needs the forward's
    pre-grad graph id), so capture reads it here. Outside a compile's provenance context the
    table only grows (one process, every backward): callers keep what they saw before.
    """
    debug = sys.modules.get("torch._inductor.debug")
    table = getattr(debug, "_inductor_triton_kernel_to_post_grad_node_info", None)
    if debug is None:
        return Missing("torch._inductor.debug is not loaded")
    if not isinstance(table, dict):
        return Missing(
            "this torch has no torch._inductor.debug._inductor_triton_kernel_to_post_grad_node_info"
        )
    return {str(k): [str(n) for n in v] for k, v in list(table.items()) if isinstance(v, (list, tuple))}


# -- autotuning ------------------------------------------------------------------------------
def add_autotune_feedback(saver: Callable[..., None]) -> Restore | None:
    """Add *saver* to Inductor's autotuning feedback hooks; None until that is possible.

    ``torch._inductor.select_algorithm.add_feedback_saver`` and, to remove it again,
    ``get_algorithm_selector_cache().feedback_saver_fns``. Only once Inductor imported
    ``select_algorithm`` itself (importing it costs ~1 s), so None means "not yet" (or a torch
    without the hook): call again later. The first call creates the selector cache, which
    emits trace events of its own: a caller that calls this from a trace handler must guard
    against re-entry.
    """
    module = sys.modules.get(_SELECT_ALGORITHM)
    add = getattr(module, "add_feedback_saver", None)
    selector = getattr(module, "get_algorithm_selector_cache", None)
    if add is None or selector is None:
        return None  # still importing, or a torch without the hook
    add(saver)

    def remove() -> None:
        savers = getattr(selector(), "feedback_saver_fns", None)
        while isinstance(savers, list) and saver in savers:
            savers.remove(saver)

    return remove


# -- process and devices ---------------------------------------------------------------------
def dist_rank() -> tuple[int | None, int | None]:
    """(rank, world size) from torchrun's ``RANK``/``WORLD_SIZE``; (None, None) when unset or odd."""
    rank = os.environ.get("RANK")
    world = os.environ.get("WORLD_SIZE")
    try:
        return (int(rank) if rank else None, int(world) if world else None)
    except ValueError:
        return None, None


def devices() -> tuple[str, ...] | Missing:
    """Names of the CUDA devices in use, then ``cpu: <processor>``.

    ``torch.cuda.is_initialized()``/``get_device_name``: only when the program itself
    initialised CUDA, so that capture never creates a CUDA context.
    """
    cpu = f"cpu: {platform.processor() or platform.machine()}"
    cuda = getattr(sys.modules.get("torch"), "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return (cpu,)
    try:
        names = tuple(str(cuda.get_device_name(i)) for i in range(cuda.device_count()))
    except (RuntimeError, AssertionError) as exc:  # a driver error, a device gone
        return Missing(f"CUDA device names: {type(exc).__name__}: {exc}")
    return (*names, cpu)


# -- frame-entry hook and profiler (kernel timings) ---------------------------------------------
def swap_guard_complete_hook(hook: GuardHook | None) -> GuardHook | None | Missing:
    """Install *hook* as Dynamo's guard-complete hook; return the hook it replaced.

    ``torch._C._dynamo.eval_frame.set_guard_complete_hook``: called on every entry into a
    compiled frame, after its guards passed, with ``cache_hit``; returns the previous hook.
    """
    try:
        from torch._C._dynamo.eval_frame import set_guard_complete_hook
    except ImportError as exc:
        return Missing(f"this torch has no set_guard_complete_hook ({exc})")
    new: Any = hook  # torch types it as its own DynamoGuardCompleteHook protocol
    previous: GuardHook | None = set_guard_complete_hook(new)
    return previous


def thread_settings() -> dict[str, int]:
    """torch's intra-op and inter-op thread pool sizes (what CPU kernel times depend on)."""
    import torch

    return {"threads": torch.get_num_threads(), "interop_threads": torch.get_num_interop_threads()}


def profiler_running() -> bool:
    """Whether a profiler is on: ``torch.autograd.profiler._is_profiler_enabled``.

    Falls back to ``torch.autograd._profiler_enabled()`` (the C++ profiler state).
    """
    import torch

    profiler = getattr(torch.autograd, "profiler", None)
    enabled = getattr(profiler, "_is_profiler_enabled", None)
    if isinstance(enabled, bool):
        return enabled
    query = getattr(torch.autograd, "_profiler_enabled", None)
    return bool(query()) if query is not None else False


def start_profiler() -> Any:
    """Start and return a bare ``torch.profiler.profile`` (CPU, and CUDA once initialised)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        activities.append(ProfilerActivity.CUDA)
        # Kineto leaves CUPTI subscribed after a window unless TEARDOWN_CUPTI=1: every later
        # kernel launch then pays its callbacks (a transformer block's step measured 1.27x on
        # an H200 after one closed window). torch sets "0" itself where teardown is unsafe
        # (CUDA graphs on CUDA < 12.6); a value set by the user or torch is kept.
        os.environ.setdefault("TEARDOWN_CUPTI", "1")
    prof = profile(
        activities=activities,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
    )
    prof.start()
    return prof


def stop_profiler(prof: Any) -> Any | Missing:
    """Stop *prof*; return its raw Kineto results (``prof.profiler.kineto_results``).

    The raw results (``.events()`` gives ``_KinetoEvent`` objects) skip building the
    ``key_averages`` tables, whose cost is what keeps profiling windows short.
    """
    prof.stop()
    results = getattr(getattr(prof, "profiler", None), "kineto_results", None)
    if results is None:
        return Missing("this torch's profiler has no profiler.kineto_results")
    return results


def cupti_teardown_started() -> bool:
    """Whether a profiler stop in this process started Kineto's CUPTI teardown.

    With ``TEARDOWN_CUPTI=1`` and CUDA profiled, each ``prof.stop()`` starts a detached
    thread (``CuptiActivityApi::teardownContext``) that waits without a timeout on a static
    condition variable, signalled from the callback of a later CUDA *runtime* API call.
    """
    cuda = getattr(sys.modules.get("torch"), "cuda", None)
    return cuda is not None and os.environ.get("TEARDOWN_CUPTI") == "1" and bool(cuda.is_initialized())


def kineto_activity(event: Any) -> str:
    """Kineto activity type of a raw event (``_KinetoEvent.activity_type()``, torch >= 2.12).

    torch <= 2.11 has no ``activity_type()``: there it is inferred. Device events are kernels
    (or memcpy/memset) unless they are the user annotations torch also records on the GPU
    stream; CPU events named like CUDA runtime/driver calls (cudaLaunchKernel,
    cuLaunchKernelEx) are runtime events.
    """
    get = getattr(event, "activity_type", None)
    if get is not None:
        return str(get())
    name = event.name()
    if not str(event.device_type()).endswith("CPU"):
        if name.startswith(("## ", "Torch-Compiled Region", "CompiledFunction")):
            return "gpu_user_annotation"
        return "kernel"
    if name.startswith("cuda") or (name.startswith("cu") and name[2:3].isupper()):
        return "cuda_runtime"
    return "cpu_op"
