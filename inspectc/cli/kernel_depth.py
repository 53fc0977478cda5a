"""``inspectc repro R KERNEL`` and ``inspectc ir R KERNEL``: one kernel, deeper. No torch.

``repro`` writes a standalone script (``render/repro.py``). ``ir`` prints what the kernel
compiled to: the compile metadata, the occupancy estimate, the launches, one stage
(``--stage ttir|ttgir|llir|ptx|sass``) and, with ``--line N``, the stage lines of the
kernel's Python line N, or with ``--stage-line N`` the way back from line N of the stage to
the Python line, the FX node and the user's line (``model/linechain``); a C++ kernel shows its
source, compile command and vector ISA.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from inspectc.cli import tty
from inspectc.errors import UsageError
from inspectc.model.irmap import STAGES, line_map
from inspectc.render.compiled import cpp_lines, detail_lines

if TYPE_CHECKING:
    from inspectc.model import Kernel
    from inspectc.model.kernel_detail import KernelDetail
    from inspectc.store.reader import Report


def _is_repro(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return '"""Standalone repro of ' in fh.read(200)
    except OSError:
        return False


def cmd_repro(args: argparse.Namespace) -> int:
    from inspectc.cli.output import check_output, write_output
    from inspectc.render.repro import find_kernel, render_script, spec_for

    to_file = bool(args.output) and args.output != "-"
    if to_file:
        check_output(args.output, what="repro script", ours=_is_repro, inputs=[args.report], devices=True)
    with tty.read(args.report) as report:
        kernel = find_kernel(report, args.kernel)
        spec = spec_for(report, kernel)
        text = render_script(spec, report_name=Path(args.report).name, compile_id=kernel.compile_id)
    if to_file:
        write_output(args.output, text.encode("utf-8"), what="repro script")
        tty.err(f"wrote {args.output}: python {args.output} runs {kernel.name} alone")
    else:
        tty.out(text, end="")  # a no-op: the script holds report text only as inert literals
    return 0


def cmd_ir(args: argparse.Namespace) -> int:
    from inspectc.render.repro import find_kernel

    with tty.read(args.report) as report:
        kernel = find_kernel(report, args.kernel)
        out = [f"{kernel.name} ({kernel.language}, frame {kernel.compile_id})"]
        if kernel.language == "cpp":
            out += cpp_lines(kernel, report.cpu_build())
            out += ["", report.kernel_source(kernel)]
            tty.out("\n".join(out).replace("\r\n", "\n"))
            return 0
        detail = report.kernel_detail(kernel)
        if detail is None:
            raise UsageError(
                f"{kernel.name}: no compiled stages recorded"
                " (a library kernel, or a capture without Triton or older than kernel detail)"
            )
        out += detail_lines(detail)
        t = kernel.time
        if t is not None:  # the launches beside the time they took in the run
            per = f", {t.launches} launches a call" if t.launches and t.launches > 1 else ""
            typical = t.median_us if t.median_us is not None else t.mean_us
            out.append(
                f"in-run: median {typical:.2f} µs a call over {t.calls} calls{per} (torch.profiler device time)"
            )
        from inspectc.analysis.roofline import read_bytes, roofline
        from inspectc.render.roofline import detail_text, peaks_text

        reads = read_bytes(detail)  # the same figure as `kernels`, share and the TUI
        if reads is not None:
            out.append(f"reads: {reads / 1e6:,.2f} MB, the input tensors of the recorded launch")
        out.append(detail_text(roofline(kernel, report.bench, reads)))
        if report.bench.run is not None:  # the ceilings the figure uses, stated per device
            out.append(peaks_text(report.bench.run.device))
        stage = args.stage
        if stage is not None:
            text = detail.stages.get(stage)
            if text is None:
                raise UsageError(
                    f"{kernel.name}: stage {stage} not recorded ({detail.missing.get(stage, 'absent')})"
                )
            if args.stage_line is not None:
                out += ["", *_chain_lines(report, kernel, detail, stage, args.stage_line)]
            elif args.line is not None:
                mapping = line_map(stage, text, detail.python_file)
                rows = text.splitlines()
                # without the file, the output code's span: its lines number as the file's
                src = (detail.python_source or report.kernel_source(kernel)).splitlines()
                py = src[args.line - 1].strip() if 0 < args.line <= len(src) else "?"
                out += ["", f"python line {args.line}: {py}"]
                out += [f"{n:6d}  {rows[n - 1]}" for n in mapping.get(args.line, [])] or ["  (no stage line)"]
            else:
                out += ["", text]
    tty.out("\n".join(out).replace("\r\n", "\n"))
    return 0


def _chain_lines(report: Report, kernel: Kernel, detail: KernelDetail, stage: str, number: int) -> list[str]:
    """Stage line *number* -> the kernel's Python line -> the FX node(s) -> the user's line."""
    from inspectc.model import fxgraph
    from inspectc.model.linechain import chain

    rows = detail.stages[stage].splitlines()
    if not 0 < number <= len(rows):
        raise UsageError(f"--stage-line {number}: the {stage} of this kernel has {len(rows)} lines")
    kind = kernel.graph_kind
    post = report.graph(kernel.compile_id, kind.replace("output_code", "post_grad"))
    code = report.graph(kernel.compile_id, kind) or ""
    found = chain(stage, number, detail, kernel.fused_nodes, fxgraph.parse(post), code)
    out = [f"{stage} line {number}: {rows[number - 1].strip()}"]
    if found.python_line is None:
        return out + ["  -> no Python line (the stage names none for this line)"]
    out.append(f"  -> python line {found.python_line}: {found.python_text}")
    if not found.nodes:
        return out + [f"  -> {found.how}"]
    if post is None:
        out.append("  (post-grad graph not recorded: no user line)")
    for n in found.nodes:
        kind_text = "graph input" if n.target == n.node else n.target
        out.append(f"  -> FX node {n.node} ({kind_text}; {found.how})")
        if n.line is not None:
            out.append(f"  -> user line {n.filename}:{n.line}: {n.code or ''}")
        else:
            out.append("  -> user line: not recorded for this node")
    return out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("repro", help="write a standalone script that runs one kernel alone and times it")
    p.add_argument("report")
    p.add_argument("kernel", help="kernel name (name@compile_id where names repeat)")
    p.add_argument("-o", "--output", help="write the script here instead of stdout")
    p.set_defaults(func=cmd_repro)
    p = sub.add_parser("ir", help="a kernel's compiled stages, metadata, occupancy and launches")
    p.add_argument("report")
    p.add_argument("kernel")
    p.add_argument("--stage", choices=STAGES, help="print this stage")
    p.add_argument("--line", type=int, help="with --stage: only the lines of this Python line of the kernel")
    p.add_argument(
        "--stage-line",
        type=int,
        help="with --stage: this line of the stage -> its Python line -> FX node -> user line",
    )
    p.set_defaults(func=cmd_ir)
