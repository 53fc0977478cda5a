"""A report shown in a notebook: Jupyter gets the share page's HTML, IPython the summary.

``inspectc.open(path)`` returns a :class:`ReportView`; the object ``inspectc.capture()`` gives
back shows itself the same way once its ``with`` block ends. The HTML comes from the same
renderer as ``inspectc share --html`` (frames, breaks with their fixes, top kernels), scoped to
one ``<div>`` so the notebook's own page keeps its look. Nothing here imports torch: a
report opens in a notebook without it.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any

from inspectc.errors import InspectcError
from inspectc.store.open import open_report
from inspectc.store.reader import Report


class ReportDisplay:
    """Rich display of the report at ``self.path`` (a mixin: the view and the capture use it)."""

    path: Path

    def _repr_html_(self) -> str:
        from inspectc.render.html.fragment import render_fragment
        from inspectc.render.sections.page import summary_page

        try:
            with open_report(self.path) as report:
                return render_fragment(summary_page(report, report_path=str(self.path)))
        except InspectcError as exc:
            return f'<div class="inspectc-report"><p>inspectc: {escape(str(exc))}</p></div>'

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.summary())

    def summary(self) -> str:
        """The terminal summary (``inspectc summary``), or the one line saying why not."""
        from inspectc.render.terminal import render_summary

        try:
            with open_report(self.path) as report:
                return render_summary(report, report_path=str(self.path)).rstrip("\n")
        except InspectcError as exc:
            return f"inspectc: {exc}"


class ReportView(ReportDisplay):
    """A report file, bundle or rank folder, for a notebook cell. ``.report`` opens it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        open_report(self.path).close()  # one clear InspectcError now, not at display time

    def report(self) -> Report:
        """The report itself (the readers' model); close it when done."""
        return open_report(self.path)

    def __repr__(self) -> str:
        return f"<inspectc report {str(self.path)!r}>"

    # IPython takes a class's own __repr__ before a base's _repr_pretty_: name it here too.
    _repr_pretty_ = ReportDisplay._repr_pretty_
