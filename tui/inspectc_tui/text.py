"""Report strings as safe Rich ``Text``, and the small formatters every pane shares.

Report text is data: a reason, file name or kernel name may hold ``[bold]``, ANSI escapes
or other control characters. Everything shown from a report goes through :func:`literal`,
which never parses markup and turns control characters into visible escapes (``\\x1b``).
"""

from __future__ import annotations

import re

from rich.text import Text

from inspectc.report.model import (
    STATUS_COMPILING,
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_OK,
)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")

STATUS_STYLE = {
    STATUS_FAILED: "bold red",
    STATUS_GRAPH_BREAK: "bold yellow",
    STATUS_EMPTY: "dim",
    STATUS_OK: "green",
    STATUS_COMPILING: "magenta",
}
STATUS_LABEL = {
    STATUS_FAILED: "failed",
    STATUS_GRAPH_BREAK: "graph break",
    STATUS_EMPTY: "empty",
    STATUS_OK: "ok",
    STATUS_COMPILING: "compiling",
}


def escape_controls(text: str) -> str:
    """*text* with tabs expanded and other control characters as ``\\xNN`` escapes."""
    text = text.expandtabs(4) if "\t" in text else text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def literal(text: str | None, style: str = "", *, one_line: bool = False, empty: str = "") -> Text:
    """A report string as ``Text``, shown exactly as written (no markup, no escapes)."""
    if not text:
        return Text(empty, style="dim") if empty else Text("")
    text = text.replace("\r\n", "\n")
    if one_line:
        lines = text.strip().split("\n")
        text = lines[0] + (" …" if len(lines) > 1 else "")
    return Text("\n".join(escape_controls(part) for part in text.split("\n")), style=style)


def status_text(status: str) -> Text:
    return Text(STATUS_LABEL.get(status, status), style=STATUS_STYLE.get(status, ""))


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"


def micros(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f} s"
    if value >= 1000:
        return f"{value / 1000:.2f} ms"
    return f"{value:.1f} µs"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def short_path(path: str | None, base: str | None) -> str:
    """*path* relative to the run's cwd when inside it (never the viewer's cwd: stable).

    A plain prefix test: ``os.path.relpath`` calls ``getcwd`` each time, which shows on
    a thousand rows.
    """
    if not path:
        return "?"
    if base:
        prefix = base.rstrip("/") + "/"
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix) :]
    return path


def location(filename: str | None, line: int | None, base: str | None) -> str:
    where = short_path(filename, base)
    return f"{where}:{line}" if line is not None and filename else where


def frame_label(compile_id: str, rank: int | None) -> str:
    return f"r{rank} {compile_id}" if rank is not None else compile_id


RESUME_PREFIX = "torch_dynamo_resume_in_"


def function_name(name: str | None) -> str:
    """A frame's function for tables: Dynamo's continuation functions shortened to ``↳ f_at_18``."""
    if not name:
        return "?"
    return "↳ " + name[len(RESUME_PREFIX) :] if name.startswith(RESUME_PREFIX) else name
