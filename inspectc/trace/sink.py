"""What the trace writes into: the few writer methods the builder calls. No torch, no SQLite.

The builder streams frames, graphs, kernels and raw events into a sink as it reads records;
the report's :class:`~inspectc.store.writer.ReportWriter` is the one real sink (capture and
``inspectc import`` pass it in). Declaring the methods here keeps ``trace/`` free of the
storage package: trace and the report file are siblings that only capture and import join.
"""

from __future__ import annotations

from typing import Any, Protocol

from inspectc.model import Frame, Kernel


class Sink(Protocol):
    """The writer methods the builder, its helpers and the record account call."""

    def add_event(
        self,
        *,
        name: str,
        metadata: dict[str, Any],
        payload: str | None,
        compile_id: str | None,
        rank: int | None,
        ts: float | None,
    ) -> int: ...

    def put_frame(self, frame: Frame) -> None: ...

    def put_graph(
        self,
        *,
        rank: int | None,
        compile_id: str,
        kind: str,
        seq: int,
        start: int | None = None,
        stop: int | None = None,
    ) -> None: ...

    def add_kernel(
        self, kernel: Kernel, *, seq: int, rank: int | None = None, start: int, stop: int
    ) -> int: ...

    def update_kernel(self, kernel: Kernel) -> None: ...

    def flush(self) -> None: ...
