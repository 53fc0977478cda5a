"""Report text made safe to show: the terminal sanitizer's old name and the one path shortener.

A report comes from a stranger, so every string in it is data. Before it reaches a terminal
it goes through the one sanitizer, :func:`inspectc.model.terminal.safe` (named
:func:`printable` here too, for the modules that import it from this one): C0 and C1
controls (so every escape sequence: CSI, OSC 52, OSC 8, DCS/APC/PM), bidi overrides and
other invisible format characters are shown visibly (``\\x1b``, ``<U+202E>``). Everything
else, any script, emoji and their joiners, is kept. :func:`one_line` takes a first line,
:func:`short_path` shortens paths, :func:`no_mentions` keeps ``@name`` in Markdown from
notifying anyone, and :func:`json_text` escapes the same characters inside JSON, where the
value must stay exact. Stdlib only.
"""

from __future__ import annotations

import math
import re
from typing import Any

from inspectc.model import Run
from inspectc.model.cells import cell_label
from inspectc.model.terminal import JSON_UNSAFE
from inspectc.model.terminal import safe as printable  # noqa: F401 - the name readers import

_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9])")
ZERO_WIDTH_JOINER = "\u200d"
ELLIPSIS = "…"

# What a path is shown relative to: the run (its cwd, and a notebook's cells named as the
# notebook names them: ``cell [3]``), or a folder, or nothing.
Base = Run | str | None


def one_line(text: str | None, width: int = 100) -> str:
    """First line of *text*, shortened to *width* characters (the last one ``…``)."""
    if not text or not text.strip():
        return ""
    first = text.strip().splitlines()[0]
    return first if len(first) <= width else first[: max(width - 1, 0)] + ELLIPSIS


def cut_middle(text: str, width: int) -> str:
    """*text* in at most *width* characters, cut in the middle (``cpp_fused_add_…_relu_3``):
    a name's start and end say most (its kind, its number)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    left = width // 2
    return text[:left] + ELLIPSIS + text[len(text) - (width - 1 - left) :]


def cwd_of(base: Base) -> str | None:
    """The folder paths are shown relative to, from a :data:`Base`."""
    return base.cwd if isinstance(base, Run) else base


def short_path(path: str | None, base: Base = None, width: int | None = None) -> str:
    """*path* relative to *base* (the run's cwd) when under it, else as recorded; given the
    run, a notebook cell's file as the notebook names the cell (``cell [3]``).

    A plain prefix test, never the viewer's cwd, so a path reads the same on every machine.
    With *width*, a longer path loses parts from its middle, cut at separators and never
    inside a name (``/data/…/pkg/model.py``); the file name is always kept whole.
    """
    if not path:
        return "?"
    if isinstance(base, Run):
        cell = base.cell(path)
        if cell is not None:
            return cell_label(cell)
        base = base.cwd
    if base:
        prefix = base.rstrip("/\\") + ("\\" if "\\" in base and "/" not in base else "/")
        if path.startswith(prefix) and len(path) > len(prefix):
            path = path[len(prefix) :]
    if width is None or len(path) <= width:
        return path
    return _cut_middle(path, width)


def _cut_middle(path: str, width: int) -> str:
    sep = "\\" if "\\" in path and "/" not in path else "/"
    parts = path.split(sep)
    if len(parts) <= 2:
        return path  # nothing in the middle to drop: a name is never cut
    head, tail = [parts[0]], [parts[-1]]
    left, right = 1, len(parts) - 2

    def size() -> int:
        return len(sep.join([*head, ELLIPSIS, *tail]))

    while left <= right:  # take parts from the end first (the file's folder says most)
        tail.insert(0, parts[right])
        if size() > width:
            tail.pop(0)
            break
        right -= 1
        if left > right:
            break
        head.append(parts[left])
        if size() > width:
            head.pop()
            break
        left += 1
    if left > right:
        return path
    return sep.join([*head, ELLIPSIS, *tail])


def location(filename: str | None, line: int | None, base: Base, width: int | None = None) -> str:
    """``path:LINE`` with the path shortened by :func:`short_path`; given the run, a line of a
    notebook cell as IPython's tracebacks say it (``cell [3], line 7``).

    Every reader shows a location through this function (the file name stays beside it: the
    HTML page's tooltip, the JSON's ``filename``)."""
    where = short_path(filename, base, width)
    if line is None or not filename:
        return where
    in_cell = isinstance(base, Run) and base.cell(filename) is not None
    return f"{where}, line {line}" if in_cell else f"{where}:{line}"


def no_mentions(text: str) -> str:
    """``@name`` with a zero-width joiner after the ``@``: GitHub notifies nobody, it reads the same."""
    return _MENTION.sub("@" + ZERO_WIDTH_JOINER, text)


def finite(value: Any) -> Any:
    """*value* (plain JSON data) with NaN and infinities as None: strict JSON, which a stranger's
    report (``"started": NaN`` in its run entry) would otherwise break for every JSON reader."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON spells an astral character as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_text(text: str) -> str:
    """JSON text with C1 and bidi controls, line separators, lone surrogates as ``\\uXXXX``.

    Those characters can only occur inside JSON strings, so the document means exactly the
    same (``json.loads`` gives the same values) but no longer moves a terminal or reorders
    what a reader of the file sees.
    """
    return JSON_UNSAFE.sub(_json_escape, text)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 graph break``, ``2 graph breaks``: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
