"""CLI commands ``import``, ``merge``, ``diff`` and ``check``. No torch.

Exit codes: 0 ok; 1 a difference (diff) or an exceeded limit (check); 2 an error (bad input,
a file that is not a report), as one line on stderr.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from inspectc.analysis.text import json_text
from inspectc.cli import tty
from inspectc.errors import UsageError
from inspectc.store import runlock


def register(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help="build a report from TORCH_TRACE logs (a file, or a directory of ranks' logs)",
        description="Build a report from existing TORCH_TRACE logs (the files tlparse reads): one"
        " file, or a directory of *.log files (ranks from rank_N in the names).",
    )
    p.add_argument("path", help="a TORCH_TRACE log file or a directory of them")
    p.add_argument("-o", "--output", help="report path (default: <name>.inspectc here)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "merge",
        help="join the reports of several ranks into one report",
        description="Join per-rank reports (e.g. from torchrun) into one multi-rank report.",
    )
    p.add_argument("reports", nargs="+", help="reports, or directories of *.inspectc reports")
    p.add_argument("-o", "--output", required=True, help="the merged report's path")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser(
        "diff",
        help="what changed between two runs (exit 1 when something structural did)",
        description="Frames, graph breaks, recompiles and kernels that differ between two"
        " reports; kernel time ratios. Exit 0: no structural difference, 1: some, 2: error.",
    )
    p.add_argument("a", help="the earlier report (or directory of per-rank reports)")
    p.add_argument("b", help="the later report")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    p.add_argument(
        "--fail-on-slowdown",
        type=float,
        metavar="PCT",
        help="also exit 1 when kernel time per call got slower by more than PCT percent",
    )
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser(
        "check",
        help="CI gate: exit 1 when a report exceeds limits",
        description="Exit 1 with a list of what exceeded the limits, 0 otherwise. In a"
        " multi-rank report each limit applies to every rank.",
    )
    p.add_argument("report", help="a report (or a directory of per-rank reports)")
    p.add_argument("--max-graph-breaks", type=_count, metavar="N")
    p.add_argument("--max-recompiles", type=_count, metavar="N")
    p.add_argument("--max-frames", type=_count, metavar="N")
    p.add_argument(
        "--max-rel-error",
        type=_rel_error,
        metavar="X",
        help="fail when a compiled output's error against the fp64 reference is above X (inspectc accuracy)",
    )
    p.add_argument(
        "--fail-on-error",
        action="store_true",
        help="fail on frames that failed to compile (a compile id refused at the recompile limit is"
        " not one: --max-recompiles gates recompiles) and on a run that ended with an exception",
    )
    p.add_argument(
        "--fail-on-rank-differences",
        nargs="?",
        const="all",
        metavar="KINDS",
        help="fail when ranks differ: all kinds, or a comma list (cache, collective_schedule,"
        " collectives_parity, execution_order, tensor_meta, runtime_estimate, frame, recompile,"
        " graph_break, recompile_reason, status, kernels, ddp_split)",
    )
    p.add_argument(
        "--max-break-cost-ms",
        type=_rel_error,
        metavar="MS",
        help="fail when a graph break measured to cost more than MS per call (the timing window)",
    )
    p.add_argument(
        "--ignore-intended-breaks",
        action="store_true",
        help="leave out breaks torch places on purpose (torch.optim's step, DDP's wrapper) from every gate",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_check)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def cmd_import(args: argparse.Namespace) -> int:
    from inspectc.capture.importer import import_logs

    source = Path(args.path)
    output = Path(args.output) if args.output else Path.cwd() / f"{_stem(source)}.inspectc"
    with runlock.holding(output, what="import"):  # the lock `run` takes: one writer per path
        result = import_logs(source, output, argv=["inspectc", "import", args.path])
    if not args.quiet:
        tty.err(result.describe())
    return 0


def _stem(path: Path) -> str:
    name = path.resolve().name if path.is_dir() else path.name
    for suffix in (".gz", ".log", ".txt"):
        name = name.removesuffix(suffix)
    return name or "import"


def cmd_merge(args: argparse.Namespace) -> int:
    from inspectc.store.merge import merge_reports, reports_in

    paths: list[Path] = []
    for given in args.reports:
        p = Path(given)
        paths.extend(reports_in(p) if p.is_dir() else [p])
    if not paths:
        raise UsageError("inspectc merge: no reports (*.inspectc) found in the given directories")
    with runlock.holding(Path(args.output), what="merge"):
        result = merge_reports(paths, args.output, argv=["inspectc", "merge", *args.reports])
    ranks = ", ".join(str(i.rank) for i in result.inputs if i.rank is not None)
    note = " (numbered by position: the inputs had no rank, or the same one)" if result.renumbered else ""
    tty.err(
        f"inspectc merge: {len(result.inputs)} reports -> {result.output}"
        + (f", ranks {ranks}" if ranks else "")
        + note
    )
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from inspectc.analysis.diff import diff_reports
    from inspectc.render.diff import diff_plain, render_diff

    if args.fail_on_slowdown is not None and args.fail_on_slowdown < 0:
        raise UsageError("--fail-on-slowdown wants a percentage of 0 or more")
    with tty.read(args.a) as a, tty.read(args.b) as b:
        diff = diff_reports(a, b, labels=(args.a, args.b))
    if args.json:
        tty.out(json_text(json.dumps(diff_plain(diff, args.fail_on_slowdown), indent=2, ensure_ascii=False)))
    else:
        tty.out(render_diff(diff, fail_on_slowdown=args.fail_on_slowdown))
    return diff.exit_code(args.fail_on_slowdown)


def _rel_error(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number, not {text!r}") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError("a number of 0 or more")
    return value


def cmd_check(args: argparse.Namespace) -> int:
    from inspectc.analysis.check import (
        Limits,
        check_accuracy,
        check_frames,
        check_rank_differences,
        rank_kinds,
    )
    from inspectc.analysis.costs import break_costs
    from inspectc.render.check import details, render_check
    from inspectc.render.rank_render import report_differences

    kinds = rank_kinds(args.fail_on_rank_differences)
    limits = Limits(
        max_graph_breaks=args.max_graph_breaks,
        max_break_cost_ms=args.max_break_cost_ms,
        ignore_intended=args.ignore_intended_breaks,
        max_recompiles=args.max_recompiles,
        max_frames=args.max_frames,
        fail_on_error=args.fail_on_error,
    )
    with tty.read(args.report) as report:
        costs = break_costs(report.frames, report.region_gaps()) if args.max_break_cost_ms is not None else ()
        result = check_frames(report.frames, report.run, limits, costs)
        run = report.run  # locations relative to its folder, a notebook's cells by number
        if kinds is not None:
            check_rank_differences(result, report_differences(report), kinds)
        if args.max_rel_error is not None:
            check_accuracy(result, report.accuracy, args.max_rel_error)
    if args.json:
        data = {
            "ok": result.ok,
            "counts": result.counts,  # the worst rank's, in a multi-rank report
            "violations": [
                {
                    "what": v.what,
                    "count": v.count,
                    "limit": v.limit,
                    "rank": v.rank,
                    "details": details(v, run),
                }
                for v in result.violations
            ],
        }
        if result.per_rank:
            data["counts_rank"] = result.worst_rank
            data["per_rank"] = {str(r): c for r, c in sorted(result.per_rank.items())}
            data["total"] = result.total
        tty.out(json_text(json.dumps(data, indent=2, ensure_ascii=False)))
    else:
        tty.out(render_check(result, limits, args.report, run))
    return 0 if result.ok else 1
