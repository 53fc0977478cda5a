"""The run's graph breaks as one stack trie (tlparse draws compiled frames this way).

Each break's user stack, from the user's code on, is a path from a root; paths that share
their first frames share nodes, so a training loop's one call site shows once with every
break under it. Leaves are the breaks themselves, one per (location, reason), with the
frames they happened in. Readers only: no torch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from inspectc.analysis.breaks import title_and_explanation, user_frames
from inspectc.model import Frame, GraphBreak, StackFrame

Where = Callable[[str | None, int | None], str]  # (filename, line) -> how the reader shows it


@dataclass(slots=True)
class BreakLeaf:
    """One break reason at one place, and every frame it happened in."""

    gb: GraphBreak
    title: str
    frames: list[Frame] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.frames)


@dataclass(slots=True)
class TrieNode:
    """A user frame shared by the stacks below it (the root has none)."""

    frame: StackFrame | None = None
    children: dict[tuple[str | None, int | None, str | None], TrieNode] = field(default_factory=dict)
    breaks: dict[tuple[str | None, int | None, str], BreakLeaf] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """Breaks at this node and below."""
        return sum(b.count for b in self.breaks.values()) + sum(c.count for c in self.children.values())

    def sorted_children(self) -> list[TrieNode]:
        return sorted(self.children.values(), key=lambda n: (-n.count, _key(n.frame)))

    def sorted_breaks(self) -> list[BreakLeaf]:
        return sorted(self.breaks.values(), key=lambda b: (-b.count, b.title))


def break_trie(frames: Iterable[Frame]) -> TrieNode:
    """Every graph break (and a failure's break) of *frames*, under its user stack."""
    root = TrieNode()
    placed: set[tuple[int, int]] = set()  # (leaf, frame) by identity: `in` on a list of frames
    # compared whole frames, quadratic: 5,000 frames took 120 s, 50,000 hours (issue 38)
    for frame in frames:
        found = list(frame.graph_breaks)
        if frame.failure is not None and frame.failure.graph_break is not None:
            found.append(frame.failure.graph_break)
        for gb in found:
            node = root
            for entry in _path(gb, frame):
                key = _key(entry)
                node = node.children.setdefault(key, TrieNode(frame=entry))
            leaf_key = (gb.filename, gb.line, gb.reason)
            leaf = node.breaks.get(leaf_key)
            if leaf is None:
                leaf = node.breaks[leaf_key] = BreakLeaf(gb, title_and_explanation(gb)[0])
            if (id(leaf), id(frame)) not in placed:
                placed.add((id(leaf), id(frame)))
                leaf.frames.append(frame)
    return root


def _path(gb: GraphBreak, frame: Frame) -> tuple[StackFrame, ...]:
    stack = user_frames(gb.user_stack)
    if stack:
        return stack
    # No stack recorded: the break's own location, under the frame's stack.
    here = StackFrame(filename=gb.filename or frame.filename, line=gb.line, function=frame.function)
    return (*user_frames(frame.user_stack)[:-1], here)


def _key(frame: StackFrame | None) -> tuple[str, int, str]:
    """A sort key: a part not recorded sorts first (None is not comparable with text)."""
    if frame is None:
        return ("", -1, "")
    return (frame.filename or "", -1 if frame.line is None else frame.line, frame.function or "")
