"""Fused nodes of backward kernels: what Inductor knows but does not log (capture only).

torch 2.13 writes ``inductor_provenance_tracking_node_mappings`` for a lazily compiled
backward graph as ``{"version": 2.0}`` alone: the kernel -> post-grad node table
(``cppCodeToPost``) is only written when the forward's pre-grad graph id is set. The kernel
stack traces are logged, the node table is not. Capture reads the table from torch when the
stack-traces record of such a graph arrives and emits it as an ``inspectc_kernel_nodes``
record (same compile id), which the builder applies like ``cppCodeToPost``.

The table outlives one graph (outside the compile's provenance context torch never resets
it), so each record holds only what was added since the last one.
"""

from __future__ import annotations

from typing import Any

from inspectc.capture import torch_api
from inspectc.capture.torch_api import Missing
from inspectc.trace import live, own_records


class BackwardNodes:
    """Watches provenance records; :meth:`observe` returns a record to emit, or None."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}  # kernel key -> nodes already emitted
        self._needs_table = False
        self.missing: str | None = None  # why the table could not be read
        self._said = False

    def prime(self) -> None:
        """What the table holds before capture starts (an earlier run in this process)."""
        table = torch_api.kernel_post_grad_nodes()
        if not isinstance(table, Missing):
            self._seen = {key: len(nodes) for key, nodes in table.items()}

    def observe(self, metadata: dict[str, Any], payload: str | None) -> tuple[dict[str, Any], str] | None:
        if live.is_node_mappings(metadata):
            self._needs_table = live.lacks_kernel_table(payload)
            return None
        if not self._needs_table or not live.is_kernel_stack_traces(metadata):
            return None
        self._needs_table = False
        table = torch_api.kernel_post_grad_nodes()
        if isinstance(table, Missing):
            self.missing = table.why
            return None
        fresh: dict[str, list[str]] = {}
        for key, nodes in table.items():
            new = nodes[self._seen.get(key, 0) :]
            self._seen[key] = len(nodes)
            if new:
                fresh[key] = new
        return own_records.kernel_nodes(live.compile_context(metadata), fresh, source="torch._inductor.debug")

    def take_missing(self) -> str | None:
        """Why the table could not be read, the first time only (for ``capture_errors``)."""
        if self.missing is None or self._said:
            return None
        self._said = True
        return self.missing
