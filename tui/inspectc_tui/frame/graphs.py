"""The FX graphs tab: Dynamo, AOT forward/backward, post-grad graphs and output code,
highlighted, read from the report only when shown. Enter on a node line goes to the
kernel that computed it (several: a list to pick from); on a Dynamo graph node through
Inductor's provenance (the kernels' origins name Dynamo's nodes)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspectc.model import Kernel
from inspectc.render.words import no_graph_reason
from inspectc_tui.dialogs.node_kernels import NodeKernelsDialog
from inspectc_tui.frame.base import FramePane
from inspectc_tui.fusion import SOURCE_GRAPHS, node_at, node_kernels, node_line, node_source
from inspectc_tui.text import literal, location
from inspectc_tui.widgets.code_view import CodeView

TITLES = {
    "dynamo": "Dynamo graph",
    "pre_grad": "Pre-grad",
    "aot_joint": "AOT joint",
    "aot_forward": "AOT forward",
    "aot_inference": "AOT inference",
    "aot_backward": "AOT backward",
    "post_grad": "Post-grad",
    "post_grad_backward": "Post-grad bwd",
    "output_code": "Output code",
    "output_code_backward": "Output code bwd",
    "fx_graph_runnable": "Runnable repro",
    "guards": "Guards (raw)",
}
ORDER = list(TITLES)


class GraphsPane(FramePane):
    # The graph kind shown: the list sets it, watch_current reads it.
    current: var[str | None] = var(None, init=False)

    @dataclass(eq=False)
    class NodeChosen(Message):
        """A node line was chosen: go to the kernel that fused it."""

        node: str
        kernel_id: int

    @dataclass(eq=False)
    class GraphRead(Message):
        """A graph's text was read (off the UI thread)."""

        kind: str
        text: str | None
        focus_node: str | None

    def build(self) -> ComposeResult:
        with Horizontal(id="graphs-body"):
            yield OptionList(id="graph-kinds")
            with Vertical(id="graph-main"):
                yield Static(id="graph-note")
                yield Static(id="graph-caption")
                yield CodeView(id="graph-code")

    def load(self) -> None:
        kinds = sorted(self.frame.graph_kinds, key=lambda k: ORDER.index(k) if k in ORDER else 99)
        self.kinds = kinds
        self._pending: tuple[str | None, str | None] = (None, None)
        options = self.query_one("#graph-kinds", OptionList)
        note = self.query_one("#graph-note", Static)
        fx = [k for k in kinds if k != "guards"]
        note.display = not fx
        if not fx:  # nothing compiled: say why, above the guards that were recorded
            note.update(Text("No FX graph. ", style="bold") + literal(self.empty_reason(), "italic"))
        if not kinds:
            options.display = False
            self.query_one("#graph-caption", Static).update(
                Text("No graphs recorded for this frame.", style="dim")
            )
            return
        options.add_options(Option(Text(TITLES.get(k, k)), id=k) for k in kinds)
        options.highlighted = 0

    def empty_reason(self) -> str:
        gb = self.frame.graph_breaks[0] if self.frame.graph_breaks else None
        where = location(gb.filename, gb.line, self.data.run) if gb else None
        return no_graph_reason(self.frame, where)

    def main_widget(self) -> Widget | None:
        return self.query_one("#graph-kinds") if self.kinds else None

    def show(self, kind: str, node: str | None = None) -> None:
        """Show graph *kind*, with the cursor on *node*'s definition when given."""
        if kind not in self.kinds:
            return
        if kind == self.current:
            if node is not None:
                self._focus_node(node)
            return
        self._pending = (kind, node)
        options = self.query_one("#graph-kinds", OptionList)
        options.highlighted = self.kinds.index(kind)

    @on(OptionList.OptionHighlighted, "#graph-kinds")
    def _kind_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.current = event.option.id or ""

    def watch_current(self, kind: str | None) -> None:
        if kind is None:
            return
        self.query_one("#graph-caption", Static).update(Text(f"reading {TITLES.get(kind, kind)}…"))
        pending_kind, pending_node = self._pending
        if pending_kind == kind:  # an earlier highlight (the list's first) must not take it
            self._pending = (None, None)
            self._read(kind, pending_node)
        else:
            self._read(kind, None)

    @on(OptionList.OptionSelected, "#graph-kinds")
    def _kind_selected(self) -> None:
        self.query_one("#graph-code").focus()

    @work(thread=True, exclusive=True, group="graph", exit_on_error=False)
    def _read(self, kind: str, focus_node: str | None) -> None:
        self.post_message(self.GraphRead(kind, self.data.graph(self.frame, kind), focus_node))

    @on(GraphRead)
    def _show_text(self, message: GraphRead) -> None:
        if message.kind != self.current:
            return
        view = self.query_one("#graph-code", CodeView)
        text = message.text
        caption = Text(TITLES.get(message.kind, message.kind), style="bold")
        if text is None:
            view.set_text("")
            caption.append("  ·  not in the report", style="dim")
        else:
            view.set_text(text, language="python")
            caption.append(f"  ·  {view.line_count:,} lines", style="dim")
            if any(k.fused_nodes for k in self.data.frame_kernels(self.frame)):
                caption.append("  ·  Enter on a node: its kernels", style="dim")
        self.query_one("#graph-caption", Static).update(caption)
        if message.focus_node:
            self._focus_node(message.focus_node)

    def _focus_node(self, node: str) -> None:
        view = self.query_one("#graph-code", CodeView)
        # Even when the node is missing, focus must leave the tab we came from; after the
        # switch is drawn, since a widget in a tab not yet shown cannot take focus.
        self.call_after_refresh(view.focus)
        index = node_line(view.lines, node)
        if index is None:
            self.app.notify(f"node {node} is not in this graph", severity="warning", markup=False)
            return
        view.marks = {index}
        view.show_line(index)

    @on(CodeView.LineChosen, "#graph-code")
    def _line_chosen(self, event: CodeView.LineChosen) -> None:
        node = node_at(event.line)
        kind = self.current or ""
        if node is None:
            return
        view = self.query_one("#graph-code", CodeView)
        source = node_source(view.lines, view.cursor) if view.cursor is not None else None
        kernels = self.data.frame_kernels(self.frame)
        found = node_kernels(kernels, node, kind, source)
        if not found:
            self.app.notify(self._no_kernel(node, kind, kernels), markup=False)
            return
        if len(found) == 1:
            self.post_message(self.NodeChosen(node, found[0].kernel.id))
            return

        def chosen(kernel_id: int | None) -> None:
            if kernel_id is not None:
                self.post_message(self.NodeChosen(node, kernel_id))

        self.app.push_screen(NodeKernelsDialog(node, found), chosen)

    @staticmethod
    def _no_kernel(node: str, kind: str, kernels: list[Kernel]) -> str:
        if not kernels:
            return f"no kernel computed the node {node}: this frame has no kernels"
        if kind in SOURCE_GRAPHS and not any(k.origins for k in kernels):
            return f"the node {node} maps to no kernel: this frame's kernels have no provenance recorded"
        return f"no kernel computed the node {node} (a placeholder, a view or an op folded away)"

    def current_location(self) -> tuple[str | None, int | None] | None:
        view = self.query_one("#graph-code", CodeView)
        if view.cursor is None:
            return None
        line = view.line(view.cursor)
        marker = "# File: "
        if marker in line:  # `# File: /path/x.py:12 in forward, code: ...`
            where = line.split(marker, 1)[1].split(" in ", 1)[0]
            path, _, number = where.rpartition(":")
            if number.isdigit():
                return (path, int(number))
        return None
