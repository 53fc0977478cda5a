"""Timing loops of ``inspectc bench``: rounds until stable, per-kernel profiler attribution,
Inductor's per-kernel harness under ``triton.testing.do_bench``, and the bandwidth probe.

Every loop runs rounds until the medians of its last ``window`` rounds agree (CV under
``cv_limit``) or its time budget ends; the figure records which (``Isolated.stable``).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from inspectc.capture.kineto import kernel_kind
from inspectc.store.bench import MODULE, Isolated, cv_of, summarize

CALL_RANGE = "inspectc_bench_call"
Samples = dict[str, list[float]]  # name -> samples (µs)


@dataclass(frozen=True, slots=True)
class Settings:
    budget_s: float = 10.0  # per loop
    cv_limit: float = 0.05
    window: int = 5
    min_rounds: int = 5
    max_rounds: int = 200
    round_s: float = 0.02  # target length of one round


@dataclass(slots=True)
class Outcome:
    samples: Samples
    rounds: int
    stable: dict[str, bool]
    extra: dict[str, dict[str, Any]]

    def figures(self, method: str, **common: Any) -> dict[str, Isolated]:
        out = {}
        for name, values in self.samples.items():
            fig = summarize(
                values,
                method,
                rounds=self.rounds,
                stable=self.stable.get(name, False),
                **common,
                **self.extra.get(name, {}),
            )
            if fig is not None:
                out[name] = fig
        return out


def until_stable(one_round: Callable[[], Samples], settings: Settings, key: str) -> Outcome:
    """Run *one_round* until *key*'s round medians are stable or the budget ends."""
    samples: Samples = {}
    medians: dict[str, list[float]] = {}
    deadline = time.perf_counter() + settings.budget_s
    rounds = 0
    while rounds < settings.max_rounds:
        got = one_round()
        rounds += 1
        for name, values in got.items():
            if values:
                samples.setdefault(name, []).extend(values)
                medians.setdefault(name, []).append(statistics.median(values))
        settled = cv_of(medians.get(key, [])[-settings.window :]) < settings.cv_limit
        if rounds >= settings.min_rounds and (settled or time.perf_counter() > deadline):
            break
    stable = {n: cv_of(m[-settings.window :]) < settings.cv_limit for n, m in medians.items()}
    return Outcome(samples, rounds, stable, {})


def calls_per_round(call: Callable[[], None], sync: Callable[[], None], settings: Settings) -> int:
    t0 = time.perf_counter()
    call()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    return max(1, min(1000, math.ceil(settings.round_s / one)))


# ---------------------------------------------------------- the output code's own harness


def module_benchmark(mod: Any, args: list[Any], device: str, settings: Settings, per_round: int) -> Outcome:
    """Rounds of the output code's ``benchmark_compiled_module`` (it returns seconds per call:
    ``print_performance`` divides ``timed``'s seconds by the calls)."""
    fn = mod.benchmark_compiled_module
    takes_args = "args" in inspect.signature(fn).parameters  # torch <= 2.11: builds its own

    def one_round() -> Samples:
        with contextlib.redirect_stdout(io.StringIO()):  # print_performance prints the figure
            seconds = fn(args, times=per_round, repeat=1) if takes_args else fn(times=per_round, repeat=1)
        return {MODULE: [float(seconds) * 1e6]}

    return until_stable(one_round, settings, MODULE)


# ------------------------------------------------------------------- profiler attribution


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null for the block (C++ writes there, not to sys.stderr)."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def op_key(name: str) -> str:
    """One naming rule for library calls: ``extern_kernels.addmm``, ``torch.ops.aten.addmm.default``
    and the profiler's ``aten::addmm`` are all ``addmm`` (a ``:k`` call suffix is kept apart)."""
    base, _, _ = name.partition(":") if not name.startswith("aten::") else (name, "", "")
    for prefix in ("aten::", "extern_kernels.", "torch.ops.aten.", "aten."):
        if base.startswith(prefix):
            base = base[len(prefix) :]
            break
    return base.split(".")[0]


def name_index(names: list[str]) -> dict[tuple[str, int], str]:
    """Report kernel names by (op or kernel name, 1-based call number within one module call)."""
    index: dict[tuple[str, int], str] = {}
    for name in names:
        if name.startswith(("triton_", "cpp_")) or "." not in name.partition(":")[0]:
            index[(name, 1)] = name
            continue
        _, _, suffix = name.partition(":")
        index[(op_key(name), int(suffix) if suffix.isdigit() else 1)] = name
    return index


def _kernel_events(event: Any) -> list[Any]:
    found = []
    for child in event.cpu_children:
        if kernel_kind(child.name)[0] != "other":
            found.append(child)  # the outermost range of a kernel or library call
        else:
            found.extend(_kernel_events(child))
    return found


def attribute_call(
    call_event: Any, index: dict[tuple[str, int], str], device: bool
) -> tuple[Samples, Samples]:
    """One isolated module call: time per report kernel (every launch summed), launches."""
    times: Samples = {}
    launches: Samples = {}
    seen: dict[str, int] = {}
    for ev in _kernel_events(call_event):
        kind, pname = kernel_kind(ev.name)
        if kind == "extern":
            seen[pname] = seen.get(pname, 0) + 1
            key = (op_key(pname), seen[pname])
        else:
            key = (pname, 1)
        name = index.get(key)
        if name is None:
            continue
        us = float(ev.device_time_total if device else ev.cpu_time_total)
        times.setdefault(name, [0.0])[0] += us
        launches.setdefault(name, [0.0])[0] += 1
    total = sum(v[0] for v in times.values()) if device else float(call_event.cpu_time_total)
    times[MODULE] = [total]
    return times, launches


def module_profiler(
    call: Callable[[], None], names: list[str], device: bool, settings: Settings, per_round: int
) -> Outcome:
    """Rounds of *per_round* isolated calls under torch.profiler: per-call samples per kernel."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device else [])
    index = name_index(names)
    launch_counts: Samples = {}

    def one_round() -> Samples:
        prof = profile(activities=activities)
        with quiet_stderr():  # Kineto's profiler_start/stop lines
            prof.start()
        try:
            call()  # unrecorded: the first call under a fresh profiler pays its setup
            for _ in range(per_round):
                with record_function(CALL_RANGE):
                    call()
            if device:
                torch.cuda.synchronize()
        finally:
            with quiet_stderr():
                prof.stop()
        got: Samples = {}
        for ev in prof.events():
            if ev.name == CALL_RANGE and ev.cpu_parent is None and ev.device_type.name == "CPU":
                times, launches = attribute_call(ev, index, device)
                for name, v in times.items():
                    got.setdefault(name, []).extend(v)
                for name, v in launches.items():
                    launch_counts.setdefault(name, []).extend(v)
        return got

    outcome = until_stable(one_round, settings, MODULE)
    outcome.extra = {n: {"launches": statistics.fmean(v)} for n, v in launch_counts.items() if v}
    return outcome


L2_FLUSH_BYTES = 256 << 20  # more than any GPU's L2 (H200: 60 MiB); triton.testing.do_bench's size


class _Flushed:
    """A Triton kernel of an output code module that overwrites the L2 cache before each launch."""

    def __init__(self, kernel: Any, flush: Callable[[], Any]) -> None:
        self._kernel, self._flush = kernel, flush

    def run(self, *args: Any, **kwargs: Any) -> Any:
        self._flush()
        return self._kernel.run(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)


@contextlib.contextmanager
def l2_flushed(mod: Any, names: list[str], flush: Callable[[], Any] | None = None) -> Iterator[None]:
    """Within the block, the module's kernels *names* call *flush* before each launch; by default
    a ``zero_`` of 256 MiB on the GPU (an aten op, so the profiler attributes its time to no
    report kernel). Nothing happens for no names; the kernels are put back after the block."""
    wrapped = {n: k for n in names if callable(getattr(k := getattr(mod, n, None), "run", None))}
    if not wrapped:
        yield
        return
    scratch = None
    if flush is None:
        import torch

        scratch = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
        flush = scratch.zero_
    for n, k in wrapped.items():
        setattr(mod, n, _Flushed(k, flush))
    try:
        yield
    finally:
        for n, k in wrapped.items():
            setattr(mod, n, k)
        del scratch


# --------------------------------------------------------- per-kernel harness (Triton, CUDA)


def kernel_harness(autotuner: Any) -> Callable[[], None] | None:
    """The kernel's own ``call(get_args())`` when Inductor wrote its harness, else None."""
    fn = getattr(getattr(autotuner, "fn", None), "fn", None)
    scope = getattr(fn, "__globals__", {})
    if not (callable(scope.get("get_args")) and callable(scope.get("call"))):
        return None
    args = scope["get_args"]()
    return lambda: scope["call"](args)


def do_bench_rounds(fn: Callable[[], None], settings: Settings) -> Outcome:
    """Rounds of ``triton.testing.do_bench`` (every rep's time kept), per launch."""
    from triton.testing import do_bench

    def one_round() -> Samples:
        times = do_bench(fn, warmup=5, rep=20, return_mode="all")
        return {MODULE: [float(ms) * 1e3 for ms in times]}

    return until_stable(one_round, settings, MODULE)


def bandwidth_probe(nbytes: int = 1 << 30) -> tuple[float, str]:
    """Device-to-device copy bandwidth in GB/s (bytes read + written over do_bench's median)."""
    import torch
    from triton.testing import do_bench

    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = do_bench(lambda: dst.copy_(src), warmup=25, rep=200, return_mode="median")
    torch.cuda.empty_cache()
    return 2 * nbytes / 1e9 / (float(ms) / 1e3), f"copy_ of {nbytes >> 20} MiB, do_bench median"
