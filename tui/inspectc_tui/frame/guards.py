"""The Guards tab: the frame's guard tree, filterable by source (`f`), and on a recompile
the guard that failed (this frame's reason, and guards of this frame that later failed).

A tensor guard's label puts what it checks first (dtype, size, stride); the highlighted
guard is shown whole below the tree, wrapped, and the tree scrolls sideways (←/→).
Dynamo's ``___stackN`` sources are explained where they appear."""

from __future__ import annotations

import re

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Input, Static, Tree

from inspectc.analysis.breaks import stack_values
from inspectc.model import Guard
from inspectc.render.words import stack_value
from inspectc_tui.frame.base import FramePane, Location
from inspectc_tui.text import literal, location

MAX_NODES = 5000
EXPAND_UP_TO = 400  # guards; a bigger tree opens with its sources folded
_MANAGERS = {"TREE_GUARD_MANAGER", "GuardManager", "DictGuardManager", "RootGuardManager"}
_TENSOR = re.compile(r"\btensor '([^']+)'")
_CHECK_TENSOR = re.compile(
    r"^check_tensor\((?P<source>.*?), (?P<cls>\w+), DispatchKeySet\([^)]*\), (?P<rest>.*)\)$"
)


def guard_summary(guard: Guard) -> str:
    """What a guard checks, most telling part first: a tensor guard's dtype, size and stride
    come before the dispatch keys that push them off a narrow screen."""
    code = guard.code
    if code.startswith(guard.kind + ":"):
        code = code[len(guard.kind) + 1 :].strip()
    match = _CHECK_TENSOR.match(code) if guard.kind == "TENSOR_MATCH" else None
    if match is None:
        return code
    parts = [p.strip() for p in _top_level_split(match.group("rest")) if p.strip()]
    named = [p for p in parts if p.startswith(("size=", "stride="))]
    rest = [p for p in parts if p not in named and p != "device=None"]
    return ", ".join([*rest[:1], *named, *rest[1:]])


def failed_guard_matches(guard: Guard, reason: str) -> bool:
    """Whether a recompile *reason* names *guard* (by its source or its code)."""
    tensor = _TENSOR.search(reason)
    if tensor is not None:  # "tensor 'x' size mismatch ...": the TENSOR_MATCH of L['x']
        name = tensor.group(1)
        return guard.kind == "TENSOR_MATCH" and guard.source in (name, f"L['{name}']")
    if guard.source and guard.source in reason:
        return True
    return bool(guard.code) and len(guard.code) > 8 and guard.code in reason


def _top_level_split(text: str) -> list[str]:
    """*text* split at the commas outside brackets (``size=[8, 64]`` stays whole)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


class GuardsPane(FramePane):
    BINDINGS = [Binding("f", "filter", "Filter guards")]
    # The filter's text (the tree is rebuilt for it) and the highlighted guard (shown whole
    # below the tree): widgets set them, the watchers show them.
    needle: var[str] = var("", init=False)
    guard: var[Guard | None] = var(None, init=False, always_update=True)

    def build(self) -> ComposeResult:
        yield GuardFilter(
            placeholder="f: filter guards by source or code, e.g. L['x']   (Enter: the tree · Esc: clear)",
            id="guard-filter",
        )
        yield Static(id="recompile-info")
        yield Tree(Text("guards"), id="guard-tree")
        yield Static(id="guard-detail")

    def load(self) -> None:
        self.query_one("#guard-detail").display = False
        self._failed = self._failure_reasons()
        self._recompile_panel()
        self._fill(self.needle)

    def main_widget(self) -> Widget | None:
        return self.query_one("#guard-tree")

    def _failure_reasons(self) -> list[str]:
        """Texts of later recompiles caused by a guard of this frame failing."""
        return [r.guard or r.text for _, r in self.data.later_recompiles(self.frame)]

    def action_filter(self) -> None:
        self.query_one("#guard-filter").focus()

    def stack_notes(self, text: str) -> list[str]:
        """What each ``___stackN`` in *text* holds, as lines (empty when none is named)."""
        values = stack_values(text, self.frame, self.data.frames, self.data.run.python_version)
        return [stack_value(v, location(v.filename, v.line, self.data.run)) for v in values]

    def _recompile_panel(self) -> None:
        info = Text()
        for rec in self.frame.recompiles:
            failed = rec.failed_guards  # one per earlier cache entry, newest first
            info.append("Recompiled: ", style="bold magenta")
            if len(failed) > 1:
                info.append(f"the guards of {len(failed)} cache entries failed\n")
            elif rec.earlier_compile_id:
                info.append(f"a guard of frame {rec.earlier_compile_id} failed\n")
            for one in failed:
                of = f" of {one.earlier_compile_id}" if len(failed) > 1 and one.earlier_compile_id else ""
                info.append(f"  failed guard{of}: ", style="dim")
                info.append_text(literal(one.guard or one.text, "red"))
                info.append("\n")
            for note in self.stack_notes(rec.guard or rec.text):
                info.append("  ")
                info.append_text(literal(note, "italic"))
                info.append("\n")
        for later, later_guard in self.data.later_recompiles(self.frame):
            info.append(f"Guard failed later, recompiling as {later.compile_id}: ", style="bold magenta")
            info.append_text(literal(later_guard.guard or later_guard.text, "red"))
            info.append("\n")
        info.rstrip()
        panel = self.query_one("#recompile-info", Static)
        panel.update(info)
        panel.display = bool(info.plain)

    def _fill(self, needle: str) -> None:
        """The guards grouped by the source they check (global guards first)."""
        tree: Tree[Guard] = self.query_one("#guard-tree", Tree)
        tree.clear()
        guards = [g for g in self.frame.guards if g.kind not in _MANAGERS]
        if not guards:
            tree.root.set_label(Text("No guards recorded for this frame.", style="dim"))
            return
        low = needle.strip().lower()
        groups: dict[str, list[Guard]] = {}
        for guard in guards:
            source = guard.source or ""
            if low and low not in source.lower() and low not in guard.code.lower():
                continue
            groups.setdefault(source, []).append(guard)
        shown = sum(len(g) for g in groups.values())
        label = Text(f"{len(guards)} guards", style="bold")
        if low:
            label.append(f"  ·  {shown} match", style="dim")
        tree.root.set_label(label)
        expand = shown <= EXPAND_UP_TO
        count = 0
        for source, members in groups.items():
            failed = [self._failed_guard(g) for g in members]
            title = literal(source, "bold") if source else Text("global state", style="bold italic")
            title.append(f"  {len(members)}", style="dim")
            for note in self.stack_notes(source):
                title.append("  ")
                title.append_text(literal(note, "italic dim"))
            if any(failed):
                title.append("  ✗ failed later", style="bold red")
            node = tree.root.add(title, expand=expand or any(failed))
            for guard, bad in zip(members, failed, strict=True):
                node.add_leaf(self._label(guard, bad), data=guard)
                count += 1
                if count >= MAX_NODES:
                    tree.root.add_leaf(Text(f"… {shown - count} more (filter to narrow)", style="dim"))
                    tree.root.expand()
                    return
        if low and not groups:
            tree.root.add_leaf(Text("no guard matches the filter", style="dim"))
        tree.root.expand()

    def _failed_guard(self, guard: Guard) -> bool:
        return any(failed_guard_matches(guard, reason) for reason in self._failed)

    @staticmethod
    def _label(guard: Guard, failed: bool) -> Text:
        label = Text()
        if failed:
            label.append("✗ failed later  ", style="bold white on red")
        label.append_text(literal(guard.kind, "bold cyan"))
        label.append("  ")
        label.append_text(literal(guard_summary(guard), "red" if failed else "", one_line=True))
        return label

    @on(Input.Changed, "#guard-filter")
    def _filter(self, event: Input.Changed) -> None:
        self.needle = event.value

    def watch_needle(self, needle: str) -> None:
        self._fill(needle)

    @on(Input.Submitted, "#guard-filter")
    def _to_tree(self) -> None:
        self.query_one("#guard-tree").focus()

    @on(Tree.NodeHighlighted, "#guard-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[Guard]) -> None:
        self.guard = event.node.data if isinstance(event.node.data, Guard) else None

    def watch_guard(self, guard: Guard | None) -> None:
        detail = Text()
        if isinstance(guard, Guard):
            detail.append_text(literal(guard.kind, "bold cyan"))
            if guard.source:
                detail.append(" on ", style="dim")
                detail.append_text(literal(guard.source, "bold"))
            detail.append("\n")
            detail.append_text(literal(guard.code))
            if guard.user_code:
                detail.append("\nfrom ", style="dim")
                detail.append_text(literal(guard.user_code, "italic"))
            if guard.filename:
                detail.append("\n" if not guard.user_code else "  ")
                detail.append("at ", style="dim")
                detail.append_text(literal(location(guard.filename, guard.line, self.data.run), "cyan"))
        panel = self.query_one("#guard-detail", Static)
        panel.update(detail)
        panel.display = bool(detail.plain)

    def current_location(self) -> Location | None:
        node = self.query_one("#guard-tree", Tree).cursor_node
        guard = node.data if node is not None else None
        if isinstance(guard, Guard) and guard.filename:
            return (guard.filename, guard.line)
        return None


class GuardFilter(Input):
    """The filter line: Esc clears it and gives the keys back to the tree (not the screen's Back)."""

    BINDINGS = [Binding("escape", "leave", "Back to the tree", show=False)]

    def action_leave(self) -> None:
        self.value = ""
        pane = next((a for a in self.ancestors if isinstance(a, GuardsPane)), None)
        if pane is not None:
            pane.query_one("#guard-tree").focus()
