"""``inspectc accuracy``: run a script under capture, check each compiled graph against eager
and fp64, bisect the ones that diverge, and store the result in the report.

Torch is imported only once the input was checked. The exit status is the script's (gate on
the result with ``inspectc check --max-rel-error X``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from inspectc.cli import tty
from inspectc.cli.argv import split_own
from inspectc.cli.run import _check_run_output, _print_summary, _rank_path, _rank_suffix, _return_to
from inspectc.errors import UsageError

_VALUE_OPTIONS = {"-o", "--output", "-m", "--atol", "--rtol", "--tol", "--calls", "--budget", "--keep-mb"}
_FLAGS = {"--no-stages", "--no-bisector", "--no-locate", "--quiet", "-q", "-h", "--help"}


def accuracy_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="inspectc accuracy",
        description="Run a script under capture; compare every compiled graph with eager and an fp64"
        " reference on the same inputs; bisect the graphs that diverge (stage, pass, FX node, kernel).",
        usage="inspectc accuracy [options] (script.py | -m module) [args ...]",
    )
    p.add_argument("-o", "--output", help="report path (default: <script-stem>.inspectc in cwd)")
    p.add_argument("-m", dest="module", help="run a library module as a script, like python -m")
    p.add_argument("--atol", type=float, default=1e-4, help="absolute tolerance against eager (default 1e-4)")
    p.add_argument("--rtol", type=float, default=1e-4, help="relative tolerance against eager (default 1e-4)")
    p.add_argument(
        "--tol",
        type=float,
        default=1e-4,
        help="slack of the fp64 criterion: compiled's RMSE from fp64 may be 2x eager's + tol/10 (default 1e-4)",
    )
    p.add_argument("--calls", type=int, default=1, help="calls checked per graph (default 1)")
    p.add_argument(
        "--budget", type=float, default=300.0, help="bisection seconds per diverging graph (default 300)"
    )
    p.add_argument(
        "--keep-mb", type=float, default=256.0, help="inputs kept for bisection, all graphs (default 256 MiB)"
    )
    p.add_argument(
        "--no-stages", action="store_true", help="skip the aot_eager / decomposition / inductor stages"
    )
    p.add_argument("--no-bisector", action="store_true", help="skip torch's CompilerBisector")
    p.add_argument(
        "--no-locate", action="store_true", help="skip finding the first diverging node and kernel"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary")
    return p


def split_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    return split_own(argv, command="accuracy", value_options=_VALUE_OPTIONS, flags=_FLAGS)


def cmd_accuracy(argv: Sequence[str]) -> int:
    own, rest = split_argv(argv)
    opts = accuracy_parser().parse_args(own)
    if opts.calls < 1 or opts.budget <= 0 or opts.keep_mb < 0 or min(opts.atol, opts.rtol, opts.tol) < 0:
        raise UsageError("inspectc accuracy: --calls >= 1, --budget > 0, tolerances and --keep-mb >= 0")
    if opts.output == "" or opts.module == "":
        raise UsageError("inspectc accuracy: no path given (an empty path)")
    from inspectc.capture import runner

    if opts.module:
        runner.check_module(opts.module)
        stem, code = opts.module.rsplit(".", 1)[-1], None
    else:
        if not rest or not rest[0]:
            raise UsageError("inspectc accuracy: give a script to run (or -m module)")
        code = runner.prepare_script(rest[0])
        stem = Path(rest[0]).stem or "run"
    output = _rank_path(Path(opts.output)) if opts.output else Path.cwd() / f"{stem}{_rank_suffix()}.inspectc"
    _check_run_output(output, None if opts.module else rest[0])
    launch_dir = os.getcwd()
    started = time.perf_counter()

    from inspectc.capture import accuracy, accuracy_bisect, accuracy_compare
    from inspectc.capture.session import Capture

    settings = accuracy.Settings(
        tol=accuracy_compare.Tolerance(atol=opts.atol, rtol=opts.rtol, tol=opts.tol),
        calls=opts.calls,
        keep_bytes=int(opts.keep_mb * (1 << 20)),
        budget_s=opts.budget,
        stages=not opts.no_stages,
        bisector=not opts.no_bisector,
        locate=not opts.no_locate,
    )
    acc = accuracy.AccuracyCapture(settings)
    cap = Capture(output, argv=["inspectc", "accuracy", *argv], mode="module" if opts.module else "script")
    cap.start()  # a live command writing -o: refused here, in one line, before the script
    tty.err("inspectc: accuracy: the script runs, then diverging graphs are bisected")
    acc.start()
    try:
        outcome = runner.run_code(code, rest) if code is not None else runner.run_module(opts.module, rest)
    finally:
        acc.stop()
    cap.stop(end_reason=outcome.end_reason, exit_code=outcome.exit_code, exception=outcome.exception)
    _return_to(launch_dir)
    result = accuracy_bisect.finish(acc, started)  # after the capture: its compiles are not the run's
    if cap.ok:
        _store(output, result)
        if not opts.quiet:
            _print_summary(output)
    if outcome.signal is not None:
        runner.reraise_signal(outcome.signal)
    return outcome.exit_code


def _store(output: Path, result: object) -> None:
    from inspectc.model import accuracy as table
    from inspectc.render.accuracy import link_kernels
    from inspectc.store import runlock
    from inspectc.store.edit import editing

    assert isinstance(result, table.AccuracyRun)
    with runlock.holding(output, what="accuracy"):  # the lock every -o writer takes
        with tty.read(output) as report:
            result = link_kernels(result, report)
        with editing(output, what="the accuracy results") as report_edit:
            report_edit.set_meta(table.META_KEY, result)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sub.add_parser(
        "accuracy",
        help="compare compiled with eager and fp64, bisect what diverges (-h for options)",
        add_help=False,
    )


def main_hook(args_list: list[str]) -> int | None:
    """``inspectc accuracy ...`` handled before argparse (its script takes its own options)."""
    if not args_list or args_list[0] != "accuracy":
        return None
    if len(args_list) > 1 and args_list[1] in ("-h", "--help"):
        accuracy_parser().print_help()
        return 0
    return cmd_accuracy(args_list[1:])
