"""Pointing at the fix for a graph break: its documentation page, the user's own stack
with the caret under the expression, and what Dynamo's ``___stackN`` names stand for
(resume functions themselves: :mod:`inspectc.analysis.resume`). Readers only: no torch.

Everything here works from what a report holds (a break's parsed fields and torch's raw
text, a frame's events) and says "not recorded" rather than guessing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inspectc.analysis.resume import resumed_function
from inspectc.model import Frame, GraphBreak, StackFrame
from inspectc.model.decode import gb_docs
from inspectc.model.decode.own import is_runner_frame

# torch/_dynamo/exc.py get_gbid_documentation_link: one page per id of the graph-break
# registry (torch/_dynamo/graph_break_registry.json), "GB0059" -> .../gb/gb0059.html.

_STACK_NAME = re.compile(r"\b___stack(\d{1,18})\b")


def doc_url(gb: GraphBreak) -> str | None:
    """The break's page in torch's graph-break registry, as torch printed it or from its id."""
    return gb_docs.doc_url(gb.raw, gb.gb_id)


_USER_MESSAGE = re.compile(r"User-inserted graph break\. Message: (?P<msg>.*)", re.DOTALL)


def user_message(gb: GraphBreak) -> str | None:
    """The user's own words of ``torch._dynamo.graph_break(msg=...)``, whole (every line)."""
    for text in (gb.explanation, gb.reason):
        found = _USER_MESSAGE.search(text or "")
        if found:
            words = " ".join(found.group("msg").split())
            return words if words and words != "None" else None
    return None


def flat(text: str | None) -> str:
    """*text* on one line without losing a line: its lines joined by `` ⏎ ``."""
    return " ⏎ ".join(line.strip() for line in (text or "").strip().splitlines() if line.strip())


def title_and_explanation(gb: GraphBreak) -> tuple[str, str | None]:
    """What to show as the break's name and, once, what it means.

    torch writes the one-line reason as ``"<gb_type>: <explanation>"``: shown whole it
    says the same thing twice next to the type and the explanation. A user's
    ``graph_break(msg=...)`` words come first, before Dynamo's name for the break.
    """
    title, explanation = _title_and_explanation(gb)
    said = user_message(gb)
    return (f'"{said}" ({title})', explanation) if said else (title, explanation)


def _title_and_explanation(gb: GraphBreak) -> tuple[str, str | None]:
    title = (gb.gb_type or gb.reason.strip().split("\n")[0]).strip()
    explanation = (gb.explanation or "").strip()
    if not explanation:
        rest = gb.reason.strip()
        rest = rest[len(title) :].lstrip(": ").strip() if rest.startswith(title) else rest
        explanation = "" if rest == title else rest
    return title, explanation or None


def reason_if_new(gb: GraphBreak) -> str | None:
    """The one-line reason when it says more than the type and the explanation do."""
    title, explanation = _title_and_explanation(gb)
    said = {" ".join(s.split()) for s in (title, explanation or "", f"{title}: {explanation or ''}")}
    reason = gb.reason.strip()
    return None if " ".join(reason.split()) in said or not reason else reason


def distinct_breaks(breaks: Iterable[GraphBreak]) -> list[tuple[GraphBreak, int]]:
    """Breaks of one frame without repeats (a restarted analysis records a break again)."""
    seen: dict[tuple[str | None, int | None, str], int] = {}
    kept: list[GraphBreak] = []
    for gb in breaks:
        key = (gb.filename, gb.line, gb.reason)
        if key in seen:
            seen[key] += 1
        else:
            seen[key] = 1
            kept.append(gb)
    return [(gb, seen[(gb.filename, gb.line, gb.reason)]) for gb in kept]


# -- the user's stack --------------------------------------------------------------------
_TORCH_PARTS = re.compile(
    r"[/\\](?:site|dist)-packages[/\\]torch[/\\]|[/\\]torch[/\\](?:_dynamo|nn[/\\]modules)[/\\]"
)


def is_torch_frame(frame: StackFrame) -> bool:
    return bool(_TORCH_PARTS.search(frame.filename or ""))


def user_frames(stack: Sequence[StackFrame]) -> tuple[StackFrame, ...]:
    """*stack* from the user's code on: the runner's frames and what calls them are cut,
    and torch's own frames (``Module.__call__``, ``eval_frame``) between user frames left out."""
    start = 0
    for index, frame in enumerate(stack):
        if is_runner_frame(frame):
            start = index + 1
    return tuple(f for f in stack[start:] if not is_torch_frame(f))


_LIBRARY = re.compile(r"[/\\](?:site|dist)-packages[/\\]|[/\\]lib[/\\]python3\.\d+[/\\]")


def in_library(filename: str | None) -> bool:
    """A file of an installed package or of Python's own library (not the user's code)."""
    return bool(filename) and bool(_LIBRARY.search(filename or ""))


def user_site(gb: GraphBreak) -> StackFrame | None:
    """Where the user would change something, when the break happened inside a library
    (torch's polyfills, the optimizer, ctypes): the innermost frame of the user's own code
    on its stack. None when the break is in the user's code already, or none is recorded."""
    if not in_library(gb.filename):
        return None
    for frame in reversed(user_frames(gb.user_stack)):
        if frame.filename and not in_library(frame.filename):
            return frame
    return None


@dataclass(frozen=True, slots=True)
class Position:
    """A stack entry with the columns of the expression, when torch's text had them."""

    frame: StackFrame
    start: int | None = None  # 0-based columns in frame.code (stripped), end exclusive
    end: int | None = None

    @property
    def expression(self) -> str | None:
        code = (self.frame.code or "").strip()
        if self.start is None or self.end is None or not code:
            return None
        return code[self.start : self.end]

    def caret(self) -> str | None:
        """``^^^`` under the expression, aligned with the stripped code; None: not recorded."""
        if self.start is None or self.end is None:
            return None
        return " " * self.start + "^" * max(self.end - self.start, 1)


_FILE_LINE = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d{1,18}), in (?P<function>.*)$')


def positions(gb: GraphBreak, python_version: str | None = None) -> list[Position]:
    """The break's user stack with expression columns from torch's traceback text.

    Python 3.11+ prints a caret line under the failing expression and none when the
    expression is the whole line; before 3.11 (or without torch's text) there are no
    columns: ``start`` stays None ("not recorded").
    """
    carets = _traceback_carets(gb.raw or "")
    whole_line = _at_least_311(python_version) and bool(carets)
    out = []
    for frame in user_frames(gb.user_stack):
        code = (frame.code or "").strip()
        key = (frame.filename, frame.line, frame.function)
        if key in carets and code:
            span = carets[key]
            if span is None and whole_line:
                span = (0, len(code))
            if span is not None:
                out.append(Position(frame, *span))
                continue
        out.append(Position(frame))
    return out


def _traceback_carets(raw: str) -> dict[tuple[str | None, int | None, str | None], tuple[int, int] | None]:
    """``(file, line, function) -> (start, end)`` from the "User code traceback:" section;
    None for an entry printed without a caret line."""
    found: dict[tuple[str | None, int | None, str | None], tuple[int, int] | None] = {}
    lines = raw.split("\n")
    try:
        index = next(i for i, line in enumerate(lines) if line.strip() == "User code traceback:") + 1
    except StopIteration:
        return found
    while index < len(lines):
        match = _FILE_LINE.match(lines[index])
        if not match:
            if lines[index].strip():
                break  # the section ended ("Traceback (most recent call last):" follows)
            index += 1
            continue
        key = (match.group("file"), int(match.group("line")), match.group("function").strip())
        code = lines[index + 1] if index + 1 < len(lines) else ""
        caret = lines[index + 2] if index + 2 < len(lines) else ""
        span = None
        if code.strip() and not _FILE_LINE.match(code):
            index += 1
            if caret.strip() and not caret.strip(" ^~"):
                indent = len(code) - len(code.lstrip())
                marked = caret.rstrip()
                first = len(marked) - len(marked.lstrip())
                span = (max(first - indent, 0), len(marked) - indent)
                index += 1
        found[key] = span
        index += 1
    return found


def _at_least_311(version: str | None) -> bool:
    match = re.match(r"(\d{1,18})\.(\d{1,18})", version or "")
    return match is not None and (int(match.group(1)), int(match.group(2))) >= (3, 11)


# -- ___stackN -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StackValue:
    """What a ``___stackN`` argument of a resume function holds, as far as the report says."""

    name: str  # ___stack0
    filename: str | None
    line: int | None
    code: str | None  # the user's line of the break
    expression: str | None  # the break's expression, when ___stack0 is its value
    assigned_to: str | None  # the name the line assigns that value to


_ASSIGN = re.compile(
    r"^\s*([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)\s*"
)


def stack_values(
    text: str, frame: Frame, frames: Sequence[Frame], python_version: str | None = None
) -> list[StackValue]:
    """The ``___stackN`` names in *text* (a guard, a recompile reason) of resume *frame*."""
    names = sorted({int(n) for n in _STACK_NAME.findall(text)})
    resumed = resumed_function(frame.function)
    if not names or resumed is None:
        return []
    gb = _break_at(frame, frames, resumed)
    out = []
    for number in names:
        name = f"___stack{number}"
        if gb is None:
            out.append(StackValue(name, frame.filename, resumed[1], None, None, None))
            continue
        last = next((p for p in reversed(positions(gb, python_version)) if p.frame.line == gb.line), None)
        code = last.frame.code if last else None
        expression = assigned = None
        if number == 0 and last is not None and last.expression and code:
            stripped = code.strip()
            target = _ASSIGN.match(stripped)
            if target and last.start == target.end() and last.end == len(stripped.split("  #")[0].rstrip()):
                expression, assigned = last.expression, target.group(1)
            elif last.start == 0 and last.end == len(stripped):
                expression = last.expression
        out.append(StackValue(name, gb.filename, gb.line, code, expression, assigned))
    return out


def _break_at(frame: Frame, frames: Sequence[Frame], resumed: tuple[str, int]) -> GraphBreak | None:
    """The graph break that made resume *frame*: at its line, in the function it resumes."""
    function, line = resumed
    for other in frames:
        if other.rank != frame.rank:
            continue
        owner = resumed_function(other.function)
        if other.function != function and (owner is None or owner[0] != function):
            continue
        for gb in other.graph_breaks:
            if gb.line == line and (gb.filename == frame.filename or frame.filename is None):
                return gb
    return None


_RECOMPILE_SITE = re.compile(
    r"#\s*(?P<code>.*?)\s+#\s*(?P<file>[^\s#]+):(?P<line>\d{1,18}) in (?P<fn>\S+)\s*$"
)


def recompile_site(text: str, frame_file: str | None = None) -> StackFrame | None:
    """The user line a recompile reason names (torch writes ``guard  # code  # file:line in f``).
    torch keeps only a path's last characters there (``mp/heldout/x.py``): the frame's own file
    (*frame_file*) when it ends with them."""
    first = text.split("\n", 1)[0]
    match = _RECOMPILE_SITE.search(first)
    if match is None:
        return None
    filename = match.group("file")
    if frame_file and frame_file.endswith(filename):
        filename = frame_file
    return StackFrame(
        filename=filename,
        line=int(match.group("line")),
        function=match.group("fn"),
        code=match.group("code"),
    )
