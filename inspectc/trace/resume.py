"""Place graph breaks read only from ``restart_reasons`` (torch of early 2024) by the names of
the resume functions Dynamo made for them.

A graph break at line L of ``fn`` makes Dynamo compile ``torch_dynamo_resume_in_<fn>_at_<L>``
(a later frame of the same file); torch of April 2024 logged no break artifact, and its
``dynamo_start`` stacks end in torch's own ``eval_frame.py`` or on the caller's line, so the
resume names are the only true locations of those breaks.
"""

from __future__ import annotations

import re
from dataclasses import replace

from inspectc.model import CompileId
from inspectc.trace.frames import FrameState

PREFIX = "torch_dynamo_resume_in_"
_RESUME = re.compile(r"^torch_dynamo_resume_in_(\w+?)_at_(\d{1,18})$")


def base_and_line(function: str | None) -> tuple[str | None, int | None]:
    """``torch_dynamo_resume_in_f_at_12`` -> ("f", 12) (nested names unwrapped); f -> (f, None)."""
    line = None
    while function and (m := _RESUME.match(function)):
        function = m.group(1)
        line = int(m.group(2)) if line is None else line
    return function, line


def place_restart_breaks(entries: list[FrameState]) -> None:
    """Give each frame's restart-reason breaks the lines of the resume functions they made:
    the frame's k-th such break gets the k-th resume line after the frame's own start."""
    resumes: dict[tuple[str | None, str | None, int | None], list[tuple[int, str | None]]] = {}
    for st in entries:
        base, line = base_and_line(st.function)
        if line is not None:
            resumes.setdefault((st.filename, base, st.rank), []).append((line, st.filename))
    if not resumes:
        return
    claimed: set[tuple[str | None, str | None, int | None, int]] = set()
    for st in entries:
        if not st.restart_breaks:
            continue
        base, start = base_and_line(st.function)
        key = (st.filename, base, st.rank)
        lines = sorted({line for line, _ in resumes.get(key, []) if start is None or line > start})
        free = [line for line in lines if (*key, line) not in claimed]
        for index, gb_index in enumerate(st.restart_breaks):
            if index >= len(free):
                break
            claimed.add((*key, free[index]))
            gb = st.graph_breaks[gb_index]
            st.graph_breaks[gb_index] = replace(gb, filename=st.filename or gb.filename, line=free[index])


def name_orphans(entries: list[FrameState]) -> None:
    """A compile id logged without its ``dynamo_start`` (the recompile limit hit: ``0/4`` has
    only its recompile reasons) is the same code object as the other compiles of its frame
    id: it takes their function, file and line rather than staying unnamed."""
    named: dict[tuple[int | None, FramePart], FrameState] = {}
    for st in entries:
        if st.function:
            named.setdefault((st.rank, _frame_part(st.compile_id)), st)
    for st in entries:
        if not st.function and (known := named.get((st.rank, _frame_part(st.compile_id)))):
            st.function = known.function
            st.filename = st.filename or known.filename
            st.line = st.line if st.line is not None else known.line


FramePart = tuple[int | None, int | None] | str


def _frame_part(compile_id: str) -> FramePart:
    """Which frame (of which compiled-autograd graph) a compile id is of: "0/4" and "0/4#2" ->
    (None, 0), "!1/0/2_1" -> (1, 0); text that is no compile id stands for itself."""
    cid = CompileId.parse(compile_id)
    return (cid.autograd, cid.frame) if str(cid) == compile_id else compile_id
