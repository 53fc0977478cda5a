"""The run's graph breaks under the user frames that led to them, as indented text lines
(``├─``/``└─``, breaks marked ``●``): the share's break stacks and the TUI's tree labels. The
trie itself: :mod:`inspectc.analysis.trie`. No torch."""

from __future__ import annotations

from inspectc.analysis.trie import BreakLeaf, TrieNode, Where


def render_trie(root: TrieNode, where: Where, *, max_frames: int = 4) -> list[str]:
    """The trie as indented text lines (``├─``/``└─``), breaks marked ``●``.

    Report text is returned as recorded: the caller makes it printable for its medium.
    """
    lines: list[str] = []

    def walk(node: TrieNode, prefix: str) -> None:
        items: list[TrieNode | BreakLeaf] = [*node.sorted_breaks(), *node.sorted_children()]
        for index, item in enumerate(items):
            last = index == len(items) - 1
            branch, below = ("└─ ", "   ") if last else ("├─ ", "│  ")
            if isinstance(item, BreakLeaf):
                lines.append(prefix + branch + leaf_text(item, max_frames=max_frames))
            else:
                lines.append(prefix + branch + frame_text(item, where))
                walk(item, prefix + below)

    walk(root, "")
    return lines


def frame_text(node: TrieNode, where: Where) -> str:
    f = node.frame
    if f is None:
        return "(run)"
    text = f"{where(f.filename, f.line)} in {f.function or '?'}"
    if f.code:
        text += f"  {' '.join(f.code.split())}"
    return text


def leaf_text(leaf: BreakLeaf, *, max_frames: int = 4) -> str:
    ids = [f.compile_id.label for f in leaf.frames]
    shown = ", ".join(ids[:max_frames]) + (", …" if len(ids) > max_frames else "")
    gid = f" [{leaf.gb.gb_id}]" if leaf.gb.gb_id else ""
    return f"● {leaf.count}× {leaf.title}{gid}  ({shown})"
