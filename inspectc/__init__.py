"""inspectc: a graph-break and kernel-inspection debugger for torch.compile.

Capture (``inspectc run`` or :func:`capture`) records what torch.compile did into a
versioned report file; readers (summary, JSON export, TUI, graphviz, share) open it
without torch. The flow is one way: ``capture/`` (the only code that imports torch) feeds
``trace/`` (torch's structured-trace formats -> the model) which writes a ``report/``
file that ``readers/`` and ``cli/`` open through :func:`open_report`.
"""

from __future__ import annotations

# ``inspectc.capture`` is the function below, also after ``inspectc.capture.session`` (the
# package of the same name) has been imported: binding it here, after the package import,
# keeps the notebook API callable on every use.
from inspectc.api import capture, open  # noqa: E402, A004  (torch-free: torch only when capturing)
from inspectc.report.open import open_report  # noqa: E402
from inspectc.version import __version__

__all__ = ["__version__", "capture", "open", "open_report"]
