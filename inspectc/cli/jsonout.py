"""A large JSON document written in pieces: the export never holds its whole text in memory.

``json.dumps`` of a report's export builds the whole text, then ``json_text`` and ``encode``
copy it twice more: three copies of a text that holds every graph and kernel source. Here a
long list (a frame's 100,000 kernels), and a dict or list that holds one, is written an item
at a time; everything else is one ``json.dumps``. The text is the same JSON (``json.loads``
reads the same values); NaN and infinities are ``null`` (strict JSON), and every piece goes
through :func:`inspectc.analysis.text.json_text` (what a terminal acts on, escaped).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from inspectc.analysis.text import finite, json_text

LONG = 256  # items of a list written one at a time
_DEPTH = 4  # how deep a long list is looked for below a container


def pieces(value: Any, indent: int | None = None) -> Iterator[str]:
    """The JSON text of *value*, in pieces, then a newline."""
    batch: list[str] = []
    size = 0
    for piece in _pieces(value, indent, 0):
        batch.append(piece)
        size += len(piece)
        if size >= 1 << 20:
            yield json_text("".join(batch))
            batch, size = [], 0
    yield json_text("".join(batch)) + "\n"


def _pieces(value: Any, indent: int | None, level: int) -> Iterator[str]:
    if not _long(value, _DEPTH):
        yield _dumps(value, indent, level)
        return
    inner = "\n" + " " * (indent * (level + 1)) if indent is not None else ""
    outer = "\n" + " " * (indent * level) if indent is not None else ""
    comma = "," if indent is not None else ", "  # json.dumps' separators
    items = value.items() if isinstance(value, dict) else enumerate(value)
    yield "{" if isinstance(value, dict) else "["
    for n, (key, item) in enumerate(items):
        name = key if isinstance(key, str) else json.dumps(key)  # as json.dumps turns 1 into "1"
        head = json.dumps(name, ensure_ascii=False) + ": " if isinstance(value, dict) else ""
        yield (comma if n else "") + inner + head
        yield from _pieces(item, indent, level + 1)
    yield outer + ("}" if isinstance(value, dict) else "]")


def _long(value: Any, depth: int) -> bool:
    """True when *value* is, or holds (within *depth* levels), a list of more than LONG items."""
    if isinstance(value, (list, tuple)):
        return len(value) > LONG or (depth > 0 and any(_long(v, depth - 1) for v in value))
    if isinstance(value, dict):
        return depth > 0 and any(_long(v, depth - 1) for v in value.values())
    return False


def _dumps(value: Any, indent: int | None, level: int) -> str:
    try:
        text = json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a NaN in a stranger's report: null, as strict JSON has it
        text = json.dumps(finite(value), indent=indent, ensure_ascii=False, allow_nan=False)
    if indent is not None and level:
        text = text.replace("\n", "\n" + " " * (indent * level))  # JSON strings hold no raw newline
    return text
