"""inspectc: a graph-break and kernel-inspection debugger for torch.compile.

Capture (``inspectc run`` or :func:`capture`) records what torch.compile did into a
versioned report file; readers (summary, JSON export, TUI, graphviz, share) open it
without torch. The flow is one way: ``capture/`` (the only code that imports torch) feeds
``trace/`` (torch's structured-trace formats -> ``model/``) which ``store/`` writes to a
file that ``analysis/``, ``render/`` and ``cli/`` open through :func:`open_report`.
"""

from __future__ import annotations

# ``inspectc.capture`` is the function below, also after ``inspectc.capture.session`` (the
# package of the same name) has been imported: binding it here, after the package import,
# keeps the notebook API callable on every use.
from typing import TYPE_CHECKING, Any

from inspectc.api import capture, open  # noqa: E402, A004  (torch-free: torch only when capturing)
from inspectc.version import __version__

if TYPE_CHECKING:
    from inspectc.store.open import open_report

__all__ = ["__version__", "capture", "open", "open_report"]


def __getattr__(name: str) -> Any:
    """``open_report`` loads the report readers on first use (``inspectc run`` needs none)."""
    if name == "open_report":
        from inspectc.store.open import open_report

        return open_report
    raise AttributeError(f"module 'inspectc' has no attribute {name!r}")
