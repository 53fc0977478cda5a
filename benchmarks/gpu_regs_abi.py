"""A kernel with a function call and the same kernel without, beside cuobjdump and ncu (issue 45).

    ncu --metrics launch__registers_per_thread,launch__occupancy_limit_registers --csv \\
        python benchmarks/gpu_regs_abi.py          # on a CUDA machine; or without ncu

The GPT-2 step's two kernels whose registers ncu reported as 32 where cuobjdump and the driver
said 24 both call ``__assertfail`` (Inductor's bounds check on an embedding index). Here four
small Triton kernels, each launched once at 1 and 4 warps: a plain copy; the copy with a
``tl.device_assert`` compiled in (``debug=True``: a call to ``__assertfail``); the copy with a
``tl.device_print`` behind a condition no program meets (a call to ``vprintf``); and a heavier
kernel (a 64-wide unrolled sum) with the assert. One line per compiled kernel on stdout:
Triton's ``n_regs`` (the driver's), cuobjdump's REG and CALL count of its cubin, and the
driver's blocks per SM; ncu's own figures are its CSV.
"""

from __future__ import annotations

import ctypes
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).parent))
from gpu_regs import cuobjdump  # noqa: E402


@triton.jit
def copy_plain(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x + 1.0, mask=offs < n)


@triton.jit(debug=True)
def copy_assert(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_assert(x > -1.0e30, "out of range")
    tl.store(y_ptr + offs, x + 1.0, mask=offs < n)


@triton.jit
def copy_print(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if pid == 1 << 30:  # never: the call is compiled in, never made
        tl.device_print("x", x)
    tl.store(y_ptr + offs, x + 1.0, mask=offs < n)


@triton.jit(debug=True)
def wide_assert(x_ptr, y_ptr, n, BLOCK: tl.constexpr, WIDTH: tl.constexpr):
    row = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, WIDTH)
    x = tl.load(x_ptr + row[:, None] * WIDTH + cols[None, :], mask=row[:, None] < n)
    tl.device_assert(x > -1.0e30, "out of range")
    tl.store(y_ptr + row, tl.sum(x * x + x, axis=1), mask=row < n)


def blocks_per_sm(function: int, threads: int, shared: int) -> int | None:
    cuda = ctypes.CDLL("libcuda.so.1")
    out = ctypes.c_int()
    done = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        ctypes.byref(out), ctypes.c_void_p(function), ctypes.c_int(threads), ctypes.c_size_t(shared)
    )
    return out.value if done == 0 else None


def main() -> int:
    n, width = 1 << 16, 64
    x = torch.randn(n * width, device="cuda")
    y = torch.empty_like(x)
    folder = Path(tempfile.mkdtemp(prefix="regs-abi-"))
    for warps in (1, 4):
        for fn, extra in (
            (copy_plain, {}),
            (copy_assert, {}),
            (copy_print, {}),
            (wide_assert, {"WIDTH": width}),
        ):
            block = 128 if fn is wide_assert else 1024
            k = fn[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=warps, **extra)
            torch.cuda.synchronize()
            cubin = folder / f"{fn.__name__}_{warps}.cubin"
            cubin.write_bytes(k.asm["cubin"])
            found = cuobjdump(cubin) or {}
            print(
                "ABI "
                + json.dumps(
                    {
                        "kernel": fn.__name__,
                        "warps": warps,
                        "n_regs": k.n_regs,
                        "REG": found.get("REG"),
                        "CALL": found.get("CALL"),
                        "driver_blocks_per_sm": blocks_per_sm(k.function, warps * 32, k.metadata.shared),
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
