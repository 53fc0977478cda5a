"""Capture: the only package that imports torch (lazily: importing it loads no torch).

``session`` runs one capture (the trace handler, the writer), ``timing`` measures kernels,
``runner`` runs the user's script, ``torch_api`` holds every private torch touch point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspectc.capture.session import Capture


def capture(path: str = "run.inspectc", **options: Any) -> Capture:
    """Record every torch.compile event inside a ``with`` block into the report at *path*."""
    from inspectc.capture.session import Capture  # torch is imported only when capturing

    return Capture(path, **options)
