"""``inspectc run``: its options, the script or module run under capture, the report's path,
and what is printed when it ends. Torch is imported only once the input was checked."""

from __future__ import annotations

import argparse
import ast
import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspectc.analysis.text import printable
from inspectc.cli import tty
from inspectc.cli.argv import split_own
from inspectc.errors import InspectcError, UsageError
from inspectc.model import CONFIG_MODULES, PROFILE_WINDOW
from inspectc.model.limits import small_int
from inspectc.model.terminal import safe

_RUN_VALUE_OPTIONS = {"-o", "--output", "--profile-window", "-m", "--config"}
_RUN_FLAGS = {
    "--fresh",
    "--no-provenance",
    "--no-timings",
    "--kernel-harness",
    "--tui",
    "--quiet",
    "-q",
    "-h",
    "--help",
}


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="inspectc run",
        description="Run a script (or -m module) under capture and write a report.",
        usage="inspectc run [options] (script.py | -m module) [args ...]",
    )
    p.add_argument("-o", "--output", help="report path (default: <script-stem>.inspectc in cwd)")
    p.add_argument("-m", dest="module", help="run a library module as a script, like python -m")
    p.add_argument("--fresh", action="store_true", help="disable Inductor's caches for a complete capture")
    p.add_argument("--no-provenance", action="store_true", help="do not turn on provenance tracking")
    p.add_argument("--no-timings", action="store_true", help="do not measure kernel run times")
    p.add_argument(
        "--kernel-harness",
        action="store_true",
        help="Inductor's per-kernel benchmark harness and byte counts (config.benchmark_kernel): for bench and the roofline",
    )
    p.add_argument(
        "--profile-window",
        default=f"{PROFILE_WINDOW[0]}:{PROFILE_WINDOW[1]}",
        metavar="SKIP:COUNT",
        help="per compiled frame, skip SKIP calls then time COUNT calls (default %(default)s)",
    )
    p.add_argument(
        "--tui",
        action="store_true",
        help="print the command that follows the run live in a second terminal; open the TUI when it ends",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary, no live status line")
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a torch option for the run: dynamo.NAME=V, inductor.NAME=V, compiler.NAME=V"
        " (V a Python literal, else text); dynamo.NAME+=BUILTIN adds to a set (repeatable)",
    )
    return p


_CONFIG_KEY = re.compile(rf"^({'|'.join(CONFIG_MODULES)})(\.[A-Za-z_]\w*)+$")


def parse_config(items: Sequence[str]) -> dict[str, Any]:
    """``--config`` values as {key: value}; ``key+=`` for an addition. No torch: checked by shape."""
    out: dict[str, Any] = {}
    for item in items:
        add = item.partition("=")[0].endswith("+")
        key, sep, text = item.partition("+=" if add else "=")
        key = key.strip()
        if not sep or not _CONFIG_KEY.match(key):
            raise UsageError(
                f"--config wants KEY=VALUE with KEY dynamo.NAME, inductor.NAME or compiler.NAME, not {printable(item)!r}"
            )
        if add:
            out[key + "+="] = text.strip()
            continue
        try:
            out[key] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            out[key] = text.strip()  # plain text: compiler.dynamic_sources=L['x']
    return out


def split_run_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split ``run``'s own options from the script and its arguments."""
    return split_own(argv, command="run", value_options=_RUN_VALUE_OPTIONS, flags=_RUN_FLAGS)


def parse_window(text: str) -> tuple[int, int]:
    try:
        skip, count = (int(x) for x in text.split(":"))
    except ValueError:
        raise UsageError(f"--profile-window wants SKIP:COUNT, e.g. 1:10, not {text!r}") from None
    if skip < 0 or count < 1:
        raise UsageError("--profile-window: SKIP must be >= 0 and COUNT >= 1")
    return skip, count


def cmd_run(argv: Sequence[str]) -> int:
    own, rest = split_run_argv(argv)
    opts = _run_parser().parse_args(own)
    window = parse_window(opts.profile_window)
    config = parse_config(opts.config)
    if opts.output == "" or opts.module == "":
        raise UsageError("inspectc run: no path given (an empty path)")
    from inspectc.capture import runner  # no torch yet: bad input fails fast

    if opts.module:
        runner.check_module(opts.module)
        stem = opts.module.rsplit(".", 1)[-1]
        code = None
        script_argv = rest
    else:
        if not rest or not rest[0]:
            raise UsageError("inspectc run: give a script to run (or -m module)")
        code = runner.prepare_script(rest[0])
        stem = Path(rest[0]).stem or "run"
        script_argv = rest
    output = _rank_path(Path(opts.output)) if opts.output else Path.cwd() / f"{stem}{_rank_suffix()}.inspectc"
    _check_run_output(output, None if opts.module else rest[0])
    launch_dir = os.getcwd()
    status = _status_line() if not opts.quiet else None

    from inspectc.capture.session import Capture  # imports torch
    from inspectc.capture.torch_config import check_config

    problem = check_config(config)
    if problem:  # before the report or the script: a typo in a setting is said, not recorded
        raise UsageError(problem)

    cap = Capture(
        output,
        fresh=opts.fresh,
        provenance=not opts.no_provenance,
        timings=not opts.no_timings,
        kernel_harness=opts.kernel_harness,
        profile_window=window,
        argv=["inspectc", "run", *argv],
        mode="module" if opts.module else "script",
        config=config,
        status_line=status,
    )
    cap.start()
    if opts.tui and cap.ok:  # the report exists now: it can be followed while the script runs
        from inspectc.cli.tui import follow_command

        tty.err(f"inspectc: follow this run in another terminal: {follow_command(str(output))}")
    if code is not None:
        outcome = runner.run_code(code, script_argv)
    else:
        outcome = runner.run_module(opts.module, script_argv)
    if outcome.signal is None:  # Python waits for the script's threads before it exits
        outcome = runner.wait_for_threads() or outcome
    cap.stop(end_reason=outcome.end_reason, exit_code=outcome.exit_code, exception=outcome.exception)
    _return_to(launch_dir)  # the script may have chdir'd: the report path is relative to here
    if cap.ok and not opts.quiet:
        _print_summary(output)
    if cap.ok and opts.tui:
        _open_tui(output)
    if outcome.signal is not None:
        runner.reraise_signal(outcome.signal)
    return outcome.exit_code


def _check_run_output(output: Path, script: str | None) -> None:
    """Refuse, before the script runs, a report path that would replace the script or a file
    that is not a report (a directory or a device is the writer's: the script runs uncaptured)."""
    from inspectc.cli.output import shown, why
    from inspectc.store.target import replaceable_report

    if script is not None:
        try:
            same = os.path.samefile(output, script)
        except (OSError, ValueError):
            same = False
        if same:
            raise UsageError(
                f"inspectc run: the report would replace the script {shown(script)}: choose another -o"
            )
    try:
        info = os.lstat(output)
    except (FileNotFoundError, NotADirectoryError):  # the writer says why; the script still runs
        return
    except OSError as exc:
        raise UsageError(f"inspectc run: cannot write the report {shown(output)}: {why(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UsageError(
            f"inspectc run: {shown(output)} is a symbolic link (inspectc does not write through links)"
        )
    if stat.S_ISREG(info.st_mode) and not replaceable_report(output):
        raise UsageError(
            f"inspectc run: refusing to overwrite {shown(output)}: it is not an inspectc report"
            " (move it away or choose another -o)"
        )


def _return_to(directory: str) -> None:
    try:
        os.chdir(directory)
    except OSError:
        pass  # removed by the script: paths shown from here on may be relative to elsewhere


def _rank_suffix() -> str:
    """``.rankN`` under torchrun (RANK set), so the ranks of one job write separate reports."""
    rank = small_int(os.environ.get("RANK", ""))
    return f".rank{rank}" if rank is not None else ""


def _rank_path(path: Path) -> Path:
    # -o x.inspectc given to every rank of a job: x.rank0.inspectc, x.rank1.inspectc...
    world = small_int(os.environ.get("WORLD_SIZE", "")) or 0
    if not (world > 1 and _rank_suffix()):
        return path
    return path.with_name(f"{path.stem}{_rank_suffix()}{path.suffix}")


def _status_line():  # noqa: ANN202 - returns a callable or None
    if not sys.stderr.isatty():
        return None

    def show(text: str) -> None:
        sys.stderr.write("\r\x1b[2K" + (f"inspectc: {safe(text)}" if text else ""))  # our own escape only
        sys.stderr.flush()

    return show


def _print_summary(path: Path) -> None:
    from inspectc.render.terminal import render_summary

    try:
        with tty.read(path) as report:
            tty.err(render_summary(report, report_path=_display_path(path)))
    except InspectcError as exc:  # messages quote report text and file names: sanitized
        tty.err(f"inspectc: {exc}", keep="")
    except Exception as exc:  # noqa: BLE001 - a reader bug must not change the script's exit code
        tty.err(f"inspectc: could not print the summary ({type(exc).__name__}: {exc})")


def _display_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _open_tui(path: Path) -> None:
    """The tui command on the new report; its failure is one line, never the script's exit code."""
    from inspectc.cli.tui import cmd_tui

    try:
        cmd_tui(argparse.Namespace(report=str(path), follow=False))
    except (InspectcError, OSError) as exc:
        tty.err(f"inspectc: {exc}", keep="")
    except SystemExit:
        pass
