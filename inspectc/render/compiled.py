"""What a kernel compiled to, as lines of text: metadata, occupancy, launches (Triton); the
vector ISA and compile command (C++). Read by ``inspectc ir`` and the TUI. No torch."""

from __future__ import annotations

from inspectc.model import Kernel
from inspectc.model.decode.kernel_meta import cpp_arg_types
from inspectc.model.irmap import STAGES
from inspectc.model.kernel_detail import (
    ArgRecord,
    CpuBuild,
    KernelDetail,
    achieved_estimate,
    grid_of,
    occupancy,
)


def detail_lines(detail: KernelDetail) -> list[str]:
    """Compile metadata, occupancy and launches of a Triton kernel, one fact a line."""
    cfg = detail.config or {}
    out = [
        f"config: {cfg.get('kwargs', {})} num_warps={detail.num_warps} num_stages={detail.num_stages}"
        + (f" (chosen among {detail.candidates})" if detail.candidates else ""),
        f"registers/thread: {_v(detail.n_regs)}  spills: {_spills(detail.n_spills)}"
        f"  shared memory: {_v(detail.shared)} B",
    ]
    occ = occupancy(detail)
    if occ is not None:
        out.append(
            f"occupancy (estimate): {occ.blocks_per_sm} blocks/SM, {occ.warps_per_sm} warps/SM"
            f" = {occ.fraction:.0%} of the SM's warps, limited by {occ.limited_by}"
        )
        grid = grid_of(detail, detail.launches[0]) if detail.launches else None
        achieved = achieved_estimate(detail, occ, grid)
        if achieved is not None and grid is not None:
            out.append(
                f"achieved occupancy (estimate from the first launch's grid {grid}): {achieved:.0%}"
                " (a grid short of one wave leaves SMs part-filled; several waves drain at the end)"
            )
    for i, launch in enumerate(detail.launches):
        grid = grid_of(detail, launch)
        args = ", ".join(_arg_text(a) for a in launch.args)
        label = "first launch" if i == 0 else f"launch {i + 1} (differs)"
        out.append(f"{label}: x{launch.count} grid={grid if grid else 'not recorded'} ({args})")
    if detail.launches_dropped:
        out.append(f"{detail.launches_dropped} more differing launches not kept (cap reached)")
    for stage in STAGES:
        if stage in detail.truncated:
            out.append(f"{stage}: cut at the per-kernel cap (full size {detail.truncated[stage]} characters)")
        elif stage in detail.missing:
            out.append(f"{stage}: not recorded ({detail.missing[stage]})")
    return out


def _v(value: object) -> str:
    return "not recorded" if value is None else str(value)


def _arg_text(a: ArgRecord) -> str:
    name = a.name or "?"
    if a.kind == "tensor":
        return f"{name}: {a.dtype or '?'}{list(a.shape or ())} stride {list(a.stride or ())}"
    if a.kind == "scalar":
        return f"{name}={a.value}"
    return f"{name}=None"


def cpp_lines(kernel: Kernel, build: CpuBuild | None) -> list[str]:
    if build is None:
        return [
            "vector ISA and compile command: not recorded (captured by an inspectc that did not record it, or no C++ kernel built in the run)"
        ]
    return [
        f"vector ISA: {build.vec_isa or 'none (scalar code)'}"
        + (f" ({build.vec_width_bits}-bit)" if build.vec_width_bits else ""),
        f"compile command (as Inductor builds a C++ kernel at this setting): {build.command}",
        f"argument types: {', '.join(cpp_arg_types(kernel.meta))}",
    ]


def _spills(n: int | None) -> str:
    """Triton's ``n_spills`` is the kernel's local memory per thread over 4
    (``CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4``): register spills, or a local array such as
    libdevice's sin/cos range-reduction table; the bytes say which to look for in the SASS."""
    if not n:
        return _v(n)
    return f"{n} ({4 * n} B of local memory per thread: spills or a local array)"
