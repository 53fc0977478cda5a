"""`t`: every graph break of the run under its user stack, as one tree (a stack trie).

Stacks that share their first frames share nodes, so a call site that breaks in several
places shows once with each break under it. Enter on a break opens its first frame there.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, Tree
from textual.widgets.tree import TreeNode

from inspectc.analysis.text import counted
from inspectc.analysis.trie import BreakLeaf, TrieNode
from inspectc.render.trie import frame_text, leaf_text
from inspectc_tui.data import ReportData, frame_key
from inspectc_tui.messages import OpenFrame
from inspectc_tui.text import literal, location


class BreakStacksScreen(Screen[None]):
    BINDINGS = [Binding("escape,t", "app.pop_screen", "Back")]

    def __init__(self, data: ReportData) -> None:
        super().__init__()
        self.data = data

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="stacks-caption")
        yield Tree(Text("run"), id="stack-tree")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "graph breaks by stack"
        trie = self.data.trie
        tree: Tree[BreakLeaf] = self.query_one("#stack-tree", Tree)
        tree.show_root = False
        caption = Text(counted(trie.count, "graph break"), style="bold")
        caption.append("  under the user stacks they happened in (the user's code first)", style="dim")
        caption.append("  ·  Enter on ● opens the frame", style="dim")
        self.query_one("#stacks-caption", Static).update(caption)
        if not trie.children and not trie.breaks:
            tree.root.add_leaf(Text("No graph breaks in this run.", style="green"))
        self._add(tree.root, trie)
        tree.root.expand_all()
        tree.focus()

    def _add(self, parent: TreeNode[BreakLeaf], node: TrieNode) -> None:
        where = self._where
        for leaf in node.sorted_breaks():
            parent.add_leaf(literal(leaf_text(leaf), "bold yellow"), data=leaf)
        for child in node.sorted_children():
            label = literal(frame_text(child, where), "cyan")
            label.append(f"  {child.count}", style="dim")
            branch = parent.add(label, expand=True)
            self._add(branch, child)

    def _where(self, filename: str | None, line: int | None) -> str:
        return location(filename, line, self.data.run)

    @on(Tree.NodeSelected, "#stack-tree")
    def _open(self, event: Tree.NodeSelected[BreakLeaf]) -> None:
        leaf = event.node.data
        if isinstance(leaf, BreakLeaf) and leaf.frames:
            self.post_message(OpenFrame(frame_key(leaf.frames[0]), "breaks", break_reason=leaf.gb.reason))
