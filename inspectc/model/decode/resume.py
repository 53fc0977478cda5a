"""torch's shapes of Dynamo's resume functions: their names
(``torch_dynamo_resume_in_forward_at_17``), the ``dis`` listings of the
``<name>_ORIGINAL_BYTECODE`` / ``<name>_MODIFIED_BYTECODE`` records, and the ``# File:``
comments of a Dynamo graph, as a report keeps them (frame names, raw bytecode records, the
Dynamo graph's text). Readers ask these functions (through :mod:`inspectc.analysis.resume`)
instead of matching torch's text themselves. No torch.
"""

from __future__ import annotations

import re
from typing import Literal

from inspectc.model.limits import small_int

RESUME_PREFIX = "torch_dynamo_resume_in_"
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>.+)_at_(?P<line>\d{1,18})$")


def resumed_function(name: str | None) -> tuple[str, int] | None:
    """``torch_dynamo_resume_in_forward_at_17`` -> ``("forward", 17)``."""
    match = _RESUME.match(name or "")
    return (match.group("function"), int(match.group("line"))) if match else None


def short_function(name: str | None) -> str:
    """A frame's function for tables: Dynamo's continuation functions as ``↳ forward_at_17``."""
    if not name:
        return "?"
    return "↳ " + name[len(RESUME_PREFIX) :] if name.startswith(RESUME_PREFIX) else name


_DIS_JUMP = re.compile(r"\bJUMP_(?:FORWARD|ABSOLUTE|BACKWARD)\b.*\(to (?:L)?(\d{1,18})\)")
_DIS_LABEL = re.compile(r"^\s*(?:(\d{1,18})\s+)?L(\d{1,18}):")


def resume_target_line(bytecode: str) -> int | None:
    """The user line a resume function continues at, from its ``ORIGINAL_BYTECODE`` listing.

    A resume function starts with a prologue and a jump to where the original function
    stopped; two branch targets of one break are two resume functions of one name whose
    jumps land on different lines (the ``if`` side and the ``else`` side).
    """
    target: int | None = None
    label = False
    line: int | None = None
    for text in bytecode.split("\n"):
        number, offset, labelled = _dis_fields(text)
        if number is not None:
            line = number
        if target is None:
            jump = _DIS_JUMP.search(text)
            if jump:
                target = int(jump.group(1))
                label = "(to L" in text
            continue
        if (labelled if label else offset) == target:
            return line
    return None


def _dis_fields(text: str) -> tuple[int | None, int | None, int | None]:
    """(line number, offset, label) of one ``dis`` line; a field not printed is None."""
    label_match = _DIS_LABEL.match(text)
    if label_match:
        number = label_match.group(1)
        return (int(number) if number else None), None, int(label_match.group(2))
    tokens = text.replace(">>", "  ").split()
    numbers = []
    for token in tokens:
        number = small_int(token)
        if number is None:
            break
        numbers.append((text.index(token), number))
    if len(numbers) >= 2:
        return numbers[0][1], numbers[1][1], None
    if len(numbers) == 1:
        column, value = numbers[0]
        # dis prints the line number at the left edge, offsets right-aligned further in.
        return (value, None, None) if column < 6 else (None, value, None)
    return None, None, None


_GRAPH_FILE = re.compile(
    r"#\s*File: (?P<file>.+?):(?P<line>\d{1,18}) in (?P<fn>\S+), code: (?P<code>.*)$", re.MULTILINE
)


def traced_code(dynamo_graph: str | None, line: int, function: str | None) -> str | None:
    """The code of *line* in *function* as the Dynamo graph's ``# File:`` comments show it."""
    for match in _GRAPH_FILE.finditer(dynamo_graph or ""):
        if int(match.group("line")) == line and match.group("fn") == function:
            return match.group("code").strip()
    return None


def bytecode_kind(event_name: str) -> Literal["original", "modified"] | None:
    """Which bytecode listing a record holds (``<name>_ORIGINAL_BYTECODE``), if any."""
    if event_name.endswith("_ORIGINAL_BYTECODE"):
        return "original"
    if event_name.endswith("_MODIFIED_BYTECODE"):
        return "modified"
    return None
