"""The typed extras of a frame: autotuning, CUDA graphs, symbolic shapes. Stdlib only.

Part of the report model (``inspectc.model`` re-exports every class here; ``Frame`` holds them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True, slots=True)
class AutotuneChoice:
    name: str | None = None
    desc: str | None = None
    ms: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Autotune:
    op: str
    shapes: str | None = None
    dtypes: str | None = None
    strides: str | None = None
    num_choices: int | None = None
    num_triton_choices: int | None = None
    best: str | None = None
    best_desc: str | None = None
    best_ms: float | None = None
    best_triton: str | None = None
    best_triton_ms: float | None = None
    seconds: float | None = None
    choices: tuple[AutotuneChoice, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class CudaGraphs:
    recorded: int = 0
    record_s: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Symbol:
    symbol: str
    source: str | None = None
    value: str | None = None
    range: str | None = None
    unbacked: bool = False
    filename: str | None = None
    line: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeGuard:
    expr: str
    filename: str | None = None
    line: int | None = None
    symbols: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class Specialization:
    symbol: str | None = None
    sources: tuple[str, ...] = ()
    value: str | None = None
    reason: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SymbolicShapes:
    symbols: tuple[Symbol, ...] = ()
    guards: tuple[ShapeGuard, ...] = ()
    specializations: tuple[Specialization, ...] = ()
