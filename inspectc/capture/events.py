"""Capture's event plumbing: the logging handler that receives torch's structured-trace records,
autotuning results as synthetic ``inspectc_autotune`` events, the live "compiling ..." status
line, package versions. Torch-free helpers."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from typing import Any

from inspectc.trace import records


def autotune_event(
    timings: dict[Any, float], name: str, compile_id: dict[str, int]
) -> tuple[dict[str, Any], str]:
    """(metadata, payload) of one ``inspectc_autotune`` event: every benchmarked choice of an op."""
    meta: dict[str, Any] = {"inspectc_autotune": {"op": name}, **compile_id}
    choices = [
        {
            "name": str(getattr(choice, "name", choice)),
            "desc": str(getattr(choice, "description", "") or ""),
            "ms": float(ms) if math.isfinite(ms) else None,
        }
        for choice, ms in timings.items()
    ]
    return meta, json.dumps({"op": name, "choices": choices})


class StatusLine:
    """The terminal's live line: which frame is compiling, cleared when it ends."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self.show = show
        self.compiling: str | None = None

    def update(self, metadata: dict[str, Any]) -> None:
        if "dynamo_start" in metadata:
            stack = metadata["dynamo_start"].get("stack") or [{}]
            top = stack[-1] if isinstance(stack[-1], dict) else {}
            cid = records.compile_id(metadata) or "?"
            self.compiling = cid
            self.show(f"compiling {cid} {top.get('name', '?')}() line {top.get('line', '?')}")
        elif "compilation_metrics" in metadata and self.compiling:
            self.clear()

    def clear(self) -> None:
        if self.compiling is not None:
            self.show("")
        self.compiling = None


class TraceHandler(logging.Handler):
    """Receives structured-trace records and hands them to its capture."""

    def __init__(self, owner: Any) -> None:
        super().__init__(level=logging.DEBUG)
        self.owner = owner

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        self.owner._on_record(metadata, getattr(record, "payload", None), record.created)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging API
        pass  # _on_record records its own failures; never print into the user's stderr


def package_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
