"""Compile phases (``chromium_event`` spans) and described inputs (``describe_*``).

One :class:`Phases` per frame (records with its compile id) and one for the run (records
logged outside a compile: ``compile_file`` of a C++ kernel, torch.export's tracing, an
AOTInductor compile). ``chromium_event`` payloads are ``{"name", "ph": "B"|"E"|"i", "ts"
(µs)}``: a ``B``/``E`` pair adds its duration to the phase's seconds, an instant event counts.
``expression_created`` (torch.export's dtrace) names a symbolic expression it built.
``describe_tensor`` / ``describe_source`` of one ``describer_id`` describe the tensors Dynamo
(or export) fakeified: ``L['x']: torch.float32[8, 4] cpu``; ``describe_storage`` gives their
storage sizes. Frames keep theirs in ``metrics.extra`` (``phases_s``, ``instants``,
``inputs``). No torch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from inspectc.model import PHASE_SECONDS
from inspectc.trace.records import MalformedRecord, as_num

MAX_INPUTS = 200
_DESCRIBE = ("describe_tensor", "describe_source", "describe_storage")
NAMES = frozenset({"chromium_event", "expression_created", *_DESCRIBE})


@dataclass(slots=True)
class Phases:
    seconds: dict[str, float] = field(default_factory=dict)
    instants: dict[str, int] = field(default_factory=dict)
    tensors: dict[tuple[Any, Any], dict[str, Any]] = field(default_factory=dict)
    sources: dict[tuple[Any, Any], str] = field(default_factory=dict)
    storages: int = 0
    expressions: list[str] = field(default_factory=list)  # symbolic expressions (dtrace)
    _open: dict[str, list[float]] = field(default_factory=dict)
    _plain: dict[str, Any] | None = None  # plain() until the next record (frames freeze often)

    def feed(self, name: str, metadata: dict[str, Any], payload: str | None) -> bool:
        """Read one record of :data:`NAMES`; False when it holds nothing readable."""
        self._plain = None
        if name == "chromium_event":
            return self._chromium(payload)
        body = metadata.get(name)
        if not isinstance(body, dict):
            return False
        key = (_ident(body.get("describer_id")), _ident(body.get("id")))
        if name == "expression_created":
            if len(self.expressions) < MAX_INPUTS:
                args = body.get("arguments")
                shown = ", ".join(map(str, args)) if isinstance(args, list) else ""
                self.expressions.append(f"{body.get('result')} = {body.get('method')}({shown})")
        elif name == "describe_storage":
            self.storages += 1
        elif name == "describe_source" and isinstance(body.get("source"), str):
            self.sources[key] = body["source"]
        elif name == "describe_tensor" and len(self.tensors) < MAX_INPUTS:
            self.tensors[key] = body
        return True

    def _chromium(self, payload: str | None) -> bool:
        try:
            event = json.loads(payload or "")
        except ValueError:
            return False
        if not isinstance(event, dict) or not isinstance(event.get("name"), str):
            return False
        name, ph, ts = event["name"], event.get("ph"), event.get("ts")
        if ph == "i":
            self.instants[name] = self.instants.get(name, 0) + 1
        elif ph == "B" and isinstance(ts, (int, float)):
            self._open.setdefault(name, []).append(_micros(ts))
        elif ph == "E" and isinstance(ts, (int, float)) and self._open.get(name):
            begin = self._open[name].pop()
            self.seconds[name] = self.seconds.get(name, 0.0) + max(0.0, _micros(ts) - begin) / 1e6
        else:
            return ph in ("B", "E", "X")  # an end without its begin (or a complete event): seen
        return True

    def inputs(self) -> list[str]:
        """``source: dtype[sizes] device`` for each described tensor (source if known)."""
        out = []
        for key, t in self.tensors.items():
            dtype = str(t.get("dtype", "?")).removeprefix("torch.")
            size = t.get("size")
            shape = ", ".join(map(str, size)) if isinstance(size, list) else "?"
            device = str(t.get("device", "")).removeprefix("device(type='").split("'")[0]
            source = self.sources.get(key, f"tensor {t.get('id')}")
            out.append(f"{source}: {dtype}[{shape}] {device}".rstrip())
        return out

    def plain(self) -> dict[str, Any]:
        if self._plain is None:
            self._plain = self._build()
        return self._plain

    def _build(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.seconds:
            out[PHASE_SECONDS] = {
                k: round(v, 6) for k, v in sorted(self.seconds.items(), key=lambda kv: -kv[1])
            }
        if self.instants:
            out["instants"] = dict(self.instants)
        inputs = self.inputs()
        if inputs:
            out["inputs"] = inputs
        if self.expressions:
            out["expressions"] = list(self.expressions)
        return out


def _micros(ts: float) -> float:
    """A chromium event's ``ts``: a finite number of microseconds, or the record is malformed
    (a 400-digit integer overflows a float; 1e400 reads as infinity)."""
    value = as_num(ts)
    if value is None:
        raise MalformedRecord(f"ts out of range ({str(ts)[:20]}...)")
    return value


def _ident(value: Any) -> Any:
    """A ``describe_*`` record's ``id`` or ``describer_id``: a number or text (a key), or the
    record is malformed (a list or an object is no id)."""
    if value is None or isinstance(value, (int, float, str)):
        return value
    raise MalformedRecord(f"its id is a {type(value).__name__}, not a number or text")
