"""Per-frame details of torch.compile's options: autotuning, CUDA graphs, symbolic shapes.

Stdlib only (the builder feeds it; readers format it). What it reads:

- ``chromium_event`` records (JSON payload ``{"name", "ph", "ts", "args"}``):
  ``<op>_template_autotuning`` end events carry the op's input shapes, dtypes and
  ``autotune_choices_stats`` (choice count, best choice and its time in ms, best Triton
  choice); ``CUDAGraphNode.record`` end events (written at run time, compile id in ``args``)
  mean the frame's graph was recorded as a CUDA graph.
- ``inspectc_autotune`` records (made by capture from Inductor's autotuning feedback hook):
  every benchmarked choice with its time.
- ``create_symbol`` / ``create_unbacked_symbol`` / ``guard_added_fast`` /
  ``symbolic_shape_specialization``: the symbols of dynamic shapes, where they come from, and
  the shape guards on them.

The result lives in ``Frame.metrics.extra`` under ``autotuning``, ``cudagraphs`` and
``symbolic_shapes`` (plain JSON), so the report schema does not change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspectc.model import Autotune, CudaGraphs, SymbolicShapes, from_plain

__all__ = [
    "EVENTS",
    "ExtraEvent",
    "FrameExtras",
    "TypedExtras",
    "read_event",
]

EVENTS = frozenset(
    {
        "chromium_event",
        "inspectc_autotune",
        "create_symbol",
        "create_unbacked_symbol",
        "guard_added_fast",
        "symbolic_shape_specialization",
    }
)
MAX_SYMBOLS = 200
MAX_SHAPE_GUARDS = 200
MAX_AUTOTUNE_OPS = 100
MAX_CHOICES = 40

_AUTOTUNE_SUFFIX = "_template_autotuning"
_CUDAGRAPH_RECORD = "CUDAGraphNode.record"
_SYMBOL = re.compile(r"\b[a-z]{1,4}\d+\b")

Resolve = Callable[[Any], "str | None"]


@dataclass(frozen=True, slots=True)
class ExtraEvent:
    """One event this module understood: its kind, data, and a compile id it names itself."""

    kind: str  # autotune_begin | autotune_end | autotune_choices | cudagraph_begin | ...
    data: dict[str, Any]
    compile_id: str | None = None  # from the payload (run-time events carry no frame ids)


@dataclass(slots=True)
class FrameExtras:
    """Mutable per-frame collector; :meth:`as_extra` gives the plain dict for the report."""

    autotuning: list[dict[str, Any]] = field(default_factory=list)
    cudagraph_records: int = 0
    cudagraph_record_s: float = 0.0
    symbols: list[dict[str, Any]] = field(default_factory=list)
    shape_guards: list[dict[str, Any]] = field(default_factory=list)
    specializations: list[dict[str, Any]] = field(default_factory=list)
    _open: dict[str, float] = field(default_factory=dict)  # chromium begin times (us)

    def add(self, event: ExtraEvent) -> None:
        d = event.data
        if event.kind in ("autotune_begin", "cudagraph_begin"):
            self._open[event.kind] = d["ts"]
        elif event.kind == "autotune_end":
            begin = self._open.pop("autotune_begin", None)
            if begin is not None and isinstance(d.get("ts"), float):
                d["seconds"] = round((d["ts"] - begin) / 1e6, 4)
            d.pop("ts", None)
            if len(self.autotuning) < MAX_AUTOTUNE_OPS:
                self.autotuning.append(d)
        elif event.kind == "autotune_choices":
            self._add_choices(d)
        elif event.kind == "cudagraph_end":
            self.cudagraph_records += 1
            begin = self._open.pop("cudagraph_begin", None)
            if begin is not None and isinstance(d.get("ts"), float):
                self.cudagraph_record_s += (d["ts"] - begin) / 1e6
        elif event.kind == "symbol" and len(self.symbols) < MAX_SYMBOLS:
            self.symbols.append(d)
        elif event.kind == "shape_guard" and len(self.shape_guards) < MAX_SHAPE_GUARDS:
            known = {s["symbol"] for s in self.symbols}
            d["symbols"] = [s for s in dict.fromkeys(_SYMBOL.findall(d["expr"])) if s in known]
            self.shape_guards.append(d)
        elif event.kind == "specialization" and len(self.specializations) < MAX_SYMBOLS:
            self.specializations.append(d)

    def _add_choices(self, d: dict[str, Any]) -> None:
        # The feedback hook runs after the op's chromium end event: complete that entry.
        for entry in reversed(self.autotuning):
            if entry.get("op") == d["op"] and "choices" not in entry:
                entry["choices"] = d["choices"]
                entry.setdefault("num_choices", d["num_choices"])
                return
        if len(self.autotuning) < MAX_AUTOTUNE_OPS:
            best = d["choices"][0] if d["choices"] else {}
            self.autotuning.append(
                {
                    "op": d["op"],
                    "num_choices": d["num_choices"],
                    "best": best.get("name"),
                    "best_ms": best.get("ms"),
                    "choices": d["choices"],
                }
            )

    def typed(self) -> TypedExtras:
        """The collected extras as the model's typed values."""
        plain = self.as_extra()
        shapes = plain.get("symbolic_shapes")
        graphs = plain.get("cudagraphs")
        return TypedExtras(
            autotuning=tuple(from_plain(Autotune, e) for e in plain.get("autotuning", [])),
            cudagraphs=from_plain(CudaGraphs, graphs) if graphs else None,
            symbolic_shapes=from_plain(SymbolicShapes, shapes) if shapes else None,
        )

    def as_extra(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.autotuning:
            out["autotuning"] = [dict(e) for e in self.autotuning]
        if self.cudagraph_records:
            out["cudagraphs"] = {
                "recorded": self.cudagraph_records,
                "record_s": round(self.cudagraph_record_s, 4),
            }
        if self.symbols or self.shape_guards or self.specializations:
            out["symbolic_shapes"] = {
                "symbols": list(self.symbols),
                "guards": list(self.shape_guards),
                "specializations": list(self.specializations),
            }
        return out


@dataclass(frozen=True, slots=True)
class TypedExtras:
    autotuning: tuple[Autotune, ...] = ()
    cudagraphs: CudaGraphs | None = None
    symbolic_shapes: SymbolicShapes | None = None


def read_event(
    name: str, metadata: dict[str, Any], payload: str | None, resolve: Resolve
) -> ExtraEvent | None:
    """The event as an :class:`ExtraEvent`, or None when it carries nothing for us."""
    if name == "chromium_event":
        return _chromium(payload)
    data = metadata.get(name)
    if not isinstance(data, dict):
        return None
    if name == "inspectc_autotune":
        return _autotune_choices(payload)
    if name in ("create_symbol", "create_unbacked_symbol"):
        symbol = data.get("symbol")
        if not isinstance(symbol, str):
            return None
        filename, line = _user_location(data.get("user_stack"), resolve)
        return ExtraEvent(
            "symbol",
            {
                "symbol": symbol,
                "source": _text(data.get("source")),
                "value": _text(data.get("val")),
                "range": _text(data.get("vr")),
                "unbacked": name == "create_unbacked_symbol",
                "filename": filename,
                "line": line,
            },
        )
    if name == "guard_added_fast":
        expr = data.get("expr")
        if not isinstance(expr, str):
            return None
        filename, line = _user_location(data.get("user_stack"), resolve)
        return ExtraEvent("shape_guard", {"expr": expr, "filename": filename, "line": line})
    if name == "symbolic_shape_specialization":
        sources = data.get("sources")
        return ExtraEvent(
            "specialization",
            {
                "symbol": _text(data.get("symbol")),
                "sources": [s for s in sources if isinstance(s, str)] if isinstance(sources, list) else [],
                "value": _text(data.get("value")),
                "reason": _text(data.get("reason")),
            },
        )
    return None


def _chromium(payload: str | None) -> ExtraEvent | None:
    if not payload or (_AUTOTUNE_SUFFIX not in payload and _CUDAGRAPH_RECORD not in payload):
        return None  # most chromium events: skip without parsing JSON
    try:
        event = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(event, dict) or not isinstance(event.get("name"), str):
        return None
    args = _json_dict(event.get("args"))
    ts = event.get("ts")
    ts = float(ts) if isinstance(ts, (int, float)) else None
    phase = event.get("ph")
    cid = _text(args.get("compile_id"))
    cid = None if cid in (None, "None") else cid
    if event["name"] == _CUDAGRAPH_RECORD:
        kind = "cudagraph_begin" if phase == "B" else "cudagraph_end" if phase == "E" else None
        return ExtraEvent(kind, {"ts": ts}, cid) if kind and ts is not None else None
    if not event["name"].endswith(_AUTOTUNE_SUFFIX):
        return None
    if phase == "B":
        return ExtraEvent("autotune_begin", {"ts": ts}, cid) if ts is not None else None
    if phase != "E":
        return None
    entry: dict[str, Any] = {
        "op": event["name"][: -len(_AUTOTUNE_SUFFIX)],
        "shapes": _text(args.get("autotune_shape")),
        "dtypes": _text(args.get("autotune_dtypes")),
        "strides": _text(args.get("autotune_strides")),
        "ts": ts,
    }
    stats = _json_dict(args.get("autotune_choices_stats"))
    for key, out in (
        ("num_choices", "num_choices"),
        ("num_triton_choices", "num_triton_choices"),
        ("best_kernel", "best"),
        ("best_kernel_desc", "best_desc"),
        ("best_time", "best_ms"),
        ("best_triton_kernel", "best_triton"),
        ("best_triton_time", "best_triton_ms"),
    ):
        if stats.get(key) is not None:
            entry[out] = stats[key]
    return ExtraEvent("autotune_end", entry, cid)


def _autotune_choices(payload: str | None) -> ExtraEvent | None:
    data = _json_dict(payload)
    op = data.get("op")
    choices = data.get("choices")
    if not isinstance(op, str) or not isinstance(choices, list):
        return None
    clean = [
        {"name": _text(c.get("name")), "desc": _text(c.get("desc")), "ms": c.get("ms")}
        for c in choices
        if isinstance(c, dict)
    ]
    clean.sort(key=lambda c: c["ms"] if isinstance(c["ms"], (int, float)) else float("inf"))
    return ExtraEvent(
        "autotune_choices", {"op": op, "num_choices": len(clean), "choices": clean[:MAX_CHOICES]}
    )


def _user_location(stack: Any, resolve: Resolve) -> tuple[str | None, int | None]:
    if not isinstance(stack, list):
        return None, None
    for entry in reversed(stack):
        if isinstance(entry, dict):
            line = entry.get("line")
            return resolve(entry.get("filename")), line if isinstance(line, int) else None
    return None, None


def _json_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        return {}
    try:
        data = json.loads(value)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)
