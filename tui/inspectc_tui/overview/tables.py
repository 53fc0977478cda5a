"""The overview's tables: frames, deduplicated graph breaks, top kernels by time.

Rows are keyed by what they show, so a refill (a followed run wrote more) keeps the
cursor on the same row: frames by rank and compile id, break groups by place and reason,
kernels by id. Every cell from the report is a literal ``Text``.
"""

from __future__ import annotations

from rich.text import Text

from inspectc.analysis.breaks import title_and_explanation
from inspectc.analysis.costs import BreakCost
from inspectc.analysis.resume import Branch
from inspectc.analysis.text import Base
from inspectc.analysis.views import BreakGroup, shown_status
from inspectc.model import Frame
from inspectc.render.timefmt import NOISY, column_unit, typical
from inspectc.render.words import time_text
from inspectc_tui.data import ReportData, frame_key
from inspectc_tui.text import frame_where, function_name, literal, location, seconds, status_text
from inspectc_tui.widgets.table import Column, VirtualTable

OVERVIEW_KERNELS = 50


def right(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")


def _count(n: int, style: str) -> Text:
    return right(str(n), style if n else "dim")


class FramesTable(VirtualTable):
    def fill(self, data: ReportData) -> None:
        base = data.run
        self.reset()
        self.set_columns(
            Column("frame", Text("Frame"), sort_key=lambda f: f.ordinal),
            Column(
                "function",
                Text("Function"),
                40,
                sort_key=lambda f: f.function or "",
                flex=True,
                min_width=18,
                cut="middle",
            ),
            Column("status", Text("Status"), sort_key=shown_status),
            Column("breaks", right("Breaks"), sort_key=lambda f: -len(f.graph_breaks)),
            Column("recompiles", right("Recomp"), sort_key=lambda f: -len(f.recompiles)),
            Column("kernels", right("Kernels"), sort_key=lambda f: -f.kernel_count),
            Column("compile", right("Compile"), sort_key=lambda f: -(f.metrics.entire_frame_s or 0.0)),
            Column(
                "location",
                Text("Location"),
                60,
                sort_key=lambda f: (f.filename or "", f.line or 0),
                flex=True,
                min_width=16,
                cut="path",
            ),
        )
        for frame in data.frames:
            branch = data.branches.get(frame_key(frame))
            self.add_object(f"{frame.rank}:{frame.compile_id}", frame, self._row(frame, base, branch))
        self.done()

    @staticmethod
    def _row(frame: Frame, base: Base, branch: Branch | None) -> list[Text]:
        return [
            Text(frame.compile_id.label, style="bold"),
            literal(function_name(frame, branch)),
            status_text(shown_status(frame)),
            _count(len(frame.graph_breaks), "yellow"),
            _count(len(frame.recompiles), "magenta"),
            _count(frame.kernel_count, ""),
            right(seconds(frame.metrics.entire_frame_s)),
            literal(frame_where(frame, base), "cyan"),
        ]


class BreaksTable(VirtualTable):
    def fill(self, data: ReportData) -> None:
        base = data.run
        self.reset()
        columns = [
            Column("count", right("Count"), sort_key=lambda g: -g.count),
            Column("reason", Text("Reason"), 120, sort_key=lambda g: g.reason, flex=True, min_width=16),
            Column(
                "location",
                Text("Location"),
                40,
                sort_key=lambda g: g.user_location,
                flex=True,
                min_width=12,
                cut="path",
            ),
            Column(
                "frames",
                Text("Frames"),
                30,
                sort_key=lambda g: g.compile_ids[0].sort_key,
                flex=True,
                min_width=5,
            ),
        ]
        costs = data.costs
        if costs:  # measured: the dearest break first, its cost per call beside it
            columns.insert(1, Column("cost", right("Cost/call"), sort_key=lambda g: -_cost_us(costs, g)))
        self.set_columns(*columns)
        groups = sorted(data.groups, key=lambda g: -_cost_us(costs, g)) if costs else data.groups
        for group in groups:
            frames = ", ".join(str(c) for c in group.compile_ids[:3]) + (", …" if group.count > 3 else "")
            cells = [
                right(f"{group.count}×", "bold yellow"),
                literal(title_and_explanation(group.example)[0], one_line=True),
                literal(_where(group, base), "cyan"),
                Text(frames, style="dim"),
            ]
            if costs:
                cost = costs.get((group.filename, group.line, group.reason))
                shown = (
                    time_text(cost.cost_us) + (" cheap" if cost.cheap else "")
                    if cost and cost.cost_us is not None
                    else "-"
                )
                cells.insert(1, right(shown, "dim" if cost is None or cost.cheap else "bold red"))
            self.add_object(f"{group.filename}:{group.line}:{group.reason}", group, cells)
        self.done()


def _cost_us(costs: dict[tuple[str | None, int | None, str], BreakCost], g: BreakGroup) -> float:
    cost = costs.get((g.filename, g.line, g.reason))
    return cost.cost_us if cost is not None and cost.cost_us is not None else -1.0


class TopKernelsTable(VirtualTable):
    def fill(self, data: ReportData) -> None:
        self.reset()
        kernels = data.top_kernels[:OVERVIEW_KERNELS] or data.kernels[:OVERVIEW_KERNELS]
        # the overview ranks kernels by total time (the Kernels tab and `inspectc kernels` show
        # it): here the median per call and n, so the names keep their room
        med = column_unit(typical(k.time) for k in kernels)
        self.set_columns(
            Column("median", right(f"Median {med.name}"), sort_key=lambda k: -(typical(k.time) or -1.0)),
            Column("calls", right("n"), sort_key=lambda k: -(k.time.calls if k.time else -1)),
            Column("frame", Text("Frame"), sort_key=lambda k: k.compile_id.sort_key),
            # cut at its end; narrow enough to fit an 80-column overview with its ellipsis shown
            Column("name", Text("Kernel"), 80, sort_key=lambda k: k.name, flex=True, min_width=8),
        )
        for kernel in kernels:
            t = kernel.time
            noisy = bool(t and t.noise)
            cells = [
                right(
                    med.fmt(typical(t)) + (f" {NOISY}" if noisy else ""), "bold yellow" if noisy else "bold"
                ),
                right(str(t.calls) if t else "-"),
                Text(kernel.compile_id.label),
                literal(kernel.name, "green"),
            ]
            self.add_object(str(kernel.id), kernel, cells)
        self.done()


def _where(group: BreakGroup, base: Base) -> str:
    """The user's line, as the summary and suggest name it (a break inside torch.optim: the
    script's ``opt.step()``, not optimizer.py)."""
    site = group.site
    if site is not None and site.filename:
        return location(site.filename, site.line, base)
    return location(group.filename, group.line, base)
