"""A finding in a few words, where every output says it alike: what a break did beyond itself,
what a ``___stackN`` name holds. No torch."""

from __future__ import annotations

from collections.abc import Sequence

from inspectc.analysis.breaks import StackValue
from inspectc.analysis.costs import BreakCost
from inspectc.analysis.resume import short_function, shown_function
from inspectc.model import Frame, GraphBreak, KernelTime
from inspectc.model.costs import WAITS_ON_HOST, EagerFrame
from inspectc.model.extras import Symbol
from inspectc.render.timefmt import column_unit


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


def symbol_text(x: Symbol) -> str:
    """``s77=L['x'].size()[0]``; a symbol with no source (an unbacked one: ``.item()``,
    ``nonzero``) says so, ``u0 (data-dependent)``, instead of ``u0=None``."""
    if x.source:
        return f"{x.symbol}={x.source}"
    return f"{x.symbol} (data-dependent)" if x.unbacked else x.symbol


def time_text(us: float) -> str:
    unit = column_unit([us])
    return f"{unit.fmt(us)} {unit.name}"


def spread(t: KernelTime) -> str:
    """``n=10, CV 3%`` (noisy figures said to be)."""
    cv = f", CV {t.cv:.0%}" if t.cv is not None else ""
    noisy = f", noisy: {t.noise}" if t.noise else ""
    return f"n={t.calls}{cv}{noisy}"


def eager_line(e: EagerFrame | None) -> str:
    """What a recompile limit hit cost: ``then 37 calls ran eagerly (median 1.2 ms each)``."""
    if e is None:
        return (
            "the calls that then ran eagerly were not recorded (captured by an older inspectc, or imported)"
        )
    if e.calls is None:
        return f"the calls that then ran eagerly were not recorded ({e.why_not or 'unknown'})"
    each = f" (median {time_text(e.time.typical_us)} each)" if e.time is not None and e.time.calls else ""
    return (
        f"then {e.calls} call(s) ran eagerly{each}, to the run's end: raise"
        " torch._dynamo.config.recompile_limit, or remove what recompiles"
    )


def cost_line(c: BreakCost) -> str:
    """``costs 18.2 ms per call (n=10, CV 3%; 31% of the call)`` or why not measured."""
    if not c.measured or c.cost_us is None or c.gap is None:
        return "cost not measured (outside the timing window, or captured with --no-timings)"
    basis = c.device if c.device is not None else c.gap
    share = f"; {c.share:.0%} of the call" if c.share is not None else ""
    text = f"costs {time_text(c.cost_us)} per call ({spread(basis)}{share})"
    if c.device is not None:
        waits = (
            "the call waits on it" if c.waits_on == WAITS_ON_HOST else "hidden: the device had queued work"
        )
        text += (
            f"; {time_text(c.device.typical_us)} between the graphs' kernels on the device,"
            f" over a {time_text(c.gap.typical_us)} host gap ({waits})"
        )
    if c.cheap:
        text += ": cheap"
    return text
