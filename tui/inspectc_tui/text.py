"""Report strings as safe Rich ``Text``, and the small formatters every pane shares.

Report text is data: a reason, file name or kernel name may hold ``[bold]``, ANSI escapes
or other control characters. Everything shown from a report goes through :func:`literal`,
which never parses markup and passes the text through the one terminal sanitizer
(:func:`inspectc.analysis.text.printable`: an escape sequence or control character becomes
``?``). Paths are shortened by the one path shortener, relative to the run's directory.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from inspectc.analysis import text as report_text
from inspectc.analysis.resume import Branch, short_function, shown_call_site, shown_function
from inspectc.analysis.text import Base
from inspectc.analysis.views import LIMIT_HIT
from inspectc.model import (
    STATUS_COMPILING,
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_INTERRUPTED,
    STATUS_OK,
    Frame,
    Run,
)
from inspectc.render.sections.run import end_text

STATUS_STYLE = {
    STATUS_FAILED: "bold red",
    STATUS_GRAPH_BREAK: "bold yellow",
    STATUS_EMPTY: "dim",
    STATUS_OK: "green",
    STATUS_COMPILING: "magenta",
    STATUS_INTERRUPTED: "magenta",
    LIMIT_HIT: "bold yellow",
}
STATUS_LABEL = {
    STATUS_FAILED: "failed",
    STATUS_GRAPH_BREAK: "graph break",
    STATUS_EMPTY: "empty",
    STATUS_OK: "ok",
    STATUS_COMPILING: "compiling",
    STATUS_INTERRUPTED: "interrupted",
    LIMIT_HIT: "limit hit",
}


def escape_controls(text: str) -> str:
    """One line of report text for the screen: tabs expanded, anything unsafe ``?``."""
    return report_text.printable(text.expandtabs(4) if "\t" in text else text)


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


def short_path(path: str | None, base: Base, width: int | None = None) -> str:
    """*path* relative to the run's cwd when inside it (never the viewer's cwd: stable),
    cut in the middle at separators to *width*."""
    return report_text.short_path(path, base, width)


def location(filename: str | None, line: int | None, base: Base, width: int | None = None) -> str:
    return report_text.location(filename, line, base, width)


def cut_middle(text: str, width: int) -> str:
    return report_text.cut_middle(text, width)


def function_name(name: str | None | Frame, branch: Branch | None = None) -> str:
    """A frame's function for tables: Dynamo's continuation functions shortened to
    ``↳ f_at_18``, and where it continues when two share the name (``→ line 19``); given the
    frame, the callable as the user knows it (``GPT2LMHeadModel.forward (wrapper)``)."""
    short = shown_function(name) if isinstance(name, Frame) else short_function(name)
    return f"{short} → line {branch.line}" if branch is not None else short


def call_site_of(frame: Frame, base: Base) -> str | None:
    """``called at train.py:9``: the user's line that called a library wrapper's frame that is
    named after the user's callable (as the summary says it); None for other frames."""
    site = shown_call_site(frame)
    return "called at " + location(site.filename, site.line, base) if site is not None else None


def frame_where(frame: Frame, base: Base) -> str:
    """A frame's location for tables: its code, or for a wrapper's frame the user's call."""
    return call_site_of(frame, base) or location(frame.filename, frame.line, base)


def link(url: str, style: str = "underline") -> Text:
    """*url* shown as text and clickable where the terminal supports links."""
    return Text(url, style=Style.parse(style) + Style(link=url))


def run_state(run: Run) -> Text:
    """How the run stands: ``exited 0``, ``running (pid 12)``, ``ended: killed``..."""
    if run.exit_code is not None:
        return Text(f"exited {run.exit_code}", style="green" if run.exit_code == 0 else "bold red")
    if run.end_reason not in (None, "running"):
        return Text(f"ended: {run.end_reason}", style="bold red")
    said = end_text(run)  # alive on this machine, or killed before it could say so
    if said.startswith("still running"):
        return Text("● " + said.removeprefix("still "), style="bold magenta")
    return Text(said, style="bold red")
