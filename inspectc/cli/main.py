"""The ``inspectc`` command line. Reader commands never import torch.

Each command lives in a module with ``register(subparsers)`` (``run`` in :mod:`inspectc.cli.run`);
this module owns ``summary`` and ``export`` and turns :class:`InspectcError` into one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from inspectc.cli.run import _run_parser, cmd_run
from inspectc.cli.tty import err, out, read
from inspectc.errors import InspectcError, UsageError
from inspectc.version import __version__


def cmd_summary(args: argparse.Namespace) -> int:
    from inspectc.render.terminal import render_summary

    with read(args.report) as report:  # a report, a bundle, or a directory of rank reports
        out(render_summary(report, report_path=args.report))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from inspectc.cli import jsonout
    from inspectc.cli.output import check_output, write_chunks
    from inspectc.render.export import export_report

    if args.perfetto:
        from inspectc.cli.perfetto import export_perfetto

        return export_perfetto(args)
    to_file = bool(args.output) and args.output != "-"
    if to_file:  # checked before the work: never over the input, a link or a stranger's file
        check_output(args.output, what="JSON export", ours=_is_export, inputs=[args.report], devices=True)
    with read(args.report) as report:
        data = export_report(report, sources=not args.no_source, report_path=args.report)
    chunks = jsonout.pieces(data, 2 if args.pretty else None)  # never the whole text at once
    if to_file:
        write_chunks(args.output, chunks, what="JSON export")
    else:
        for chunk in chunks:
            out(chunk, end="")  # json_text escaped what a terminal acts on: exact, and unchanged here
    return 0


_EXPORT_HEAD = re.compile(rb'\A\s*\{\s*"schema_version"\s*:\s*\d+\s*,\s*"inspectc_version"\s*:')


def _is_export(path: Path) -> bool:
    """True when *path* starts like a JSON export inspectc wrote (safe to replace)."""
    try:
        with open(path, "rb") as fh:
            return bool(_EXPORT_HEAD.match(fh.read(200)))
    except OSError:
        return False


# The module that registers each command, in `inspectc -h` order. A command imports only its
# own module (each pulls in its readers and renderers: a CLI process starts ~0.1 s sooner);
# help, --version and an unknown word import them all.
_MODULES = (
    "accuracy",
    "kernels",
    "kernel_depth",
    "bench",
    "share",
    "html",
    "imports",
    "graph",
    "tui",
    "backends",
    "suggest",
)
_COMMANDS = {
    **{
        name: name
        for name in ("accuracy", "kernels", "bench", "share", "html", "graph", "tui", "backends", "suggest")
    },
    **{"repro": "kernel_depth", "ir": "kernel_depth"},
    **{name: "imports" for name in ("import", "merge", "diff", "check")},
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of *command* alone (and summary, export, run)."""
    parser = argparse.ArgumentParser(
        prog="inspectc",
        description="Graph-break and kernel-inspection debugger for torch.compile.",
    )
    parser.add_argument("--version", action="version", version=f"inspectc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("run", help="run a script under capture (inspectc run -h for options)", add_help=False)
    p = sub.add_parser("summary", help="print a report's summary")
    p.add_argument("report")
    p.set_defaults(func=cmd_summary)
    p = sub.add_parser("export", help="export a report as JSON")
    p.add_argument("report")
    p.add_argument("--json", action="store_true", help="JSON (the default and only format)")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.add_argument("--no-source", action="store_true", help="leave out graphs and kernel source")
    p.add_argument("-o", "--output", help="write to a file instead of stdout")
    p.add_argument(
        "--perfetto",
        metavar="OUT.json",
        help="write compile phases, kernel times and runtime estimates as a Chrome trace (ui.perfetto.dev, chrome://tracing)",
    )
    p.set_defaults(func=cmd_export)
    if command in ("summary", "export"):
        return parser
    only = _COMMANDS.get(command or "")
    for name in _MODULES if only is None else (only,):
        importlib.import_module(f"inspectc.cli.{name}").register(sub)
    return parser


PATH_ARGUMENTS = ("report", "a", "b", "reports", "path", "output", "output_dir")


def refuse_empty_paths(args: argparse.Namespace) -> None:
    """An empty path is a mistake, not the current folder (``Path("")`` is ``.``)."""
    for name in PATH_ARGUMENTS:
        value = getattr(args, name, None)
        if value == "" or (isinstance(value, list) and "" in value):
            raise UsageError(
                "no path given (an empty path)" if name != "report" else "no report given (an empty path)"
            )


class Terminated(BaseException):
    """SIGTERM arrived in a reader or writer command (``run`` and ``accuracy`` have their own
    handling): raised in the main thread so every ``finally`` runs and a half-written output
    (``import``'s or ``share``'s temporary file) is removed, never left beside -o."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def _on_sigterm() -> None:
    """SIGTERM as :class:`Terminated`, where it would otherwise kill the process at once."""
    try:
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread (main() called from a thread): the default stays
        pass


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] not in ("run", "accuracy"):
        _on_sigterm()
    try:
        if args_list and args_list[0] == "run":
            if len(args_list) > 1 and args_list[1] in ("-h", "--help"):
                _run_parser().print_help()
                return 0
            return cmd_run(args_list[1:])
        if args_list and args_list[0] == "accuracy":
            from inspectc.cli.accuracy import main_hook

            return int(main_hook(args_list) or 0)
        parser = build_parser(args_list[0] if args_list else None)
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        refuse_empty_paths(args)
        return int(args.func(args) or 0)
    except InspectcError as exc:  # messages quote report text and file names: sanitized
        err(f"inspectc: {exc}", keep="")  # one line, whatever report text it quotes
        return exc.exit_code
    except RecursionError:  # e.g. JSON nested 100,000 deep in a report or a TORCH_TRACE log
        err("inspectc: input is nested too deeply to read (RecursionError)")
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path the user named: too long, a link loop, unreadable, ...
        err(f"inspectc: {_os_error(exc)}", keep="")
        return 2
    except UnicodeError as exc:  # a name this terminal's encoding cannot show
        reason = getattr(exc, "reason", exc)
        err(f"inspectc: cannot show text in this terminal's encoding ({reason})", keep="")
        return 2
    except RuntimeError as exc:
        if "Symlink loop" not in str(exc):  # Path.resolve() before Python 3.13: not an OSError
            raise
        err(f"inspectc: {exc}: too many levels of symbolic links", keep="")
        return 2
    except KeyboardInterrupt:
        err("inspectc: interrupted")
        return 130
    except Terminated:
        err("inspectc: terminated (SIGTERM); nothing half-written is left")
        return 128 + signal.SIGTERM


def _os_error(exc: OSError) -> str:
    from inspectc.cli.output import shown, why

    if exc.filename is None:
        return why(exc)
    return f"{shown(os.fsdecode(exc.filename))}: {why(exc)}"


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
