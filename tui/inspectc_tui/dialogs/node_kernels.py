"""Enter on a graph node that several kernels computed: pick one (its id comes back)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspectc.analysis.text import counted
from inspectc_tui.fusion import NodeKernel, is_backward
from inspectc_tui.text import literal

HOW = {
    "fused": "fused it",
    "provenance": "fused it (Inductor provenance)",
    "same line": "backward of the same user line",
}


def kernel_label(found: NodeKernel) -> Text:
    kernel = found.kernel
    label = Text("bwd  " if is_backward(kernel) else "fwd  ", style="magenta")
    label.append_text(literal(kernel.name, "green"))
    label.append(f"  {HOW.get(found.how, found.how)}", style="dim")
    return label


class NodeKernelsDialog(ModalScreen[int | None]):
    """The kernels that computed one node; Enter goes to the highlighted one."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, node: str, found: Sequence[NodeKernel]) -> None:
        super().__init__()
        self.node = node
        self.found = list(found)

    def compose(self) -> ComposeResult:
        with Vertical():
            title = Text(f"{counted(len(self.found), 'kernel')} computed the node ", style="bold")
            title.append_text(literal(self.node, "bold cyan"))
            yield Static(title, id="node-kernels-title")
            yield OptionList(
                *(Option(kernel_label(f), id=str(f.kernel.id)) for f in self.found), id="node-kernels"
            )
            yield Static("Enter: go to the kernel   Esc: close", id="node-kernels-help")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected, "#node-kernels")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id) if event.option.id else None)
