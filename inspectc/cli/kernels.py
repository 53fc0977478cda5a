"""``inspectc kernels R``: every kernel of a report with what it fused and what it cost. No torch."""

from __future__ import annotations

import argparse

from inspectc.analysis.roofline import Roofline, launch_reads, roofline
from inspectc.analysis.text import cut_middle
from inspectc.analysis.text import printable as _clean
from inspectc.cli import tty
from inspectc.cli.argv import compile_id_arg
from inspectc.model import PROFILE_WINDOW, CompileId, Frame, Kernel, Run
from inspectc.render.roofline import OVER_LIMIT, limit_text, method_lines
from inspectc.render.sections.run import end_text
from inspectc.render.timefmt import (
    NOISE_LEGEND,
    Unit,
    column_unit,
    cv_text,
    environment_line,
    noise_text,
    noisy_count,
    shown_vs_measured,
    typical,
)
from inspectc.store.bench import L2_FLUSHED, BenchResults, Isolated

SORTS = ("time", "name", "calls")
NAME_WIDTH = 60


def kernel_rows(kernels: list[Kernel], sort: str = "time") -> list[Kernel]:
    if sort == "name":
        return sorted(kernels, key=lambda k: (k.name, k.compile_id.without_rank().sort_key))
    if sort == "calls":
        return sorted(kernels, key=lambda k: (-(k.time.calls if k.time else -1), k.name))
    return sorted(
        kernels,
        key=lambda k: (-(k.time.total_us if k.time else -1.0), k.compile_id.without_rank().sort_key, k.id),
    )


def fused_short(kernel: Kernel, width: int = 40) -> str:
    if kernel.fused_nodes:
        text = ", ".join(kernel.fused_nodes)
    elif kernel.language == "extern":
        text = str(kernel.meta.get("op") or kernel.name)
    else:
        return "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def isolated_text(fig: Isolated | None, unit: Unit) -> str:
    """An isolated median per call with its sample count; "not measured" where absent."""
    if fig is None:
        return "not measured"
    flag = " few" if fig.few else ("" if fig.stable else " unstable")
    return f"{unit.fmt(fig.median_us)} n={fig.n}{flag}"


def render_kernels(
    kernels: list[Kernel],
    *,
    sort: str = "time",
    bench: BenchResults | None = None,
    frames: list[Frame] | None = None,
    run: Run | None = None,
    reads: dict[int, int] | None = None,
) -> str:
    """The kernel table: median per call and n, one unit per time column, noisy ones flagged.

    *reads*: input bytes of each kernel's recorded launch (``launch_reads``), for % limit."""
    bench = bench if bench is not None else BenchResults()
    ordered = kernel_rows(kernels, sort)
    reads = reads or {}
    roofs: dict[int, Roofline | None] = {k.id: roofline(k, bench, reads.get(k.id)) for k in ordered}
    isolated = {k.id: bench.primary(k.compile_id, k.graph_kind, k.name) for k in ordered}
    iso = column_unit(f.median_us if f else None for f in isolated.values())
    med = column_unit(typical(k.time) for k in ordered)
    p90 = column_unit(k.time.p90_us if k.time else None for k in ordered)
    tot = column_unit(k.time.total_us if k.time else None for k in ordered)
    header = (
        "kernel", "frame", "kind", "fused ops", "n", f"median {med.name}", f"p90 {p90.name}", "CV",
        f"total {tot.name}", "share", f"isolated {iso.name}", "% limit", "",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = [header]
    for k in ordered:
        t = k.time
        frame = k.compile_id.label + (" bwd" if k.graph_kind.endswith("_backward") else "")
        rows.append(
            (
                cut_middle(_clean(k.name), NAME_WIDTH),  # a name's kind and number are at its ends
                _clean(frame),
                _clean(f"{k.language}/{k.kind}" if k.language != "extern" else "extern"),
                _clean(fused_short(k)),
                str(t.calls) if t else "-",
                med.fmt(typical(t)),
                p90.fmt(t.p90_us if t else None),
                cv_text(t),
                tot.fmt(t.total_us if t else None),
                f"{t.share * 100:.1f}%" if t and t.share is not None else "-",
                isolated_text(isolated[k.id], iso),
                limit_text(roofs[k.id]),
                noise_text(t),
            )
        )
    right = {4, 5, 6, 7, 8, 9, 10, 11}
    if bench.run is None:  # a column of "not measured" tells nothing; the footer says how to get it
        rows = [r[:10] + r[12:] for r in rows]
        right = {4, 5, 6, 7, 8, 9}
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.extend(footer(kernels, frames or [], run))
    lines.append(_bench_line(bench))
    lines.extend(method_lines(list(roofs.values())))
    if any(limit_text(r).endswith("*") for r in roofs.values()):
        lines.append(OVER_LIMIT)
    return "\n".join(lines)


def footer(kernels: list[Kernel], frames: list[Frame], run: Run | None) -> list[str]:
    """Counts, the noise legend, what disturbed the times, and why nothing was timed."""
    timed = sum(1 for k in kernels if k.time)
    noisy = noisy_count(kernels)
    out = [
        f"{len(kernels)} kernel{'s' * (len(kernels) != 1)}, {timed} timed"
        + (f", {noisy} noisy ({NOISE_LEGEND})" if noisy else "")
    ]
    ids = {k.compile_id.without_rank() for k in kernels}  # a frame's lines print once per rank
    timings = [f.timing for f in frames if f.compile_id.without_rank() in ids]
    env = environment_line(timings)
    if env:
        out.append(_clean(env))  # the time base is report text
    for f in frames:
        if f.compile_id.without_rank() in ids and f.timing is not None:
            cid = f.compile_id
            line = shown_vs_measured(f.timing)
            rest = ", ".join(
                f"{cut_middle(_clean(n), 50)} {v:.1f} µs" for n, v in list(f.timing.unattributed.items())[:3]
            )
            if line:
                out.append(f"frame {cid}: {line}" + (f"; not a kernel: {rest}" if rest else ""))
            if f.timing.absent and timed:
                out.append(f"frame {cid}: {_clean(f.timing.absent)}")
            if f.timing.replay_us is not None:
                out.append(
                    f"frame {cid}: CUDA-graph replay {f.timing.replay_us / max(f.timing.replay_calls or 1, 1):.1f} µs"
                    f" per call ({f.timing.replay_calls} calls)"
                )
    if kernels and not timed:
        out.append(untimed_reason(frames, ids, run))
    elif timed < len(kernels) and run is not None:  # why some are missing: a thread, a window
        out += [_clean(e) for e in run.capture_errors if e.startswith("kernel timings:")][:2]
    return out


def untimed_reason(frames: list[Frame], ids: set[CompileId], run: Run | None) -> str:
    options = run.options if run is not None else None
    if options is None or options.timings is None:
        return "no kernel times recorded (timings not recorded for this report)"
    if options.timings is False:
        return "no kernel times: captured with --no-timings"
    reasons = sorted(
        {
            f.timing.absent
            for f in frames
            if f.compile_id.without_rank() in ids and f.timing and f.timing.absent
        }
    )
    if reasons:
        return "timings were on, but no kernel was timed: " + "; ".join(reasons)
    errors = [e for e in run.capture_errors if "timing" in e] if run is not None else []
    if errors:
        return "timings were on, but no kernel was timed: " + "; ".join(errors[:2])
    if run is not None and run.end_reason == "running":  # os._exit, SIGKILL, a crash, or live
        return f"no kernel times yet: the run {end_text(run)}, and times are written when capture stops"
    recorded = options.profile_window or ()
    window = (recorded[0], recorded[1]) if len(recorded) == 2 else PROFILE_WINDOW  # a report is untrusted
    return (
        "timings were on, but no kernel was timed: no compiled frame was called again after its "
        f"compiling call (window {window[0]}:{window[1]}; the compiling call is never timed)"
    )


def _bench_line(bench: BenchResults) -> str:
    """Where the isolated column and the roofline come from."""
    run = bench.run
    if run is None:
        return "isolated: not measured (inspectc bench R re-runs each kernel in isolation)"
    copy = (
        f", copy bandwidth {run.bandwidth_gbps:.0f} GB/s ({run.bandwidth_method})"
        if run.bandwidth_gbps
        else ""
    )
    errors = f", {len(run.errors)} modules not measured" if run.errors else ""
    flushed = any(L2_FLUSHED in figs for figs in bench.figures.values())
    basis = (
        "; isolated and % limit from one measurement: the isolated module profile"
        f"{', L2 flushed before each Triton launch' if flushed else ''} (device time, launch overhead out)"
    )
    return f"isolated: inspectc bench on {run.device or 'an unknown device'}{copy}{errors}{basis}"


def cmd_kernels(args: argparse.Namespace) -> int:
    with tty.read(args.report) as report:
        kernels = report.kernels
        if args.frame:
            kernels = [k for k in kernels if k.compile_id.same_compile(args.frame)]
            if not kernels and report.frame(args.frame) is None:
                from inspectc.errors import UsageError

                known = ", ".join(str(f.compile_id) for f in report.frames[:20])
                raise UsageError(f"no frame {args.frame} in {args.report} (frames: {known})")
        bench = report.bench
        reads = launch_reads(report, kernels) if bench.run is not None else {}  # only where % limit can be
        tty.out(
            render_kernels(
                kernels, sort=args.sort, bench=bench, frames=report.frames, run=report.run, reads=reads
            )
        )
        aot = report.run_records.aot_compiles
        if aot and not args.frame:  # no Dynamo frame holds them: say where they are
            n = sum(len(a.kernels) for a in aot)
            tty.out(
                f"AOTInductor: {n} kernel{'s' * (n != 1)} in {len(aot)} compile{'s' * (len(aot) != 1)},"
                " not listed above (no Dynamo frame, not timed): inspectc summary, export --json's aot_compiles"
            )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kernels", help="list kernels: what each fused, calls and time")
    p.add_argument("report")
    p.add_argument("--frame", type=compile_id_arg, help="only this compiled frame (compile id, e.g. 0/1)")
    p.add_argument("--sort", choices=SORTS, default="time")
    p.set_defaults(func=cmd_kernels)
