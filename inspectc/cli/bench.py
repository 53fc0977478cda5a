"""``inspectc bench R``: isolated re-measurement of a report's kernels (imports torch when run).

The figures go into the report itself (reports are inspectc's own files) or, with ``-o``,
into a copy; a bundle or a folder of rank reports needs ``-o``. Nothing else is written.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from inspectc.cli import tty
from inspectc.cli.argv import compile_id_arg
from inspectc.errors import UsageError
from inspectc.store import runlock


def _target(args: argparse.Namespace) -> Path | None:
    """Where the figures go: the ``-o`` path (checked), or None for the report in place."""
    from inspectc.cli.output import check_output, shown
    from inspectc.store.target import replaceable_report

    if args.output:
        return check_output(args.output, what="report", ours=replaceable_report, inputs=[args.report])
    try:
        info = os.lstat(args.report)
    except OSError:
        return None  # open_report says why, in one line
    if not stat.S_ISREG(info.st_mode) or not replaceable_report(args.report):
        raise UsageError(
            f"{shown(args.report)} is not a report file inspectc can add figures to in place"
            " (a bundle, a folder or a link): give -o PATH for a copy with the figures"
        )
    folder = os.path.dirname(os.path.abspath(args.report))
    # A read-only file stays unwritten even for root (os.access says yes to root); SQLite
    # also needs the folder for its journal.
    if not info.st_mode & 0o222 or not os.access(folder, os.W_OK):
        raise UsageError(
            f"cannot write the figures into {shown(args.report)} (read-only): give -o PATH for a copy"
        )
    return None


def cmd_bench(args: argparse.Namespace) -> int:
    from inspectc.cli.kernels import render_kernels
    from inspectc.cli.output import shown
    from inspectc.store.origin import consent

    target = _target(args)
    # the lock of what it writes, before minutes of measuring: a second writer refuses at once
    with runlock.holding(target or Path(args.report), what="bench"), tty.read(args.report) as report:
        if args.frame and report.frame(args.frame) is None:
            known = ", ".join(str(f.compile_id) for f in report.frames[:20])
            raise UsageError(f"no frame {args.frame} in {args.report} (frames: {known})")
        if args.kernel and not any(k.name == args.kernel for k in report.kernels):
            raise UsageError(f"no kernel {args.kernel} in {args.report}")
        what = f"the kernel code recorded in {shown(args.report)}"
        consent(report.rows, report.meta, "bench", what, yes=args.yes)
        from inspectc.capture.bench import bench_report  # imports torch
        from inspectc.capture.bench_measure import Settings

        settings = Settings(
            budget_s=args.budget, cv_limit=args.cv, window=args.window, min_rounds=args.min_rounds
        )
        say = None if args.quiet else (lambda line: tty.err(f"inspectc: {line}", flush=True))
        result = bench_report(report, frame=args.frame, kernel=args.kernel, settings=settings, progress=say)
        source = report.path
        if not result.rows:  # nothing measured: the report stays as it was
            for error in result.run.errors or ("no kernels to measure",):
                tty.err(f"inspectc: not measured: {error}")
            tty.err(f"inspectc: no isolated figures measured; {shown(source)} unchanged")
            return 1
        _store(source, target, result)
        written = source if target is None else target
    for error in result.run.errors:
        tty.err(f"inspectc: not measured: {error}")
    with tty.read(written) as report:
        kernels = [k for k in report.kernels if not args.frame or k.compile_id.same_compile(args.frame)]
        if args.kernel:
            kernels = [k for k in kernels if k.name == args.kernel]
        tty.out(render_kernels(kernels, bench=report.bench))
    tty.out(f"{len(result.rows)} isolated figures written to {written}")
    return 0


def _store(source: Path, target: Path | None, result: object) -> None:
    """The figures into the report *source* itself, or into a copy of it at *target*."""
    from inspectc.capture.bench import BenchResult
    from inspectc.store import edit

    assert isinstance(result, BenchResult)
    what = "the figures"
    with (
        edit.editing(source, what=what)
        if target is None
        else edit.edited_copy(source, target, what=what) as e
    ):
        e.put_bench(result.run, result.rows)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="re-run the report's kernels in isolation (runs the report's output code: trusted reports only)",
    )
    p.add_argument("report")
    p.add_argument("--frame", type=compile_id_arg, help="only this compiled frame (compile id, e.g. 0/1)")
    p.add_argument("--kernel", help="only this kernel (its module is still timed as a whole)")
    p.add_argument(
        "-o", "--output", help="write a copy of the report with the figures (default: into the report)"
    )
    p.add_argument("--budget", type=float, default=10.0, help="seconds per timing loop at most (default 10)")
    p.add_argument("--cv", type=float, default=0.05, help="stable when the last rounds' CV is under this")
    p.add_argument("--window", type=int, default=5, help="rounds the CV is taken over (default 5)")
    p.add_argument("--min-rounds", type=int, default=5, help="rounds at least (default 5)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--yes", action="store_true", help="run a report's kernels even when it was made elsewhere"
    )
    p.set_defaults(func=cmd_bench)
