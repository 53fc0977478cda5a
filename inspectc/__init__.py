"""inspectc: a graph-break and kernel-inspection debugger for torch.compile.

Capture (``inspectc run`` or :func:`capture`) records what torch.compile did into a
versioned report file; readers (summary, JSON export, TUI, graphviz, share) open it
without torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from inspectc.capture import Capture


def capture(path: str = "run.inspectc", **options: Any) -> Capture:
    """Record every torch.compile event inside a ``with`` block into the report at *path*."""
    from inspectc.capture import Capture  # torch is imported only when capturing

    return Capture(path, **options)


def open_report(path: str):  # noqa: ANN201 - re-exported reader entry point
    """Open a report file (or bundle) for reading; needs no torch."""
    from inspectc.store import open_report as _open

    return _open(path)


__all__ = ["__version__", "capture", "open_report"]
