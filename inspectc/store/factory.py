"""Reports made to order, without torch: the rows capture writes, in the order it writes them.

Tests (``tests/``, ``tui/tests/``) and benchmarks (``benchmarks/make_large_report.py``) build
purpose-made reports with it: hostile text, another machine's paths, thousands of frames.
It writes through the real :class:`~inspectc.store.writer.ReportWriter`, so what it makes
opens like any report::

    with ReportFactory(path, Run(argv=("inspectc", "run", "t.py"))) as made:
        made.graph("0/0", "post_grad", text)
        made.output_code("0/0", ["# header\\n", (kernel, source), "def call(args): ...\\n"])
        made.frame(Frame(compile_id=CompileId.parse("0/0"), graph_kinds=("post_grad", "output_code")))

Stdlib only, like the rest of ``store/``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from inspectc.model import Frame, Kernel, Run
from inspectc.model.decode.record_keys import GRAPH_EVENTS  # what a capture would have stored
from inspectc.store.writer import ReportWriter

Piece = str | tuple[Kernel, str]


class ReportFactory:
    """One report being made: events, graphs, kernels and frames through a ReportWriter."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        run: Run | None = None,
        *,
        inspectc_version: str | None = "0.1.0",
        flush_s: float = 3600,
        rank: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.rank = rank
        self.writer = ReportWriter(path, flush_s=flush_s)
        if inspectc_version is not None:
            self.writer.set_meta("inspectc_version", inspectc_version)
        if run is not None:
            self.run(run)

    def __enter__(self) -> ReportFactory:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def run(self, run: Run) -> None:
        self.writer.set_meta("run", run)

    def event(
        self,
        name: str,
        payload: str | None = None,
        *,
        compile_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        ts: float = 1.0,
    ) -> int:
        """One trace event; its sequence number."""
        return self.writer.add_event(
            name=name, metadata=metadata or {}, payload=payload, compile_id=compile_id, rank=self.rank, ts=ts
        )

    def graph(
        self,
        compile_id: str,
        kind: str,
        text: str,
        *,
        name: str | None = None,
        metadata: dict[str, Any] | None = None,
        ts: float = 1.0,
    ) -> int:
        """A graph's text as its event, and the graph row that names it."""
        seq = self.event(
            name or GRAPH_EVENTS.get(kind, f"{kind}_graph"),
            text,
            compile_id=compile_id,
            metadata=metadata,
            ts=ts,
        )
        self.writer.put_graph(rank=self.rank, compile_id=compile_id, kind=kind, seq=seq)
        return seq

    def output_code(
        self,
        compile_id: str,
        pieces: Sequence[Piece],
        *,
        metadata: dict[str, Any] | None = None,
        ts: float = 1.0,
        graph: bool = True,
    ) -> tuple[int, str]:
        """Inductor's output code made of *pieces* (text, or a kernel and its source), with each
        kernel's row pointing at its source in it; the event's number and the code. With
        *graph* the code is also the frame's ``output_code`` graph."""
        code = "".join(p if isinstance(p, str) else p[1] for p in pieces)
        if graph:
            seq = self.graph(compile_id, "output_code", code, metadata=metadata, ts=ts)
        else:
            seq = self.event(
                GRAPH_EVENTS["output_code"], code, compile_id=compile_id, metadata=metadata, ts=ts
            )
        offset = 0
        for piece in pieces:
            if isinstance(piece, str):
                offset += len(piece)
                continue
            kernel, source = piece
            self.kernel(kernel, seq=seq, start=offset, stop=offset + len(source))
            offset += len(source)
        return seq, code

    def kernel(self, kernel: Kernel, *, seq: int, start: int, stop: int) -> int:
        """A kernel row whose source is ``payload[start:stop]`` of event *seq*."""
        return self.writer.add_kernel(kernel, seq=seq, rank=self.rank, start=start, stop=stop)

    def frame(self, frame: Frame) -> None:
        self.writer.put_frame(frame)

    def close(self) -> Path:
        self.writer.close()
        return self.path
