"""How a report was made, as (name, value) rows: capture's switches, the torch.compile calls
and whatever else ``Run.options`` records. No torch.

Every field of :class:`~inspectc.model.RunOptions` is listed, known or new: a field
capture adds later shows up here without a change, and a field left ``None`` reads
"not recorded" (an imported log records none of capture's switches).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from inspectc.model import RunOptions

NOT_RECORDED = "not recorded"

LABELS = {
    "fresh": "fresh (Inductor caches off)",
    "provenance": "provenance tracking",
    "timings": "kernel timings",
    "profile_window": "profile window (skip, time)",
    "sources": "imported logs",
    "compile_backends": "torch.compile calls",
    "registered_backends": "backends available",
    "config": "torch config",
}


def option_rows(options: RunOptions) -> list[tuple[str, str]]:
    """One row per option, in the model's order; values as short text."""
    rows = []
    for f in fields(options):
        value = getattr(options, f.name)
        label = LABELS.get(f.name, f.name.replace("_", " "))
        if f.name == "profile_window" and isinstance(value, (list, tuple)) and len(value) == 2:
            rows.append((label, f"skip {value[0]} calls, then time {value[1]}"))
            continue
        if f.name == "compile_backends" and isinstance(value, (list, tuple)) and value:
            for backend in value:
                rows.append((label, backend_text(backend)))
            continue
        if f.name == "config" and isinstance(value, (list, tuple)):
            rows.extend((label, config_text(c)) for c in value)
            if not value:
                rows.append((label, "all at their defaults"))
            continue
        rows.append((label, value_text(value)))
    return rows


def config_text(item: Any) -> str:
    """``dynamo.capture_scalar_outputs = True  (--config)`` for one recorded option."""
    value = str(getattr(item, "value", "?"))
    op = "" if value.startswith("+=") else " = "
    origin = getattr(item, "origin", None)
    said = "set by inspectc run --config" if origin == "--config" else "not the default when the run ended"
    return f"{getattr(item, 'key', '?')}{op}{value}  ({said})"


def backend_text(backend: Any) -> str:
    """``inductor (mode=max-autotune, dynamic=True)`` for one recorded torch.compile call."""
    name = getattr(backend, "name", None) or "?"
    parts = [f"{k}={_plain(v)}" for k, v in sorted((getattr(backend, "options", None) or {}).items())]
    dynamic = getattr(backend, "dynamic", None)
    if dynamic is not None:
        parts.append(f"dynamic={dynamic}")
    extra = [
        f"{f.name}={_plain(getattr(backend, f.name))}"
        for f in fields(backend)
        if f.name not in ("name", "options", "dynamic") and getattr(backend, f.name) not in (None, (), {}, "")
    ]
    parts.extend(extra)
    return name + (f" ({', '.join(parts)})" if parts else " (default options)")


def value_text(value: Any) -> str:
    if value is None:
        return NOT_RECORDED
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_plain(v)}" for k, v in sorted(value.items())) if value else "none"
    return _plain(value)


def _plain(value: Any) -> str:
    if is_dataclass(value) and not isinstance(value, type):
        inner = ", ".join(
            f"{f.name}={_plain(getattr(value, f.name))}"
            for f in fields(value)
            if getattr(value, f.name) is not None
        )
        return f"{type(value).__name__}({inner})"
    return str(value)
