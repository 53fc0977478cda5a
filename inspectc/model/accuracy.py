"""Accuracy results (``inspectc accuracy``): compiled against eager and an fp64 reference.

Stdlib only: readers open these results without torch. The meta key ``accuracy`` holds one
JSON :class:`AccuracyRun` (schema 3, additive: an older inspectc ignores the key, and a
report without it reads as "accuracy not checked").

A graph's output *diverges* when it fails the criterion of ``torch._dynamo.utils.same(ref,
res, fp64_ref, tol)``: compiled is neither within ``atol``/``rtol`` of eager nor about as near
the fp64 reference as eager is (its RMSE from fp64 at most ``multiplier`` x eager's + tol/10).
So float noise that eager has too is never called a bug.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspectc.errors import InspectcError
from inspectc.model import CompileId, from_plain
from inspectc.model.compile_id import ranked

META_KEY = "accuracy"
OK = "ok"
DIVERGES = "diverges"
NOT_COMPARED = "not compared"
ERROR = "error"


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputCheck:
    """One output of a graph (or one gradient of a graph input), compared three ways."""

    name: str  # "out 0", or "grad of primals/L_x_" for a gradient
    verdict: str  # ok | diverges | not compared
    shape: tuple[int, ...] = ()
    dtype: str | None = None
    max_abs_error: float | None = None  # |compiled - eager|, the largest
    max_rel_error: float | None = None  # |compiled - fp64| / max|fp64|
    eager_rel_error: float | None = None  # |eager - fp64| / max|fp64|: the noise floor
    rmse_compiled: float | None = None  # RMSE(compiled, fp64)
    rmse_eager: float | None = None  # RMSE(eager, fp64)
    reason: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Stage:
    """One backend the diverging graph was re-run with (aot_eager, ..., inductor)."""

    backend: str
    verdict: str  # ok | diverges | error | skipped
    seconds: float = 0.0
    note: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Bisection:
    """What ``torch._inductor.compiler_bisector.CompilerBisector`` named."""

    backend: str | None = None
    subsystem: str | None = None
    bisect_number: int | None = None
    debug_info: str | None = None
    seconds: float = 0.0
    note: str | None = None  # why it stopped or did not run


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelRef:
    name: str
    graph_kind: str = "output_code"
    fused_nodes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class Location:
    """The first FX node (graph order) whose compiled value diverges, and where it came from."""

    node: str
    target: str
    filename: str | None = None
    line: int | None = None
    code: str | None = None
    max_rel_error: float | None = None
    eager_rel_error: float | None = None
    kernels: tuple[KernelRef, ...] = ()  # the kernels that compute it (provenance)
    nodes_compared: int = 0
    note: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphAccuracy:
    compile_id: CompileId  # with ``rank``; stored as its text ("0/1"); unknown: "?"
    rank: int | None = None
    graph: str = "forward"  # forward | backward (gradients of the graph's inputs)
    verdict: str = OK  # ok | diverges | not compared | error
    reasons: tuple[str, ...] = ()  # why not compared, the error, what was replayed
    outputs: tuple[OutputCheck, ...] = ()
    calls_checked: int = 0
    first_stage: str | None = None  # the first backend that diverges
    stages: tuple[Stage, ...] = ()
    bisection: Bisection | None = None
    location: Location | None = None
    seconds: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "compile_id", ranked(self.compile_id, self.rank))

    @property
    def max_rel_error(self) -> float | None:
        values = [o.max_rel_error for o in self.outputs if o.max_rel_error is not None]
        return max(values) if values else None


@dataclass(frozen=True, kw_only=True, slots=True)
class AccuracyRun:
    settings: dict[str, Any] = field(default_factory=dict)  # atol, rtol, tol, calls, budget...
    graphs: tuple[GraphAccuracy, ...] = ()
    errors: tuple[str, ...] = ()
    kept_bytes: int = 0  # the most bytes of inputs held at once for bisection
    kept_bound_bytes: int = 0
    seconds: float = 0.0

    @property
    def diverging(self) -> list[GraphAccuracy]:
        return [g for g in self.graphs if g.verdict == DIVERGES]

    @property
    def max_rel_error(self) -> float | None:
        values = [g.max_rel_error for g in self.graphs if g.max_rel_error is not None]
        return max(values) if values else None


CORRUPT = "corrupt 'accuracy' entry in the report"
Read = Callable[[Any, str], AccuracyRun]  # (plain data, what it is) -> the run, or InspectcError


def load(meta: dict[str, str], read: Read | None = None) -> AccuracyRun | None:
    """The report's accuracy results; None when ``inspectc accuracy`` did not write it.

    *read* builds the run from its JSON (a report's reader checks every field's type); an
    entry that does not read is a run with that one error, so the rest of the report reads."""
    text = meta.get(META_KEY)
    if not text:
        return None
    what = CORRUPT
    try:
        data = json.loads(text)
        return read(data, what) if read is not None else from_plain(AccuracyRun, data)
    except InspectcError as exc:
        return AccuracyRun(errors=(str(exc),))
    except (ValueError, TypeError, RecursionError):
        return AccuracyRun(errors=(what,))
