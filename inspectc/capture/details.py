"""A capture's kernel details: Triton kernels' stages, metadata and launches, C++ kernels' build.

:mod:`inspectc.capture.triton_detail` collects them while the program runs (where Triton is
installed); at the end this part writes what it collected as events of the report, each an
``inspectc_kernel_detail`` (or ``inspectc_cpu_build``) event, read by the store's reader.
"""

from __future__ import annotations

import time
from typing import Any

from inspectc.capture.failures import Failures
from inspectc.store.writer import ReportWriter


class Details:
    def __init__(self, failures: Failures) -> None:
        self.failures = failures
        self._collector: Any = None  # triton_detail.KernelDetails (Triton only)

    def start(self) -> None:
        from inspectc.capture.triton_detail import start_details

        self._collector = start_details(self.failures.record)

    def stop(self, writer: ReportWriter | None, rank: int | None) -> None:
        """Stop collecting; write what was collected, and the C++ kernels' build, into *writer*."""
        from inspectc.capture.triton_detail import finish_details

        collector, self._collector = self._collector, None
        events = finish_details(collector, self.failures.record, self.failures.record_error)
        if writer is None:
            return
        for metadata, payload in events:
            writer.add_event(
                name=next(iter(metadata)),
                metadata=metadata,
                payload=payload,
                compile_id=None,
                rank=rank,
                ts=time.time(),
            )
