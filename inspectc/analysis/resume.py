"""Dynamo's resume functions (``torch_dynamo_resume_in_forward_at_17``): where each
continues (the two sides of one break's branch), the bytecode Dynamo logged for them, and
why a frame has no graph. torch's shapes (the name, ``dis`` listings, the graph's ``# File:``
comments, the bytecode records' names) are read by :mod:`inspectc.model.decode.resume`.
Readers only: no torch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspectc.model import Frame, StackFrame
from inspectc.model.decode.resume import (
    RESUME_PREFIX,
    bytecode_kind,
    resume_target_line,
    resumed_function,
    short_function,
    traced_code,
)
from inspectc.model.library import in_library
from inspectc.store.reader import Report

__all__ = [
    "BYTECODE_NOTE",
    "RESUME_PREFIX",
    "Branch",
    "Bytecode",
    "ambiguous_resumes",
    "branch_of",
    "bytecode",
    "created_by",
    "in_library",
    "resume_target_line",
    "resumed_function",
    "short_function",
    "shown_function",
]


def shown_function(frame: Frame) -> str:
    """A frame's name as the user knows it: ``GPT2LMHeadModel.forward (wrapper)`` when Dynamo
    compiled a wrapper (kept as a detail), ``MLP.forward`` for a method, else the function."""
    short = short_function(frame.function)
    name = frame.callable_name
    if not name or name == frame.function:
        return short
    if frame.function and name.endswith(f".{frame.function}"):
        return name
    return f"{name} ({short})"


def shown_call_site(frame: Frame) -> StackFrame | None:
    """The user's line to show for a frame instead of its code: a library wrapper's frame named
    after the user's callable, and generated code (an FX GraphModule's ``forward`` at
    ``<eval_with_key>.9``: an exported or traced module, compiled autograd's graph)."""
    site = frame.call_site
    if site is None or not site.filename:
        return None
    generated = (frame.filename or "").startswith("<eval_with_key>")
    return site if generated or (frame.callable_name and in_library(frame.filename)) else None


@dataclass(frozen=True, slots=True)
class Branch:
    """Where a resume function continues: the line, and its code when a graph shows it."""

    line: int
    code: str | None = None


def ambiguous_resumes(frames: Sequence[Frame]) -> list[Frame]:
    """Resume frames whose name another code object shares: the targets of one break's
    branches (the ``if`` side and the ``else`` side), told apart only by where they go."""
    codes: dict[tuple[int | None, str], set[int | None]] = {}
    for frame in frames:
        if frame.function and frame.function.startswith(RESUME_PREFIX):
            codes.setdefault((frame.rank, frame.function), set()).add(frame.compile_id.frame)
    return [
        f
        for f in frames
        if f.function
        and len(codes.get((f.rank, f.function), ())) > 1
        and f.function.startswith(RESUME_PREFIX)
    ]


def branch_of(frame: Frame, bytecode: str | None, dynamo_graph: str | None) -> Branch | None:
    """*frame*'s continuation line from its original bytecode, with the line's code from its
    Dynamo graph's ``# File:`` comments when the graph traced that line."""
    line = resume_target_line(bytecode) if bytecode else None
    if line is None:
        return None
    return Branch(line, traced_code(dynamo_graph, line, frame.function))


BYTECODE_NOTE = (
    "not recorded: the trace holds no *_ORIGINAL_BYTECODE / *_MODIFIED_BYTECODE record for it"
    " (torch logs them for resume functions from 2.12 on; TORCH_LOGS=bytecode shows them live)"
)


@dataclass(frozen=True, slots=True)
class Bytecode:
    """A resume function's bytecode as Dynamo logged it (``dis`` text; None: not recorded)."""

    original: str | None  # the continuation Dynamo generated for the rest of the function
    modified: str | None  # what runs instead: the compiled graph's call, then the user's code


def code_first_line(frames: Sequence[Frame], frame: Frame) -> int | None:
    """The first line of the user's code object *frame* runs (its own, or the one it resumes).

    Two functions of one name in one file (an outer and an inner module's ``forward``) are told
    apart by code identity: a resume function ``..._in_F_at_L`` belongs to the compiled ``F`` of
    that file whose first line is the nearest at or above L (Dynamo keeps the file and names the
    line; the resume's own first line is L)."""
    parts = resumed_function(frame.function)
    if parts is None:
        return frame.line
    function, line = parts
    firsts = [
        f.line
        for f in frames
        if f.rank == frame.rank
        and f.function == function
        and f.filename == frame.filename
        and f.line is not None
        and f.line <= line
    ]
    return max(firsts) if firsts else None


def created_by(frames: Sequence[Frame], filename: str | None, line: int | None) -> list[Frame]:
    """The resume frames a graph break at *filename*:*line* made (``..._at_LINE``), each once."""
    if line is None:
        return []
    out: dict[tuple[int | None, int | None], Frame] = {}
    for frame in frames:
        parts = resumed_function(frame.function)
        if parts is not None and parts[1] == line and (filename is None or frame.filename == filename):
            out.setdefault((frame.rank, frame.compile_id.frame), frame)
    return list(out.values())


def bytecode(report: Report, frame: Frame) -> Bytecode:
    """*frame*'s ``<name>_ORIGINAL_BYTECODE`` and ``<name>_MODIFIED_BYTECODE`` artifacts."""
    found: dict[str, str | None] = {}
    for row in report.events(frame.compile_id, limit=10_000):
        which = bytecode_kind(row.name)
        if which is not None and which not in found:
            found[which] = report.event_payload(row.seq)
    return Bytecode(found.get("original"), found.get("modified"))
