"""Capture's event plumbing: the logging handler that receives torch's structured-trace records,
autotuning results as synthetic ``inspectc_autotune`` events (Inductor's feedback hook), the
live "compiling ..." status line."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from inspectc.capture import torch_api
from inspectc.capture.failures import Failures
from inspectc.capture.torch_api import Restore
from inspectc.trace import live, own_records, records

Feed = Callable[[dict[str, Any], Any, float], None]  # metadata, payload, created


def autotune_event(
    timings: dict[Any, float], name: str, compile_id: dict[str, int]
) -> tuple[dict[str, Any], str]:
    """(metadata, payload) of one ``inspectc_autotune`` event: every benchmarked choice of an op."""
    choices = (
        (str(getattr(choice, "name", choice)), str(getattr(choice, "description", "") or ""), float(ms))
        for choice, ms in timings.items()
    )
    return own_records.autotune(name, choices, compile_id)


class AutotuneHook:
    """Inductor's autotuning feedback hook: every benchmarked choice of each autotuned op, fed
    as one ``inspectc_autotune`` record. Hooked at the first record after Inductor imported
    ``select_algorithm`` (importing it ourselves would cost ~1 s)."""

    def __init__(self, feed: Feed, failures: Failures) -> None:
        self.feed = feed
        self.failures = failures
        self.hooked = False

    def hook(self, restore: list[Restore]) -> None:
        """Hook in now if Inductor is ready; what removes it goes to *restore*."""
        if self.hooked:
            return
        # Set first: creating Inductor's selector cache emits trace events, which come back here.
        self.hooked = True
        remove = torch_api.add_autotune_feedback(self._on_autotune)
        if remove is None:
            self.hooked = False  # not yet: Inductor has not imported select_algorithm
        else:
            restore.append(remove)

    def _on_autotune(self, timings: dict[Any, float], name: str, *rest: Any) -> None:
        try:
            meta, payload = autotune_event(timings, name, torch_api.current_compile_id())
        except Exception as exc:  # noqa: BLE001 - recorded; capture never breaks the compile
            self.failures.record_error("recording autotuning results", exc)
            return
        self.feed(meta, payload, time.time())


class StatusLine:
    """The terminal's live line: which frame is compiling, cleared when it ends."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self.show = show
        self.compiling: str | None = None

    def update(self, metadata: dict[str, Any]) -> None:
        if live.frame_started(metadata):
            function, line = live.start_site(metadata)
            cid = records.compile_id(metadata) or "?"
            self.compiling = cid
            self.show(f"compiling {cid} {function}() line {line}")
        elif live.frame_ended(metadata) and self.compiling:
            self.clear()

    def clear(self) -> None:
        if self.compiling is not None:
            self.show("")
        self.compiling = None


class TraceHandler(logging.Handler):
    """Receives structured-trace records and hands each to *feed* (metadata, payload, created)."""

    def __init__(self, feed: Feed) -> None:
        super().__init__(level=logging.DEBUG)
        self.feed = feed

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        self.feed(metadata, getattr(record, "payload", None), record.created)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging API
        pass  # the feed records its own failures; never print into the user's stderr
