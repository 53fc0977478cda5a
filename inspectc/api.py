"""The Python API: ``inspectc.capture()`` and ``inspectc.open()``, shown in notebooks.

Kept apart from ``capture/`` (the only torch code) and ``render/`` (no torch): this module
joins the two, and importing it loads no torch -- the capture class is made on first use.
The ``inspectc.capture`` package is imported here, before ``inspectc/__init__`` binds the name
``capture`` to the function: Python sets a package's attribute when it first loads the
subpackage, so a later first load (``inspectc.capture.session``) would rebind it to the module.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

import inspectc.capture  # noqa: F401 - loaded before the package binds ``capture`` (see below)

if TYPE_CHECKING:
    from inspectc.capture.session import Capture
    from inspectc.render.notebook import ReportView

# The notebook display (and the report readers under it) load on first use: ``inspectc run``
# imports this package before the script starts and never shows a report in a notebook.


def capture(path: str | os.PathLike[str] = "run.inspectc", **options: Any) -> Capture:
    """Record every torch.compile event inside a ``with`` block into the report at *path*.

    The object shows the report in a notebook once the block ends (HTML in Jupyter, the
    summary in IPython).
    """
    return _notebook_capture()(path, **options)


def open(path: str | os.PathLike[str]) -> ReportView:  # noqa: A001 - inspectc.open(path)
    """A report, bundle or rank folder for a notebook cell (raises InspectcError if it won't open)."""
    from inspectc.render.notebook import ReportView

    return ReportView(path)


@functools.cache
def _notebook_capture() -> type[Capture]:
    from inspectc.capture.session import Capture  # torch is imported only when capturing
    from inspectc.render.notebook import ReportDisplay

    class NotebookCapture(Capture, ReportDisplay):
        """A :class:`Capture` that displays its report in a notebook."""

    return NotebookCapture
