"""A finding in a few words, where every output says it alike: what a break did beyond itself,
what a ``___stackN`` name holds. No torch."""

from __future__ import annotations

from collections.abc import Sequence

from inspectc.analysis.breaks import StackValue
from inspectc.analysis.resume import short_function, shown_function
from inspectc.model import Frame, GraphBreak


def consequence(gb: GraphBreak) -> str | None:
    """What the break did beyond itself: Dynamo gave up on the whole frame (it ran eagerly),
    and the break it hit while handling this one (2.9+: "graph break in loop")."""
    skipped = "Dynamo skipped the whole frame: it ran eagerly" if gb.frame_skipped else None
    then = f"while handling it, another break: {gb.then}" if gb.then else None
    return "; ".join(s for s in (skipped, then) if s) or None


def stack_value(value: StackValue, where: str) -> str:
    """One line on a ``___stackN``, *where* being its file:line as the reader shows paths."""
    if value.expression:
        text = f"{value.name} is the value of `{value.expression}` at {where}"
        return text + (f" (`{value.assigned_to}`)" if value.assigned_to else "")
    code = f" (`{value.code.strip()}`)" if value.code else ""
    return f"{value.name} is a value Dynamo kept on the Python stack across the graph break at {where}{code}"


def suffix_note(frames: Sequence[Frame]) -> str | None:
    """What ``Name (inner)`` means in a frame table, when a frame is shown so: the code Dynamo
    compiled was a wrapper of the callable named (torch's ``inner``, transformers' ``wrapper``,
    a module's ``forward`` under a hook); the suffix is that wrapper's own name."""
    shown = sorted(
        {short_function(f.function) for f in frames if shown_function(f).endswith(")") and f.function}
    )
    if not shown:
        return None
    said = ", ".join(f"({name})" for name in shown[:4]) + (", …" if len(shown) > 4 else "")
    return f"{said}: Dynamo compiled a wrapper of the callable named; the suffix is the wrapper's name"


def no_graph_reason(frame: Frame, where: str | None = None) -> str:
    """Why a frame has no FX graph (only its guards), in one sentence."""
    if frame.failure is not None:
        return "Compilation failed before Dynamo produced a graph (see the Graph breaks tab)."
    if frame.status == "compiling":
        return "The run ended while this frame was still compiling."
    if frame.status == "interrupted":
        return "The run was interrupted (SIGINT/SIGTERM) while this frame was compiling."
    if frame.graph_breaks:
        at = f" at {where}" if where else ""
        return (
            f"The graph break{at} came before any tensor operation: Dynamo had nothing to compile"
            " for this frame and ran it eagerly up to the break; only its guards were recorded."
        )
    if frame.status == "empty_graph" or frame.metrics.op_count == 0:
        return (
            "Dynamo traced this frame but found no tensor operations, so it compiled no graph;"
            " only the guards that let it skip the frame next time were recorded."
        )
    return "No FX graph was recorded for this frame."
