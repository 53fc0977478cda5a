"""The break view of a run: compiled frames in execution order, breaks and recompiles as edges.

``breaks_dot(report)`` draws one box per compiled frame, the versions of one code object
(recompiles) stacked in one cluster with dashed "guard failed" edges, and each graph break as
a red edge into the frame Dynamo resumed in (``torch_dynamo_resume_in_<fn>_at_<line>``), or
into "continues eagerly" when no resume frame was compiled. Built with ``graphviz.Digraph``;
report text goes in through :mod:`.style` only. No torch.
"""

from __future__ import annotations

import re

import graphviz

from inspectc.analysis.breaks import user_message
from inspectc.analysis.resume import code_first_line
from inspectc.analysis.views import one_line, shown_status
from inspectc.model import CompileId, Frame, Run
from inspectc.model.limits import scale
from inspectc.render.graph.style import (
    FONT,
    STATUS_FILL,
    clip,
    graph_where,
    html,
    ident,
    label,
    plain,
    plural,
    small,
)
from inspectc.render.sections.breaks import failure_text
from inspectc.store.reader import Report

__all__ = ["breaks_dot", "resume_target"]

RESUME_PREFIX = "torch_dynamo_resume_in_"
_RESUME = re.compile(rf"^{RESUME_PREFIX}(?P<fn>.+)_at_(?P<line>\d{{1,18}})$")

CodeKey = tuple[int | None, tuple[object, ...]]
MAX_FRAMES = 2000  # frames drawn in the break view, times INSPECTC_LIMITS


def breaks_dot(report: Report) -> str:
    """DOT text of the whole run: frames in execution order, breaks and recompiles as edges."""
    frames = sorted(report.frames, key=lambda f: (f.ordinal, f.rank or 0))
    run = report.run
    breaks = sum(len(f.graph_breaks) for f in frames)
    recompiles = sum(1 for f in frames if f.recompiles)
    title = (
        f"<B>{html(report.path.name, 80)}</B> · {plural(len(frames), 'compiled frame')}"
        f" · {plural(breaks, 'graph break')} · {plural(recompiles, 'recompile')}"
    )
    cap = max(1, int(MAX_FRAMES * scale()))
    if len(frames) > cap:  # a picture of more is unreadable, and finding resumes is quadratic
        title += "<BR/>" + small(f"the first {cap:,} frames drawn (INSPECTC_LIMITS=N draws more)", 10)
        frames = frames[:cap]
    if run.command_text:
        title += "<BR/>" + small(html(clip(run.command_text, 140)), 10)
    dot = graphviz.Digraph(
        "breaks",
        graph_attr={"rankdir": "TB", "fontname": FONT, "labelloc": "t", "label": label(title)},
        node_attr={"fontname": FONT, "fontsize": "10", "shape": "box", "style": "rounded,filled"},
        edge_attr={"fontname": FONT, "fontsize": "9"},
    )
    if not frames:
        dot.node("empty", label="no compiled frames in this report", shape="plaintext", style="")
        return dot.source
    groups: dict[CodeKey, list[Frame]] = {}
    for frame in frames:
        groups.setdefault(code_key(frame), []).append(frame)
    ranks = sorted({f.rank for f in frames}, key=lambda r: -1 if r is None else r)
    for rank in ranks:
        of_rank = [g for k, g in groups.items() if k[0] == rank]
        if len(ranks) > 1:
            attrs = {"label": label(f"<B>rank {rank}</B>"), "style": "dashed"}
            with dot.subgraph(name=f"cluster_rank_{rank}", graph_attr=attrs) as cluster:
                _draw_groups(cluster, of_rank, run)
        else:
            _draw_groups(dot, of_rank, run)
    # Execution order, top to bottom, without drawing it.
    for rank in ranks:
        ordered = [f for f in frames if f.rank == rank]
        for before, after in zip(ordered, ordered[1:], strict=False):
            dot.edge(frame_id(before), frame_id(after), style="invis", weight="2")
    for frame in frames:
        _draw_breaks(dot, frame, frames, run)
    return dot.source


def code_key(frame: Frame) -> CodeKey:
    """(rank, code object): the versions of one frame, recompiles included.

    Dynamo gives each code object one frame number (``CompileId.frame``, the 2 of "2/1").
    A frame without a typed id (a report built by hand) is known by its function and place.
    """
    if frame.compile_id.frame is not None:
        return frame.rank, (frame.compile_id.autograd, frame.compile_id.frame)
    return frame.rank, (frame.function, frame.filename, frame.line)


def _name(frame: Frame) -> str:
    rank = "" if frame.rank is None else f"r{frame.rank}/"
    return f"frame/{rank}{frame.compile_id}"


def frame_id(frame: Frame) -> str:
    return ident(_name(frame))


def original_function(function: str) -> str:
    """``torch_dynamo_resume_in_f_at_12`` -> ``f``: Dynamo names every resume after the user's code."""
    match = _RESUME.match(function)
    return match.group("fn") if match else function


def resume_target(frame: Frame, frames: list[Frame]) -> Frame | None:
    """The frame Dynamo resumed in after *frame*'s graph break, if it compiled one.

    A break at line L of function F resumes in ``torch_dynamo_resume_in_F_at_L``. F is the
    user's function even when *frame* is itself a resume frame (the second break of F resumes
    in ``..._in_F_at_L2``, not ``..._in_torch_dynamo_resume_in_F_at_L1_at_L2``); L is the
    break's line, or F's line in the break's stack when the break happened in a call.
    Of the versions of that resume frame, the first compiled after *frame*.
    """
    if not frame.function:
        return None
    function = original_function(frame.function)
    lines: set[int] = set()
    for gb in frame.graph_breaks:
        if gb.line is not None:
            lines.add(gb.line)
        lines.update(s.line for s in gb.user_stack if s.function == function and s.line is not None)
    names = {f"{RESUME_PREFIX}{function}_at_{line}" for line in lines}
    # Code identity, not the name alone: same file, and the resume's line inside *frame*'s code.
    owner = code_first_line(frames, frame)
    resumes = [
        f
        for f in frames
        if f.rank == frame.rank
        and (f.function or "").startswith(RESUME_PREFIX)
        and f.filename == frame.filename
        and code_first_line(frames, f) == owner
    ]
    found = [f for f in resumes if f.function in names and f is not frame]
    if not found:  # no line matches (a break in a call?): only F's one resume function will do
        prefix = f"{RESUME_PREFIX}{function}_at_"
        of_function = [f for f in resumes if (f.function or "").startswith(prefix)]
        if len({f.function for f in of_function}) == 1 and of_function[0].function != frame.function:
            found = of_function
    later = [f for f in found if f.ordinal > frame.ordinal]
    return (later or found)[0] if found else None


def _named(frames: list[Frame], cid: CompileId | None) -> Frame | None:
    """The frame *cid* names (a guard of it failed), if it is among *frames*."""
    return next((f for f in frames if cid is not None and f.compile_id.same_compile(cid)), None)


def _draw_groups(dot: graphviz.Digraph, groups: list[list[Frame]], run: Run) -> None:
    for index, versions in enumerate(groups):
        first = versions[0]
        where = graph_where(first.filename, first.line, run)
        title = f"<B>{html(first.function or '?', 80)}</B><BR/>{small(html(where, 100))}"
        rank = "" if first.rank is None else f"r{first.rank}_"
        attrs = {"label": label(title), "style": "rounded", "color": "#777777", "fontname": FONT}
        with dot.subgraph(name=f"cluster_code_{rank}{index}", graph_attr=attrs) as cluster:
            for frame in versions:
                _frame_node(cluster, frame)
            for i, frame in enumerate(versions):
                for recompile in frame.recompiles:
                    earlier = _named(versions, recompile.earlier_compile_id) or (
                        versions[i - 1] if i else None
                    )
                    if earlier is None or earlier is frame:
                        continue
                    why = recompile.guard or one_line(recompile.text, 100)
                    cluster.edge(
                        frame_id(earlier),
                        frame_id(frame),
                        label=label(f"recompile: guard failed<BR/>{html(clip(why, 90))}"),
                        style="dashed",
                        color="#6a51a3",
                        fontcolor="#54278f",
                    )


def _frame_node(dot: graphviz.Digraph, frame: Frame) -> None:
    details = [shown_status(frame).replace("_", " ")]
    if frame.kernel_count:
        details.append(plural(frame.kernel_count, "kernel"))
    if frame.metrics.entire_frame_s is not None:
        details.append(f"compiled in {frame.metrics.entire_frame_s:.1f} s")
    lines = [f"<B>{html(frame.compile_id)}</B>", html(" · ".join(details))]
    if frame.failure is not None:
        failure = failure_text(frame.failure)  # every line of the reason, the user's words first
        lines.append(html(one_line(failure, 90)))
        if len(failure) > 90:
            lines.append(html(one_line(failure[89:], 90)))
    dot.node(
        frame_id(frame),
        label=label("<BR/>".join(lines)),
        fillcolor=STATUS_FILL.get(shown_status(frame), "white"),
        tooltip=plain(f"{frame.compile_id} {frame.function or ''}\n{frame.location}"),
    )


def _draw_breaks(dot: graphviz.Digraph, frame: Frame, frames: list[Frame], run: Run) -> None:
    if not frame.graph_breaks:
        return
    target = resume_target(frame, frames)
    head = frame_id(target) if target is not None else ident(f"eager/{_name(frame)}")
    if target is None:
        dot.node(head, label="continues eagerly", shape="plaintext", style="", fontcolor="#777777")
    seen: set[tuple[str, str | None, int | None]] = set()
    for gb in frame.graph_breaks:
        key = (gb.reason, gb.filename, gb.line)
        if key in seen:
            continue
        seen.add(key)
        where = graph_where(gb.filename, gb.line, run)
        said = user_message(gb)  # the user's graph_break(msg=...) words first
        why = html(one_line(f'"{said}"', 80)) + "<BR/>" if said else ""
        markup = f"<B>graph break</B><BR/>{why}{html(one_line(gb.reason, 80))}<BR/>{small(html(where, 100))}"
        dot.edge(
            frame_id(frame), head, label=label(markup), color="#cb181d", fontcolor="#a50f15", penwidth="1.5"
        )
