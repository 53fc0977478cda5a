"""``inspectc kernels R``: every kernel of a report with what it fused and what it cost. No torch."""

from __future__ import annotations

import argparse

from inspectc.readers.roofline import OVER_LIMIT, limit_text, roofline
from inspectc.readers.text import cut_middle
from inspectc.readers.text import printable as _clean
from inspectc.report.bench import BenchResults, Isolated
from inspectc.report.model import Kernel
from inspectc.report.open import open_report

SORTS = ("time", "name", "calls")
NAME_WIDTH = 60


def kernel_rows(kernels: list[Kernel], sort: str = "time") -> list[Kernel]:
    if sort == "name":
        return sorted(kernels, key=lambda k: (k.name, k.compile_id))
    if sort == "calls":
        return sorted(kernels, key=lambda k: (-(k.time.calls if k.time else -1), k.name))
    return sorted(kernels, key=lambda k: (-(k.time.total_us if k.time else -1.0), k.compile_id, k.id))


def fused_short(kernel: Kernel, width: int = 40) -> str:
    if kernel.fused_nodes:
        text = ", ".join(kernel.fused_nodes)
    elif kernel.language == "extern":
        text = str(kernel.meta.get("op") or kernel.name)
    else:
        return "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def _us(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 10_000:
        return f"{value / 1000:.1f}ms"
    return f"{value:.1f}us"


def isolated_text(fig: Isolated | None) -> str:
    """An isolated median per call with its sample count; "not measured" where absent."""
    if fig is None:
        return "not measured"
    flag = " few" if fig.few else ("" if fig.stable else " unstable")
    return f"{_us(fig.median_us)} n={fig.n}{flag}"


def render_kernels(kernels: list[Kernel], *, sort: str = "time", bench: BenchResults | None = None) -> str:
    bench = bench if bench is not None else BenchResults()
    header = (
        "kernel",
        "frame",
        "kind",
        "fused ops",
        "calls",
        "mean",
        "total",
        "share",
        "isolated",
        "% limit",
    )
    rows = [header]
    for k in kernel_rows(kernels, sort):
        t = k.time
        iso = bench.primary(k.rank, k.compile_id, k.graph_kind, k.name)
        frame = k.compile_id + (" bwd" if k.graph_kind.endswith("_backward") else "")
        if k.rank is not None:
            frame = f"r{k.rank} {frame}"
        rows.append(
            (
                cut_middle(_clean(k.name), NAME_WIDTH),  # a name's kind and number are at its ends
                _clean(frame),
                _clean(f"{k.language}/{k.kind}" if k.language != "extern" else "extern"),
                _clean(fused_short(k)),
                str(t.calls) if t else "-",
                _us(t.mean_us) if t else "-",
                _us(t.total_us) if t else "-",
                f"{t.share * 100:.1f}%" if t and t.share is not None else "-",
                isolated_text(iso),
                limit_text(roofline(k, bench)),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    right = {4, 5, 6, 7, 8, 9}
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    timed = sum(1 for k in kernels if k.time)
    lines.append("")
    lines.append(
        f"{len(kernels)} kernels, {timed} timed"
        + ("" if timed else " (run without --no-timings to measure them)")
    )
    lines.append(_bench_line(bench))
    if any(limit_text(roofline(k, bench)).endswith("*") for k in kernels):
        lines.append(OVER_LIMIT)
    return "\n".join(lines)


def _bench_line(bench: BenchResults) -> str:
    """Where the isolated column and the roofline come from."""
    run = bench.run
    if run is None:
        return "isolated: not measured (inspectc bench R re-runs each kernel in isolation)"
    limit = f", limit {run.bandwidth_gbps:.0f} GB/s ({run.bandwidth_method})" if run.bandwidth_gbps else ""
    errors = f", {len(run.errors)} modules not measured" if run.errors else ""
    return f"isolated: inspectc bench on {run.device or 'an unknown device'}{limit}{errors}"


def cmd_kernels(args: argparse.Namespace) -> int:
    with open_report(args.report) as report:
        kernels = report.kernels
        if args.frame:
            kernels = [k for k in kernels if k.compile_id == args.frame]
            if not kernels and report.frame(args.frame) is None:
                from inspectc.errors import UsageError

                known = ", ".join(f.compile_id for f in report.frames[:20])
                raise UsageError(f"no frame {args.frame} in {args.report} (frames: {known})")
        print(render_kernels(kernels, sort=args.sort, bench=report.bench))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kernels", help="list kernels: what each fused, calls and time")
    p.add_argument("report")
    p.add_argument("--frame", help="only this compiled frame (compile id, e.g. 0/1)")
    p.add_argument("--sort", choices=SORTS, default="time")
    p.set_defaults(func=cmd_kernels)
