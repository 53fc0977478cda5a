"""Parse graph-break reasons and recompile reasons into structured fields.

Inputs, all plain text:

- the ``dynamo_graph_break_reason`` artifact payload. torch >= 2.7::

      Graph break in user code at /tmp/exp/gb.py:4
      Graph Break Reason: Encountered graph break when attempting to trace CALL: ...:

      Failed to trace builtin operator                          <- gb_type
        Explanation: Dynamo does not know how to trace builtin operator `print` ...
        Hint: ...
        Developer debug context: ...
       For more details about this graph break, please visit: https://.../gb/gb0059.html

      User code traceback:
        File "/tmp/exp/gb.py", line 4, in f
          print("hi")

      Traceback (most recent call last):                        <- torch-internal, ignored

  torch 2.4-2.6 wrote ``Reason: Unsupported: builtin: print [...] False`` instead; a frame
  Dynamo skips entirely starts ``Graph break: torch.compile cannot properly resume ...`` and
  keeps the gb block only in the trailing ``torch._dynamo.exc.Unsupported: ...`` message.
- ``compilation_metrics.restart_reasons`` items and ``fail_reason`` (the gb block alone, or a
  one-line older reason);
- the ``recompile_reasons`` artifact: a JSON list of strings, or (torch 2.13, one reason)
  the bare string, each like ``0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16``.

Returns report-model types (``GraphBreak``, ``StackFrame``, ``Recompile``). Stdlib only and
tolerant: any text gives a result, nothing raises.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from inspectc.model import CompileId, FailedGuard, GraphBreak, Recompile, StackFrame

__all__ = ["parse_break", "parse_recompile_reasons"]  # a break's page: model/decode/gb_docs.py

_LOCATION = re.compile(
    r"^Graph break(?: \(user stack suppressed due to duplicate graph break\))?"
    r" in user code at (?P<file>.+):(?P<line>\d{1,18})\s*$",
    re.MULTILINE,
)
_REASON_PREFIXES = ("Graph Break Reason: ", "Reason: ")
_PREAMBLES = (
    "Encountered graph break when",
    "Failed to handle graph break gracefully",
    "Encountered graph break that we cannot resume from",  # an unresumable break (2.9+)
)
_SKIPPED = ("results in a skip", "falling back to eager", "fall back to eager")
_EXCEPTION = re.compile(r"^(?:\w+\.)+Unsupported: ", re.MULTILINE)  # torch._dynamo.exc.
_GB_ID = re.compile(r"/gb/(gb\d{1,18})\.html", re.IGNORECASE)
_STACK_HEADERS = (
    "User code traceback:",
    "The graph break occurred in the following user code:",
    "from user code:",
)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d{1,18})(?:, in (?P<func>.+))?$')
_FIELDS = {
    "Explanation:": "explanation",
    "Hint:": "hint",
    "Developer debug context:": "context",
}


def parse_break(text: str) -> GraphBreak:
    """Split a graph-break reason (artifact payload, restart or fail reason) into fields.

    The whole text is kept as ``raw``; the user stack is as printed (the builder drops
    inspectc's own frames from it).
    """
    lines = text.splitlines()
    lines, then = _then(lines)
    block = _gb_block(lines)
    stack = _user_stack(lines)
    location = _LOCATION.search(text)
    filename = location.group("file") if location else None
    line = int(location.group("line")) if location else None
    if location is None and stack:
        filename, line = stack[-1].filename, stack[-1].line
    found_id = _GB_ID.search(text)
    return GraphBreak(
        reason=_one_line(block, lines),
        gb_type=block.gb_type,
        gb_id=found_id.group(1).upper() if found_id else None,
        explanation=block.explanation,
        hints=tuple(block.hints),
        filename=filename,
        line=line,
        user_stack=stack,
        raw=text,
        debug_context=block.context,
        frame_skipped=_frame_skipped(lines) or _skips_frame(then),
        then=_one_line(then, []) if then is not None and then.gb_type else None,
    )


_ANOTHER = "*** While handling this graph break, another graph break occurred: ***"


def _then(lines: list[str]) -> tuple[list[str], _Block | None]:
    """The break's own lines, and the block of the break Dynamo hit while handling it (2.9+:
    a break in a loop makes it skip the whole frame); what follows that block (the stack,
    the user code traceback) stays with the first."""
    marker = next((i for i, line in enumerate(lines) if line.strip() == _ANOTHER), None)
    if marker is None:
        return lines, None
    rest = lines[marker + 1 :]
    start = _next_text_line(rest, 0)
    if start is None:
        return lines[:marker], None
    block = _Block(gb_type=rest[start].strip() or None)
    end = _read_fields(block, rest, start + 1)
    return lines[:marker] + rest[end:], block


def _skips_frame(block: _Block | None) -> bool:
    """Whether the second break made Dynamo skip the frame ("frame skipped: forward (...)")."""
    if block is None:
        return False
    return "frame skipped" in (block.context or "") or "Skipping the frame" in (block.explanation or "")


def parse_recompile_reasons(payload: str) -> Recompile | None:
    """One ``recompile_reasons`` artifact is one recompile: its payload is a JSON list of the
    failed guards (one per earlier cache entry, newest first) or, 2.11+, one bare string."""
    try:
        value = json.loads(payload)
    except (ValueError, TypeError):
        value = payload
    items = value if isinstance(value, list) else [value]
    failed = tuple(_recompile(str(item)) for item in items if str(item).strip())
    if not failed:
        return None
    first = failed[0]
    return Recompile(
        text=first.text, earlier_compile_id=first.earlier_compile_id, guard=first.guard, failed=failed
    )


@dataclass(slots=True)
class _Block:
    gb_type: str | None = None
    explanation: str | None = None
    hints: list[str] = field(default_factory=list)
    context: str | None = None
    plain: str | None = None  # an older one-line reason, when there is no gb block


def _gb_block(lines: list[str]) -> _Block:
    start = _block_start(lines)
    if start is None:
        return _Block()
    first = lines[start]
    for prefix in _REASON_PREFIXES:
        first = first.removeprefix(prefix)
    first = _EXCEPTION.sub("", first).strip()
    if not _has_fields(lines, start + 1):
        plain = first if lines[start] != first else _paragraph(lines, start)
        return _Block(plain=plain or None)
    block = _Block(gb_type=first or None)
    _read_fields(block, lines, start + 1)
    return block


def _block_start(lines: list[str]) -> int | None:
    """Index of the gb_type line (or of the one-line reason)."""
    for index, line in enumerate(lines):
        if line.startswith(_REASON_PREFIXES):
            rest = line.split(": ", 1)[1]
            if rest.startswith(_PREAMBLES):  # the gb block follows after a blank line
                return _next_text_line(lines, index + 1)
            return index
    for index, line in enumerate(lines):  # a skipped frame: read the exception message
        if _EXCEPTION.match(line):
            return index
    if _has_fields(lines, 1) or (lines and not lines[0].startswith(("Graph break", "Traceback"))):
        start = _next_text_line(lines, 0)  # a restart or fail reason: the block alone
        if start is not None and lines[start].startswith(_PREAMBLES):
            # an unresumable break's fail reason: the preamble, a blank line, then the gb block
            return _next_text_line(lines, start + 1)
        return start
    return None


def _has_fields(lines: list[str], index: int) -> bool:
    return index < len(lines) and lines[index].strip().startswith(tuple(_FIELDS))


def _read_fields(block: _Block, lines: list[str], index: int) -> int:
    """Read the block's fields from *index*; the index of the first line after them."""
    current: str | None = None
    for at in range(index, len(lines)):
        line = lines[at]
        stripped = line.strip()
        label = next((key for key in _FIELDS if stripped.startswith(key)), None)
        if label is not None:
            current = _FIELDS[label]
            _append(block, current, stripped[len(label) :].strip(), new=True)
        elif line.startswith("    ") and current is not None and stripped:
            _append(block, current, stripped, new=False)  # a wrapped explanation or hint
        elif stripped and not stripped.startswith("For more details"):
            return at
        elif stripped.startswith("For more details"):
            current = None
    return len(lines)


def _append(block: _Block, name: str, text: str, *, new: bool) -> None:
    if name == "hint":
        if new or not block.hints:
            block.hints.append(text)
        else:
            block.hints[-1] = f"{block.hints[-1]}\n{text}"
        return
    old = getattr(block, name)
    setattr(block, name, text if new or old is None else f"{old}\n{text}")


def _user_stack(lines: list[str]) -> tuple[StackFrame, ...]:
    start = next((i for i, line in enumerate(lines) if line.strip() in _STACK_HEADERS), None)
    if start is None:
        return ()
    frames: list[StackFrame] = []
    pending: tuple[str, int, str | None] | None = None
    for line in lines[start + 1 :]:
        if line.startswith("Traceback (most recent call last)") or _EXCEPTION.match(line):
            break
        frame = _FRAME.match(line)
        if frame is not None:
            if pending is not None:
                frames.append(_stack_frame(pending, None))
            pending = (frame.group("file"), int(frame.group("line")), frame.group("func"))
        elif pending is not None and line.strip() and not _is_caret_line(line):
            frames.append(_stack_frame(pending, line.strip()))
            pending = None
    if pending is not None:
        frames.append(_stack_frame(pending, None))
    return tuple(frames)


def _stack_frame(where: tuple[str, int, str | None], code: str | None) -> StackFrame:
    filename, line, function = where
    return StackFrame(filename=filename, line=line, function=function, code=code)


def _is_caret_line(line: str) -> bool:
    return not line.strip(" ^~")


def _paragraph(lines: list[str], start: int) -> str:
    """A reason without a gb block: its lines up to a blank line or a traceback, joined."""
    taken = []
    for line in lines[start:]:
        if not line.strip() or line.strip() in _STACK_HEADERS or line.startswith("Traceback"):
            break
        taken.append(line.strip())
    return " ".join(taken)


def _frame_skipped(lines: list[str]) -> bool:
    """Whether the preamble (not a hint) says Dynamo skipped the frame and ran it eagerly."""
    preamble = (
        line
        for line in lines
        if line.startswith(("Graph Break Reason:", "Graph break:", "torch.compile will skip", _PREAMBLES[1]))
    )
    return any(marker in line for line in preamble for marker in _SKIPPED)


def _one_line(block: _Block, lines: list[str]) -> str:
    if block.gb_type and block.explanation:
        return f"{block.gb_type}: {' '.join(block.explanation.split())}"
    text = block.gb_type or block.plain
    if text is None:
        text = next((line.strip() for line in lines if line.strip()), "")
    return " ".join(text.split())


def _next_text_line(lines: list[str], index: int) -> int | None:
    return next((i for i in range(index, len(lines)) if lines[i].strip()), None)


_COMPILE_ID_PREFIX = re.compile(r"^(?P<id>!?\d{1,18}(?:/\d{1,18})*(?:_\d{1,18})?|None): ")


def _recompile(text: str) -> FailedGuard:
    found = _COMPILE_ID_PREFIX.match(text)
    earlier = CompileId.parse(found.group("id")) if found and found.group("id") != "None" else None
    body = text[found.end() :] if found else text
    first = body.split("\n", 1)[0]
    guard = _backend_change(first) or first.split("  # ", 1)[0].strip() or None
    return FailedGuard(text=text, earlier_compile_id=earlier, guard=guard)


# BACKEND_MATCH (2.11+): "... Cached backend: <repr> (id=0x...). New backend: <repr> (id=0x...). If..."
_BACKENDS = re.compile(r"Cached backend: (?P<old>.+?) \(id=0x\w+\)\. New backend: (?P<new>.+?) \(id=0x\w+\)")
_COMPILER = re.compile(r"compiler='(?P<name>[^']*)'")


def _backend_change(line: str) -> str | None:
    """A BACKEND_MATCH failure as the user says it: which backend before and after (torch's
    text puts the names after two long reprs and ids, past where a line is cut)."""
    found = _BACKENDS.search(line) if line.startswith("BACKEND_MATCH") else None
    if found is None:
        return None

    def name(text: str) -> str:
        compiler = _COMPILER.search(text)
        return compiler.group("name") if compiler else text

    before, after = name(found.group("old")), name(found.group("new"))
    return f"BACKEND_MATCH failure: backend changed from {before} to {after}"
