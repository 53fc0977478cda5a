"""``inspectc tui REPORT [--follow]``: open the Textual browser (package ``inspectc_tui``,
shipped in the same distribution; the ``tui`` extra brings Textual); ``--follow`` watches a report that ``inspectc run`` is still writing.

Capture and the other readers need no Textual; when the TUI package (or Textual) is not
installed this command says how to install it, in one line, and exits 2.
"""

from __future__ import annotations

import argparse
import importlib

from inspectc.errors import TuiMissing

INSTALL_HINT = "the TUI needs Textual: `pip install 'inspectc[tui]'` (from a clone: `pip install '.[tui]'`)"
_TUI_MODULES = ("inspectc_tui", "textual", "rich")


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("tui", help="browse a report in the terminal UI")
    p.add_argument("report", help="a report, a share bundle (.zip) or a directory of per-rank reports")
    p.add_argument(
        "--follow",
        action="store_true",
        help="follow a report that `inspectc run` is still writing: frames, breaks and kernels appear as they land",
    )
    p.set_defaults(func=cmd_tui)


def follow_command(report: str) -> str:
    """The command that opens the live view of *report* (``inspectc run --tui`` prints it)."""
    import shlex

    return f"inspectc tui {shlex.quote(report)} --follow"


def cmd_tui(args: argparse.Namespace) -> int:
    try:
        # textual, the TUI's one big dependency, checked up front (by name: only inspectc_tui
        # imports it, as the import contracts in pyproject.toml say)
        importlib.import_module("textual")
        from inspectc_tui.__main__ import run_tui
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in _TUI_MODULES:
            raise TuiMissing(INSTALL_HINT) from None
        raise
    return run_tui(args.report, follow=args.follow)
