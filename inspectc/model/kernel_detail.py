"""What a kernel compiled to and how it was launched: IR stages, compile metadata, launches.

Stdlib only. Capture (``capture/triton_detail.py``) writes one ``inspectc_kernel_detail``
event per Triton kernel it saw launch (JSON of :class:`KernelDetail`, compressed like every
payload) and one ``inspectc_cpu_build`` event per process that compiled C++ kernels
(:class:`CpuBuild`). A reader joins a detail to a report :class:`Kernel` by name and by its
Python source (names repeat across graphs; the source is the kernel itself).

IR text is capped per kernel (``IR_CAP_CHARS``): a stage past the cap is cut, and
``truncated`` names it, so a reader says "cut at N characters" instead of showing half a file
as whole.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from inspectc.model import Kernel, from_plain

DETAIL_EVENT = "inspectc_kernel_detail"
CPU_BUILD_EVENT = "inspectc_cpu_build"
IR_CAP_CHARS = int(os.environ.get("INSPECTC_IR_CAP_KB", "2048") or 2048) * 1024  # per kernel, all stages
MAX_COUNT = 1 << 63  # no count, size or limit of a kernel is larger
LAUNCH_CAP = 8  # launch records kept per kernel: the first and the next ones that differ

# H200 (sm_90) limits, for kernels whose device properties were not recorded.
H200_LIMITS = {"regs_per_sm": 65536, "smem_per_sm": 228 * 1024, "warps_per_sm": 64, "blocks_per_sm": 32}
MAX_Y_GRID = 65535  # CUDA's limit on a grid's y (and z) blocks
SUB_PARTITIONS = 4  # an SM's schedulers (sm_70 on): each holds whole warps of its quarter of the registers


@dataclass(frozen=True, kw_only=True, slots=True)
class ArgRecord:
    """One launch argument: a tensor (shape/stride/dtype/device) or a scalar value."""

    kind: str  # tensor | scalar | none
    name: str | None = None  # the kernel parameter (triton signature) or the output-code buffer
    shape: tuple[int, ...] | None = None
    stride: tuple[int, ...] | None = None
    dtype: str | None = None  # torch dtype name without "torch." ("float32")
    device: str | None = None
    offset: int = 0  # storage offset, elements
    value: Any = None  # a scalar's value


@dataclass(frozen=True, kw_only=True, slots=True)
class Launch:
    """A launch as recorded: its arguments, the grid, and how many launches looked like it."""

    args: tuple[ArgRecord, ...] = ()
    grid: tuple[int, ...] | None = None
    count: int = 1  # launches with this exact signature (counted up to the check limit)
    source: str = "runtime"  # runtime (captured at launch) | output_code (read from the call)


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelDetail:
    name: str
    language: str = "triton"
    python_file: str | None = None  # where Inductor wrote the kernel (the stages' locations)
    python_source: str | None = None  # that file's text: the lines the mapping numbers
    config: dict[str, Any] = field(default_factory=dict)  # the config chosen: kwargs, warps, stages
    candidates: int | None = None  # configs autotuning chose among
    num_warps: int | None = None
    num_stages: int | None = None
    n_regs: int | None = None  # registers per thread
    n_spills: int | None = None
    shared: int | None = None  # bytes of shared memory per block
    cache_hash: str | None = None  # Triton's cache key of the binary
    stages: dict[str, str] = field(default_factory=dict)  # ttir, ttgir, llir, ptx, sass -> text
    truncated: dict[str, int] = field(default_factory=dict)  # stage -> its full size, where cut
    missing: dict[str, str] = field(default_factory=dict)  # stage -> why not recorded
    launches: tuple[Launch, ...] = ()
    launches_dropped: int = 0  # differing launches past LAUNCH_CAP
    grid_type: str | None = None
    device: dict[str, Any] = field(default_factory=dict)  # triton_meta's device properties


@dataclass(frozen=True, kw_only=True, slots=True)
class CpuBuild:
    """How this process built C++ kernels: the vector ISA Inductor picked and the command."""

    vec_isa: str | None = None  # "avx512", "avx2", "neon", ... ; "" when none is usable
    vec_width_bits: int | None = None
    command: str | None = None  # the compile command Inductor builds for a kernel at -O3
    compiler: str | None = None


def parse_detail(payload: str | None) -> KernelDetail | None:
    try:
        data = json.loads(payload or "")
        return from_plain(KernelDetail, data)
    except (ValueError, TypeError, RecursionError):
        return None


def parse_cpu_build(payload: str | None) -> CpuBuild | None:
    try:
        return from_plain(CpuBuild, json.loads(payload or ""))
    except (ValueError, TypeError, RecursionError):
        return None


def matches(detail: KernelDetail, kernel: Kernel, kernel_source: str) -> bool:
    """The detail is this kernel's: same name, and its Python source is in the kernel's code."""
    if detail.name != kernel.name:
        return False
    body = (detail.python_source or "").strip()
    return not body or body in kernel_source


@dataclass(frozen=True, kw_only=True, slots=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int
    fraction: float  # resident warps / the SM's warp limit
    limited_by: str  # registers | shared memory | warps | blocks
    limits: dict[str, int] = field(default_factory=dict)


def occupancy(detail: KernelDetail) -> Occupancy | None:
    """Resident blocks per SM from registers, shared memory and warps (sm_90 rules, as CUDA's
    occupancy calculator: registers allocated per warp in 256s, each of the SM's 4 sub-partitions
    holding whole warps of its quarter of the register file; shared memory allocated in 128 B
    steps, 1 KiB more reserved per block, at the largest carveout: the driver may pick a smaller
    one, which ncu's shared-memory limit reflects, but never one that lowers the occupancy)."""
    warps, regs = _count(detail.num_warps, 1), _count(detail.n_regs, 0)
    if warps is None or regs is None:
        return None
    dev = detail.device if isinstance(detail.device, dict) else {}
    regs_sm = _count(dev.get("regs_per_multiprocessor"), 1) or H200_LIMITS["regs_per_sm"]
    threads_sm = _count(dev.get("max_threads_per_multi_processor"), 32)
    warps_sm = threads_sm // 32 if threads_sm else H200_LIMITS["warps_per_sm"]
    regs_per_warp = -(-max(regs, 1) * 32 // 256) * 256
    warps_by_regs = SUB_PARTITIONS * (regs_sm // SUB_PARTITIONS // regs_per_warp)
    limits = {
        "registers": warps_by_regs // warps,
        "warps": warps_sm // warps,
        "blocks": H200_LIMITS["blocks_per_sm"],
    }
    smem = -(-(_count(detail.shared, 0) or 0) // 128) * 128 + 1024  # allocated in 128 B steps
    limits["shared memory"] = H200_LIMITS["smem_per_sm"] // smem
    by = min(limits, key=lambda k: limits[k])
    blocks = max(limits[by], 0)
    return Occupancy(
        blocks_per_sm=blocks,
        warps_per_sm=blocks * warps,
        fraction=min(blocks * warps / warps_sm, 1.0),
        limited_by=by,
        limits=limits,
    )


def achieved_estimate(
    detail: KernelDetail, occ: Occupancy | None, grid: tuple[int, ...] | None
) -> float | None:
    """The occupancy the launch's grid allows, as ncu's achieved occupancy averages it over the
    cycles an SM is active: a grid of fewer blocks than one full wave puts blocks / SMs on each
    active SM (one at least); a grid of several waves keeps each SM full (the theoretical
    occupancy) but for the drain of its last B blocks, which leave one by one: x (1 - B / 2n),
    n blocks per SM. Fitted on resnet18 on an H200 (58 of 75 within 10 points of ncu; the rounds
    model 49, the theoretical alone 47), checked on GPT-2 (benchmarks/gpu_resources_h200.md).
    None where a figure is missing."""
    warps = _count(detail.num_warps, 1)
    dev = detail.device if isinstance(detail.device, dict) else {}
    sms = _count(dev.get("multi_processor_count"), 1)
    threads_sm = _count(dev.get("max_threads_per_multi_processor"), 32)
    warps_sm = threads_sm // 32 if threads_sm else H200_LIMITS["warps_per_sm"]
    if occ is None or not occ.blocks_per_sm or warps is None or sms is None or not grid:
        return None
    blocks = 1
    for n in grid:
        if n < 1 or blocks > MAX_COUNT:
            return None
        blocks *= n
    if blocks <= sms * occ.blocks_per_sm:
        return min(max(1.0, blocks / sms) * warps / warps_sm, occ.fraction)
    # several waves: full SMs, then each drains its last blocks_per_sm over one block's life
    return occ.fraction * (1 - occ.blocks_per_sm * sms / (2 * blocks))


def _count(value: object, least: int) -> int | None:
    """A recorded count of at least *least*; None for anything else (not recorded: a report is
    untrusted, and a zero or negative limit would divide by zero)."""
    if isinstance(value, int) and not isinstance(value, bool) and least <= value < MAX_COUNT:
        return value
    return None


def grid_of(detail: KernelDetail, launch: Launch) -> tuple[int, ...] | None:
    """The grid Inductor's launcher computes (Grid1D/2D/3D: numel / block per axis)."""
    if launch.grid is not None:
        return launch.grid
    axes = {"Grid1D": "x", "Grid2D": "xy", "Grid3D": "xyz", "Grid2DWithYZOverflow": "xy"}.get(
        detail.grid_type or ""
    )
    if axes is None:
        return None
    values = {a.name: a.value for a in launch.args if a.kind == "scalar" and a.name}
    kwargs = detail.config.get("kwargs") if isinstance(detail.config, dict) else None
    grid: list[int] = []
    for axis in axes:
        numel = _count(values.get(f"{axis}numel"), 0)
        block = _count(kwargs.get(f"{axis.upper()}BLOCK", 1) if isinstance(kwargs, dict) else 1, 1)
        if numel is None or block is None:
            return None
        grid.append(-(-numel // block))
    if detail.grid_type == "Grid2DWithYZOverflow":  # y past CUDA's limit spills into z
        z = -(-grid[1] // MAX_Y_GRID)
        grid = [grid[0], -(-grid[1] // z) if z else 0, z]
    return tuple(grid) + (1,) * (3 - len(grid))
