"""Summary sections for a frame's extras (CUDA graphs, autotuning, symbolic shapes), the
``torch.compile`` backend line and a failure's one-line reason. No torch."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from inspectc.analysis.breaks import consequence, flat, user_message
from inspectc.model import Failure, Frame, RunOptions

MAX_SUMMARY_OPS = 12
MAX_SUMMARY_FRAMES = 8
Clean = Callable[[str], str]
Locate = Callable[[str | None, int | None], str]
T = TypeVar("T")


def summary_lines(frames: list[Frame], clean: Clean, locate: Locate) -> list[str]:
    """Summary sections for CUDA graphs, autotuning and symbolic shapes (empty when none)."""
    return (
        _cudagraph_lines(frames, clean)
        + _autotune_lines(frames, clean)
        + _symbol_lines(frames, clean, locate)
    )


def _cudagraph_lines(frames: list[Frame], clean: Clean) -> list[str]:
    recorded = [f for f in frames if f.cudagraphs is not None]
    skipped = [f for f in frames if f.cudagraph_skip_reason]
    if not recorded and not skipped:
        return []
    lines = ["", f"CUDA graphs ({len(recorded)} frames recorded, {len(skipped)} skipped)"]
    for f in recorded:
        count = f.cudagraphs.recorded if f.cudagraphs else 0
        lines.append(f"  {f.compile_id:<6} {clean(f.function or '?')}(): recorded ×{count}")
    for f in skipped:
        reason = (f.cudagraph_skip_reason or "").strip().splitlines()[0]
        lines.append(f"  {f.compile_id:<6} {clean(f.function or '?')}(): skipped: {clean(reason)[:100]}")
    return lines


def _autotune_lines(frames: list[Frame], clean: Clean) -> list[str]:
    tuned = [(f, e) for f in frames for e in f.autotuning]
    if not tuned:
        return []
    lines = ["", f"Autotuning ({len(tuned)} op{'s' * (len(tuned) != 1)}; best first)"]
    for f, e in tuned[:MAX_SUMMARY_OPS]:
        took = f" in {e.seconds:.1f}s" if e.seconds is not None else ""
        lines.append(
            f"  {f.compile_id:<6} {clean(e.op)}({clean(e.shapes or '?')}): "
            f"{e.num_choices if e.num_choices is not None else '?'} choices{took}"
            f", picked {clean(str(e.best))} {_ms(e.best_ms)}"
        )
        for c in e.choices[1:4]:
            lines.append(f"           then {clean(str(c.name))} {_ms(c.ms)}")
    if len(tuned) > MAX_SUMMARY_OPS:
        lines.append(f"  … {len(tuned) - MAX_SUMMARY_OPS} more")
    return lines


def _unique(items: Iterable[T]) -> list[T]:
    out: list[T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _symbol_lines(frames: list[Frame], clean: Clean, locate: Locate) -> list[str]:
    shaped = [(f, f.symbolic_shapes) for f in frames if f.symbolic_shapes is not None]
    if not shaped:
        return []
    ranked = len({f.rank for f in frames}) > 1
    lines = ["", "Symbolic shapes (dynamic sizes and the guards on them)"]
    for f, s in shaped[:MAX_SUMMARY_FRAMES]:
        if s is None:
            continue
        # a restarted analysis (attempt 1) emits the same symbols and guards again: show once
        symbols = _unique(s.symbols)
        guards = _unique(s.guards)
        names = ", ".join(f"{clean(x.symbol)}={clean(str(x.source))}" for x in symbols[:3])
        more = f" (+{len(symbols) - 3})" if len(symbols) > 3 else ""
        lines.append(
            f"  {f.compile_id.label if ranked else str(f.compile_id):<6} "
            f"{clean(f.function or '?')}(): {names}{more}; "
            f"{len(guards)} shape guard{'s' * (len(guards) != 1)}"
        )
        for g in guards[:3]:
            where = locate(g.filename, g.line) if g.filename else ""
            lines.append(f"           {clean(g.expr)[:70]}  {where}".rstrip())
    return lines


def backend_line(options: RunOptions) -> str | None:
    """``torch.compile: aot_eager (fullgraph) · registered backends: ...`` when a run used another
    backend than plain Inductor, a mode, dynamic or fullgraph; None otherwise."""
    used = options.compile_backends
    plain = all(
        b.name == "inductor"
        and not b.options
        and b.dynamic is None
        and not b.fullgraph
        and b.mode in (None, "default")
        for b in used
    )
    if not used or plain:
        return None
    parts = []
    for b in used:
        flags = [f"mode={b.mode}"] if b.mode not in (None, "default") else []
        flags += [k if v is True else f"{k}={v}" for k, v in b.options.items() if v is not False]
        if b.dynamic is not None:
            flags.append(f"dynamic={b.dynamic}")
        if b.fullgraph:
            flags.append("fullgraph")
        parts.append(b.name + (f" ({', '.join(flags)})" if flags else ""))
    line = "torch.compile: " + "; ".join(parts)
    if any(b.name != "inductor" for b in used) and options.registered_backends:
        line += " · registered backends: " + ", ".join(options.registered_backends)
    return line


def config_line(options: RunOptions) -> str | None:
    """``torch config: dynamo.capture_scalar_outputs=True (--config), dynamo.recompile_limit=3``."""
    if not options.config:
        return None
    parts = [
        f"{c.key}{'' if c.value.startswith('+=') else '='}{c.value}"
        + (" (--config)" if c.origin == "--config" else "")
        for c in options.config[:6]
    ]
    more = len(options.config) - 6
    return (
        "torch config not at defaults: "
        + ", ".join(parts)
        + (f", +{more} more (inspectc export)" if more > 0 else "")
    )


def failure_text(failure: Failure) -> str:
    """A failed frame's reason on one line, every line of it kept (joined by `` ⏎ ``); a
    graph break that ``fullgraph=True`` made fatal is named, the user's message first."""
    if failure.graph_break is not None:
        gid = f" [{failure.graph_break.gb_id}]" if failure.graph_break.gb_id else ""
        said = user_message(failure.graph_break)
        first = f'"{said}" ' if said else ""
        after = consequence(failure.graph_break)
        then = f" ⏎ {after}" if after else ""
        return f"{first}not compiled: graph break{gid}: {flat(failure.graph_break.reason)}{then}"
    return f"{failure.fail_type or '?'}: {flat(failure.reason)}"


def _ms(value: float | None) -> str:
    return f"{value:.4f} ms" if isinstance(value, (int, float)) else "? ms"
