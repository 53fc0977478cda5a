"""Run one FX graph three ways on the same inputs and compare: compiled, eager, fp64 eager.

The criterion is ``torch._dynamo.utils.same(ref, res, fp64_ref, tol)``'s, written out so each
figure can be stored: an output is fine when compiled is within ``atol``/``rtol`` of eager, or
when its RMSE from the fp64 reference is at most ``multiplier`` x eager's RMSE + ``tol``/10
(multiplier 2, or 3 for float16/bfloat16 outputs, as ``same`` uses). The RNG state is set to
the same value before each run, so random ops that compiled code replays through torch's RNG
(``fallback_random``) draw the same numbers, and it is put back afterwards.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from inspectc.model.accuracy import DIVERGES, NOT_COMPARED, OK, OutputCheck


@dataclass(frozen=True, slots=True)
class Tolerance:
    atol: float = 1e-4
    rtol: float = 1e-4
    tol: float = 1e-4  # same()'s slack over the fp64 criterion (tol / 10 added)


@dataclass(slots=True)
class Results:
    outputs: list[Any]  # flattened outputs (tensors detached, or plain values)
    grads: list[torch.Tensor | None]  # gradients of the inputs that require grad
    grad_index: list[int]  # which inputs those are


class RngState:
    """torch's CPU (and CUDA, where used) RNG state, taken once and set before each run."""

    def __init__(self) -> None:
        self.cpu = torch.get_rng_state()
        self.cuda = (
            torch.cuda.get_rng_state_all()
            if torch.cuda.is_available() and torch.cuda.is_initialized()
            else None
        )

    def set(self) -> None:
        torch.set_rng_state(self.cpu)
        if self.cuda is not None:
            torch.cuda.set_rng_state_all(self.cuda)


def call(fn: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Call a backend's compiled function the way Dynamo does: positional arguments."""
    return fn(*args)


def clone_inputs(args: Sequence[Any], dtype: torch.dtype | None = None) -> list[Any]:
    """Fresh leaf copies (same requires_grad); floating ones cast to *dtype* when given."""
    out: list[Any] = []
    for a in args:
        if isinstance(a, torch.Tensor):
            c = a.detach()
            c = c.to(dtype) if dtype is not None and c.is_floating_point() else c.clone()
            if a.requires_grad and c.is_floating_point():
                c.requires_grad_(True)
            out.append(c)
        else:
            out.append(a)
    return out


def fp64_module(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """A copy of *gm* whose floating parameters and buffers are float64."""
    m = copy.deepcopy(gm)
    return m.to(torch.float64)


def flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in flatten(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value, key=str) for x in flatten(value[k])]
    return [value]


def run(
    fn: Callable[..., Any],
    args: Sequence[Any],
    rng: RngState,
    *,
    dtype: torch.dtype | None = None,
    grads: bool = False,
    grad_seed: int = 1234,
) -> Results:
    """Run *fn* on fresh copies of *args*; with *grads*, also backward with fixed output grads."""
    inputs = clone_inputs(args, dtype)
    rng.set()
    with torch.enable_grad() if grads else torch.no_grad():
        outs = flatten(call(fn, inputs))
    got: list[torch.Tensor | None] = []
    index = [k for k, i in enumerate(inputs) if isinstance(i, torch.Tensor) and i.requires_grad]
    if grads:
        leaves = [inputs[k] for k in index]
        heads = [o for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
        if leaves and heads:
            gen = torch.Generator().manual_seed(grad_seed)
            seeds = [
                torch.randn(h.shape, generator=gen, dtype=torch.float32).to(h.device, h.dtype) for h in heads
            ]
            got = list(torch.autograd.grad(heads, leaves, seeds, allow_unused=True))
    return Results(
        outputs=[o.detach() if isinstance(o, torch.Tensor) else o for o in outs],
        grads=[g.detach() if g is not None else None for g in got],
        grad_index=index,
    )


def _rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(torch.sqrt(torch.mean(torch.square(a.double() - b.double()))).item())


def _rel(a: torch.Tensor, ref: torch.Tensor) -> float:
    scale = float(ref.double().abs().max().item()) if ref.numel() else 0.0
    diff = float((a.double() - ref.double()).abs().max().item()) if a.numel() else 0.0
    return diff / scale if scale > 0 else diff


def compare_one(name: str, eager: Any, compiled: Any, fp64: Any, tol: Tolerance) -> OutputCheck:
    """One output, by ``same(eager, compiled, fp64_ref=fp64)``'s criterion."""
    if not isinstance(eager, torch.Tensor) or not isinstance(compiled, torch.Tensor):
        if isinstance(eager, torch.Tensor) or isinstance(compiled, torch.Tensor):
            return OutputCheck(name=name, verdict=DIVERGES, reason="a tensor on one side only")
        same = eager == compiled
        return OutputCheck(
            name=name, verdict=OK if same else DIVERGES, reason=None if same else "values differ"
        )
    shape = tuple(int(s) for s in eager.shape)
    dtype = str(eager.dtype).removeprefix("torch.")
    if eager.shape != compiled.shape:
        return OutputCheck(name=name, verdict=DIVERGES, shape=shape, dtype=dtype, reason="shapes differ")
    if not eager.is_floating_point():
        equal = bool(torch.equal(eager.cpu(), compiled.cpu().to(eager.dtype)))
        return OutputCheck(
            name=name,
            verdict=OK if equal else DIVERGES,
            shape=shape,
            dtype=dtype,
            reason=None if equal else "values differ",
        )
    e, c = eager.detach().cpu().double(), compiled.detach().cpu().double()
    r = fp64.detach().cpu().double() if isinstance(fp64, torch.Tensor) and fp64.shape == eager.shape else e
    max_abs = float((c - e).abs().max().item()) if c.numel() else 0.0
    rmse_c, rmse_e = _rmse(c, r), _rmse(e, r)
    close = bool(torch.allclose(c, e, atol=tol.atol, rtol=tol.rtol, equal_nan=True))
    multiplier = 3.0 if eager.dtype in (torch.float16, torch.bfloat16) else 2.0
    near_fp64 = r is not e and not math.isnan(rmse_c) and rmse_c <= multiplier * rmse_e + tol.tol / 10
    eager_rel = _rel(e, r) if r is not e else None
    reason = None if r is not e else "no fp64 reference: compared with eager only"
    rel = _rel(c, r)
    if eager_rel is not None and eager_rel > untrusted_above(eager.dtype):
        # eager is as far from fp64 as a bug would be: the fp64 run drew other random numbers
        # (CUDA's dropout in float64) or the op is precision-sensitive. Errors are against eager.
        rel = _rel(c, e)
        reason = f"fp64 reference far from eager too (eager rel. error {eager_rel:.3g}): error against eager"
    return OutputCheck(
        name=name,
        verdict=OK if close or near_fp64 else DIVERGES,
        shape=shape,
        dtype=dtype,
        max_abs_error=max_abs,
        max_rel_error=rel,
        eager_rel_error=eager_rel,
        rmse_compiled=rmse_c,
        rmse_eager=rmse_e if r is not e else None,
        reason=reason,
    )


def untrusted_above(dtype: torch.dtype) -> float:
    """Eager's relative error from fp64 above which fp64 is no reference for this output."""
    return 5e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-3


def compare(
    eager: Results, compiled: Results, fp64: Results | None, tol: Tolerance, input_names: Sequence[str]
) -> tuple[list[OutputCheck], list[OutputCheck]]:
    """(forward checks, gradient checks) of one run of each."""
    ref = fp64 or eager
    fwd = [
        compare_one(f"out {i}", e, c, ref.outputs[i] if i < len(ref.outputs) else None, tol)
        for i, (e, c) in enumerate(zip(eager.outputs, compiled.outputs, strict=False))
    ]
    if len(eager.outputs) != len(compiled.outputs):
        fwd.append(OutputCheck(name="outputs", verdict=DIVERGES, reason="a different number of outputs"))
    bwd = []
    for i, (e, c) in enumerate(zip(eager.grads, compiled.grads, strict=False)):
        k = eager.grad_index[i] if i < len(eager.grad_index) else -1
        name = f"grad of {input_names[k]}" if 0 <= k < len(input_names) else f"grad {i}"
        if e is None and c is None:
            continue
        if e is None or c is None:
            bwd.append(OutputCheck(name=name, verdict=NOT_COMPARED, reason="no gradient on one side"))
            continue
        bwd.append(compare_one(name, e, c, ref.grads[i] if i < len(ref.grads) else None, tol))
    return fwd, bwd


def diverges(checks: Sequence[OutputCheck]) -> bool:
    return any(c.verdict == DIVERGES for c in checks)
