"""One compiled frame, in tabs: graph breaks, guards, FX graphs, kernels, metrics, events.

Tabs fill the first time they are shown. Fusion navigation crosses tabs: a node line in
an FX graph goes to its kernel; a kernel's fused node goes back to its graph line; a
kernel's origin shows the user source it came from. `n`/`p` step to the next or previous
frame (in the overview's order) on the same tab.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane, Tabs

from inspectc.analysis.breaks import distinct_breaks, stack_values
from inspectc.analysis.resume import resumed_function
from inspectc.analysis.views import shown_status
from inspectc.model import Frame
from inspectc.render.sections.breaks import failure_text
from inspectc.render.words import stack_value
from inspectc_tui.data import ReportData, frame_key
from inspectc_tui.dialogs.source import SourceDialog
from inspectc_tui.frame.base import FramePane, Location
from inspectc_tui.frame.breaks import BreaksPane
from inspectc_tui.frame.events import EventsPane
from inspectc_tui.frame.graphs import GraphsPane
from inspectc_tui.frame.guards import GuardsPane
from inspectc_tui.frame.kernels import KernelsPane, KernelTable
from inspectc_tui.frame.metrics import MetricsPane
from inspectc_tui.messages import OpenFrame, StepFrame
from inspectc_tui.text import (
    call_site_of,
    function_name,
    literal,
    location,
    seconds,
    status_text,
)

TABS: tuple[tuple[str, str, type[FramePane]], ...] = (
    ("breaks", "Graph breaks", BreaksPane),
    ("guards", "Guards", GuardsPane),
    ("graphs", "FX graphs", GraphsPane),
    ("kernels", "Kernels", KernelsPane),
    ("metrics", "Metrics", MetricsPane),
    ("events", "Events", EventsPane),
)


def frame_header(frame: Frame, data: ReportData) -> Text:
    base = data.run
    branch = data.branches.get(frame_key(frame))
    out = Text()
    out.append(f" {frame.compile_id.label} ", style="bold reverse")
    out.append("  ")
    out.append_text(literal(function_name(frame, branch), "bold"))
    out.append("()  ")
    out.append_text(literal(location(frame.filename, frame.line, data.run), "cyan"))
    if (called := call_site_of(frame, base)) is not None:
        out.append("  ")
        out.append_text(literal(called, "cyan"))
    out.append("  ")
    out.append_text(status_text(shown_status(frame)))
    details = [
        f"{frame.kernel_count} kernel{'' if frame.kernel_count == 1 else 's'}",
        f"compiled in {seconds(frame.metrics.entire_frame_s)}",
    ]
    if frame.cache.get("fx_graph"):
        details.append(f"FX cache {frame.cache['fx_graph']}")
    if frame.attempts > 1:
        details.append(f"{frame.attempts} attempts")
    out.append("  ·  " + "  ·  ".join(details), style="dim")
    resumed = resumed_function(frame.function)
    if resumed is not None:
        out.append(f"\n resumes {resumed[0]}() after its graph break at line {resumed[1]}", style="dim")
        if branch is not None:
            out.append(f", continuing at line {branch.line}", style="dim")
            if branch.code:
                out.append(": ", style="dim")
                out.append_text(literal(branch.code, "italic"))
    for rec in frame.recompiles[:1]:
        out.append("\n recompile: ", style="bold magenta")
        out.append_text(literal(rec.guard or rec.text, one_line=True))
        for value in stack_values(rec.guard or rec.text, frame, data.frames, data.run.python_version):
            out.append("  (")
            out.append_text(literal(stack_value(value, location(value.filename, value.line, base)), "italic"))
            out.append(")")
    if frame.failure is not None:
        out.append("\n failed: ", style="bold red")
        out.append_text(literal(failure_text(frame.failure), "red", one_line=True))
    return out


class FrameScreen(Screen[None]):
    """A frame's details; Escape goes back to the overview."""

    BINDINGS = [
        Binding("escape,backspace", "app.pop_screen", "Back"),
        *(
            Binding(str(n), f"show_tab('{key}')", title, show=False)
            for n, (key, title, _) in enumerate(TABS, 1)
        ),
        Binding("right_square_bracket", "next_tab(1)", "Next tab", show=False),
        Binding("left_square_bracket", "next_tab(-1)", "Previous tab", show=False),
        Binding("n", "step(1)", "Next frame"),
        Binding("p", "step(-1)", "Prev frame"),
        Binding("r", "reload", "Reload", show=False),
    ]

    def __init__(
        self,
        data: ReportData,
        frame: Frame,
        *,
        tab: str = "breaks",
        kernel_id: int | None = None,
        break_reason: str | None = None,
    ) -> None:
        super().__init__()
        self.data = data
        self.frame = frame
        self._initial = (tab, kernel_id, break_reason)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(frame_header(self.frame, self.data), id="frame-header")
        with TabbedContent(initial=f"tab-{self._initial[0]}", id="frame-tabs"):
            for key, title, pane_type in TABS:
                with TabPane(self._tab_title(key, title), id=f"tab-{key}"):
                    yield pane_type(self.data, self.frame, id=f"pane-{key}")
        yield Footer()

    def _tab_title(self, key: str, title: str) -> str:
        f = self.frame
        counts = {
            "breaks": len(distinct_breaks(f.graph_breaks)) + (1 if f.failure else 0),
            "guards": len(f.guards),
            "graphs": len(f.graph_kinds),
            "kernels": len(self.data.frame_kernels(f)),
        }
        return f"{title} {counts[key]}" if key in counts else title

    async def on_mount(self) -> None:
        self.sub_title = f"frame {self.frame.compile_id.label}"
        tab, kernel_id, break_reason = self._initial
        pane = self.pane(tab)
        await pane.ensure_loaded()
        if kernel_id is not None and isinstance(pane, KernelsPane):
            pane.select(kernel_id)
        if break_reason is not None and isinstance(pane, BreaksPane):
            pane.select_reason(break_reason)
        self._focus_pane(pane)

    def pane(self, key: str) -> FramePane:
        return self.query_one(f"#pane-{key}", FramePane)

    def _focus_pane(self, pane: FramePane) -> None:
        # Focusing a widget in another pane activates that pane (TabbedContent), so only
        # move focus when it is not already inside *pane*: no ping-pong between tabs.
        focused = self.focused
        if focused is not None and pane in focused.ancestors:
            return
        widget = pane.main_widget()
        if widget is not None:
            widget.focus()

    @property
    def active_tab(self) -> str:
        return self.query_one(TabbedContent).active.removeprefix("tab-")

    @on(TabbedContent.TabActivated)
    async def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        key = (event.pane.id or "").removeprefix("tab-")
        pane = self.pane(key)
        await pane.ensure_loaded()
        if pane.navigated:
            pane.navigated = False
            return  # fusion navigation focuses what it went to
        if isinstance(self.focused, Tabs):
            return  # the user is moving along the tab bar: leave focus there
        self._focus_pane(pane)

    def action_show_tab(self, key: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{key}"

    def action_reload(self) -> None:
        """Read the frame again (a followed run may have added to it)."""
        self.post_message(OpenFrame(frame_key(self.frame), self.active_tab, exact_tab=True))

    def action_step(self, step: int) -> None:
        self.post_message(StepFrame(frame_key(self.frame), step, self.active_tab))

    def action_next_tab(self, step: int) -> None:
        keys = [key for key, _, _ in TABS]
        index = (keys.index(self.active_tab) + step) % len(keys)
        self.action_show_tab(keys[index])

    # -- fusion navigation -------------------------------------------------------------
    def _go_to_tab(self, key: str) -> None:
        if self.active_tab != key:
            self.pane(key).navigated = True
            # Let go of focus first: hiding a focused widget moves focus to a neighbour in
            # the tab being left, and TabbedContent would switch straight back to it.
            self.set_focus(None)
            self.action_show_tab(key)

    async def show_kernel(self, kernel_id: int) -> None:
        self._go_to_tab("kernels")
        pane = self.pane("kernels")
        await pane.ensure_loaded()
        assert isinstance(pane, KernelsPane)
        pane.select(kernel_id)
        # After the switch is drawn: a widget in a tab not yet shown cannot take focus.
        self.call_after_refresh(pane.query_one(KernelTable).focus)

    async def show_graph_node(self, kind: str, node: str) -> None:
        self._go_to_tab("graphs")
        pane = self.pane("graphs")
        await pane.ensure_loaded()
        assert isinstance(pane, GraphsPane)
        pane.show(kind, node)

    @on(GraphsPane.NodeChosen)
    async def _node_to_kernel(self, message: GraphsPane.NodeChosen) -> None:
        await self.show_kernel(message.kernel_id)

    @on(KernelsPane.NodeChosen)
    async def _kernel_to_node(self, message: KernelsPane.NodeChosen) -> None:
        await self.show_graph_node(message.kind, message.node)

    @on(KernelsPane.OriginChosen)
    def _kernel_to_source(self, message: KernelsPane.OriginChosen) -> None:
        o = message.origin
        self.app.push_screen(SourceDialog(self.data, o.filename, o.line, title=o.op))

    # -- what `e` and `x` act on -------------------------------------------------------
    def current_frame(self) -> Frame:
        return self.frame

    def current_location(self) -> Location | None:
        pane = self.pane(self.active_tab)
        found = pane.current_location() if pane.built else None
        return found or (self.frame.filename, self.frame.line)
