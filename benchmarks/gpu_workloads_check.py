"""Check one report of ``benchmarks/gpu_workloads.sh`` and print what it shows. No torch.

    python benchmarks/gpu_workloads_check.py ROW REPORT EXIT_CODE WALL_S

Prints ``CHECK PASS|FAIL <what>`` lines, a few ``INFO`` lines with the figures, and a last
``ROW <PASS|FAIL>|<one-line summary>`` line that the shell script puts in its table.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from inspectc.model import Frame
from inspectc.store.open import open_report
from inspectc.store.reader import Report


class Row:
    def __init__(self, report: Report) -> None:
        self.report = report
        self.frames = report.frames
        self.kernels = report.kernels
        self.failed = 0
        self.details: list[str] = []

    def check(self, ok: bool, what: str) -> None:
        print(f"CHECK {'PASS' if ok else 'FAIL'} {what}")
        self.failed += not ok

    def info(self, text: str) -> None:
        print(f"INFO  {text}")

    @property
    def triton(self) -> int:
        return sum(1 for k in self.kernels if k.language == "triton")


def _us(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1000:.2f}ms" if value >= 1000 else f"{value:.1f}us"


def _region(f: Frame) -> str:
    if f.region_time_us is None or not f.region_calls:
        return "not measured"
    return f"{_us(f.region_time_us / f.region_calls)}/call over {f.region_calls} calls"


def sin_sin(row: Row) -> None:
    row.check(len(row.frames) == 1, f"one frame ({len(row.frames)})")
    row.check(len(row.kernels) == 1 and row.triton == 1, f"one Triton kernel ({len(row.kernels)} kernels)")
    if row.kernels:
        k = row.kernels[0]
        source = row.report.kernel_source(k)
        row.check("@triton.jit" in source and source.count("sin(") >= 2, f"{k.name}: source has two sin()")
        t = f"{_us(k.time.mean_us)} mean over {k.time.calls} calls" if k.time else "no kernel timing"
        row.info(f"{k.name}: {k.source_size} chars of Triton source, {t}")
        row.details.append(f"{k.name} {t}")


def reduce_overhead(row: Row) -> None:
    recorded = [f for f in row.frames if f.cudagraphs is not None and f.cudagraphs.recorded]
    row.check(bool(recorded), f"frames recorded as CUDA graphs: {len(recorded)}/{len(row.frames)}")
    for f in row.frames:
        graphs = f.cudagraphs
        state = f"recorded x{graphs.recorded}" if graphs is not None and graphs.recorded else "not recorded"
        skip = f", skipped: {f.cudagraph_skip_reason.splitlines()[0]}" if f.cudagraph_skip_reason else ""
        row.info(f"{f.compile_id} {f.function}(): {state}{skip}; {f.kernel_count} kernels, {_region(f)}")
    row.details.append(f"cudagraphs in {len(recorded)}/{len(row.frames)} frames")


def max_autotune(row: Row) -> None:
    tuned = [e for f in row.frames for e in f.autotuning]
    row.check(bool(tuned), f"autotuned ops: {len(tuned)}")
    row.check(
        all((e.num_choices or 0) >= 2 and e.choices for e in tuned),
        "every op lists its benchmarked choices",
    )
    row.check(any((e.num_triton_choices or 0) > 0 for e in tuned), "Triton templates among the choices")
    for e in tuned:
        top = ", ".join(f"{c.name} {c.ms:.4f}ms" for c in e.choices[:3] if c.ms is not None)
        triton = "?" if e.num_triton_choices is None else e.num_triton_choices
        row.info(
            f"{e.op}({e.shapes}): {e.num_choices} choices ({triton} Triton)"
            f" in {'?' if e.seconds is None else e.seconds}s; best: {top}"
        )
    if tuned:
        e = tuned[0]
        row.details.append(f"{len(tuned)} ops, {e.num_choices} choices, picked {e.best}")


def timm(row: Row) -> None:
    kinds = {k for f in row.frames for k in f.graph_kinds}
    row.check(len(row.frames) >= 2, f"forward and training frames ({len(row.frames)})")
    row.check({"aot_backward", "output_code_backward"} <= kinds, "backward graph and its kernels")
    row.check(row.triton > 10, f"Triton kernels: {row.triton}")
    for f in row.frames:
        row.info(
            f"{f.compile_id} {f.function}(): {f.kernel_count} kernels, compile {f.metrics.entire_frame_s}s, {_region(f)}"
        )
    _top_kernels(row)


def hf_bert(row: Row) -> None:
    row.check(len(row.frames) == 1 and row.frames[0].status == "ok", "one frame, ok")
    row.check(row.triton > 3, f"Triton kernels: {row.triton}")
    _top_kernels(row)


def hf_generate(row: Row) -> None:
    recompiled = [f for f in row.frames if f.recompiles]
    row.check(len(row.frames) >= 3, f"frames across generation steps: {len(row.frames)}")
    row.check(len(recompiled) >= 2, f"recompiles: {len(recompiled)}")
    row.check(all(r.guard for f in recompiled for r in f.recompiles), "each recompile names its guard")
    dynamic = [f for f in row.frames if f.symbolic_shapes is not None and f.symbolic_shapes.symbols]
    row.check(bool(dynamic), "a recompile made sizes dynamic (symbols)")
    for f in recompiled:
        row.info(f"{f.compile_id}: {f.recompiles[0].guard} (guard of {f.recompiles[0].earlier_compile_id})")
    row.details.append(f"{len(recompiled)} recompiles, dynamic in {len(dynamic)} frame(s)")


def hf_pipeline(row: Row) -> None:
    row.check(
        len(row.frames) >= 2 and row.triton > 3, f"frames {len(row.frames)}, Triton kernels {row.triton}"
    )


def dynamic(row: Row) -> None:
    row.check(len(row.frames) == 1, f"one compile for three sizes ({len(row.frames)} frames)")
    shapes = row.frames[0].symbolic_shapes if row.frames else None
    row.check(bool(shapes and shapes.symbols), "symbols recorded")
    if shapes:
        names = ", ".join(f"{s.symbol}={s.source}" for s in shapes.symbols)
        row.info(f"symbols: {names}; guards: {[g.expr for g in shapes.guards][:5]}")
        row.details.append(f"{len(shapes.symbols)} symbols, {len(shapes.guards)} shape guards")


def _top_kernels(row: Row) -> None:
    timed = sorted((k for k in row.kernels if k.time), key=lambda k: -(k.time.total_us if k.time else 0))
    for k in timed[:5]:
        assert k.time is not None
        row.info(f"kernel {k.name} [{k.language}] {_us(k.time.mean_us)} mean x{k.time.calls}")
    if not timed:
        row.info("no kernel timings in this report")


CHECKS: dict[str, Callable[[Row], None]] = {
    "sin_sin": sin_sin,
    "reduce_overhead": reduce_overhead,
    "max_autotune": max_autotune,
    "timm_resnet18": timm,
    "timm_resnext26ts": timm,
    "hf_bert": hf_bert,
    "hf_generate": hf_generate,
    "hf_pipeline": hf_pipeline,
    "dynamic": dynamic,
}


def main() -> int:
    name, path, exit_code, wall = sys.argv[1:5]
    with open_report(path) as report:
        row = Row(report)
        row.check(exit_code == "0", f"the sample exited {exit_code}")
        if report.run.capture_errors:
            row.info(f"capture errors: {list(report.run.capture_errors)[:3]}")
        CHECKS[name](row)
        compile_s = sum(f.metrics.entire_frame_s or 0.0 for f in row.frames)
        kernel_us = sum(k.time.total_us for k in row.kernels if k.time)
        calls = max((k.time.calls for k in row.kernels if k.time), default=0)
        summary = (
            f"exit {exit_code} · {wall}s · {len(row.frames)} frames · "
            f"{sum(len(f.graph_breaks) for f in row.frames)} breaks · "
            f"{sum(1 for f in row.frames if f.recompiles)} recompiles · "
            f"{len(row.kernels)} ({row.triton}) · {compile_s:.1f}s · "
            f"{_us(kernel_us) if calls else '-'}"
            + (f" over {calls} calls" if calls else "")
            + (f" · {'; '.join(row.details)}" if row.details else "")
        )
        print(f"ROW {'PASS' if not row.failed else 'FAIL'}|{summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
