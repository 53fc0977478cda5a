"""The Python API: ``inspectc.capture()`` and ``inspectc.open()``, shown in notebooks.

Kept apart from ``capture/`` (the only torch code) and ``readers/`` (no torch): this module
joins the two, and importing it loads no torch -- the capture class is made on first use.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

from inspectc.readers.notebook import ReportDisplay, ReportView

if TYPE_CHECKING:
    from inspectc.capture.session import Capture


def capture(path: str | os.PathLike[str] = "run.inspectc", **options: Any) -> Capture:
    """Record every torch.compile event inside a ``with`` block into the report at *path*.

    The object shows the report in a notebook once the block ends (HTML in Jupyter, the
    summary in IPython).
    """
    return _notebook_capture()(path, **options)


def open(path: str | os.PathLike[str]) -> ReportView:  # noqa: A001 - inspectc.open(path)
    """A report, bundle or rank folder for a notebook cell (raises InspectcError if it won't open)."""
    return ReportView(path)


@functools.cache
def _notebook_capture() -> type[Capture]:
    from inspectc.capture.session import Capture  # torch is imported only when capturing

    class NotebookCapture(Capture, ReportDisplay):
        """A :class:`Capture` that displays its report in a notebook."""

    return NotebookCapture
