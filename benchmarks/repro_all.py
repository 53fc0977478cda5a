"""Run ``inspectc repro`` for every Triton (or C++) kernel of a report and compare with the run.

    python benchmarks/repro_all.py REPORT --out DIR [--deadline-s 400] [--ncu N]

For each timed kernel: writes the standalone script (``inspectc repro``), imports it in this
process (one torch import for all) and calls its ``measure()``: the kernel runs alone on the
recorded launch; its device time per launch under torch.profiler is set beside the in-run
median of the report. Writes ``DIR/repro_table.md`` and ``DIR/repro.json``; with ``--ncu N``,
the N kernels with the most in-run time also run under Nsight Compute
(``--clock-control none``, one launch) into ``DIR/ncu.md``. Also packs the smallest kernel's
stages into ``DIR/ir_fixture.tar.gz`` (the parser's recorded test data).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
from pathlib import Path

from inspectc.model.kernel_detail import occupancy
from inspectc.render.repro import DEFAULT_METHOD, render_script, spec_for
from inspectc.store.reader import Report

START = time.monotonic()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--out", required=True)
    parser.add_argument("--deadline-s", type=float, default=400.0)
    parser.add_argument("--ncu", type=int, default=0)
    parser.add_argument("--language", default="triton")
    parser.add_argument("--scripts", help="folder for the scripts (default: OUT/scripts)")
    parser.add_argument("--methods", default="all", help="comma-separated timing methods (default all)")
    parser.add_argument("--only", help="only the kernels whose name matches this regular expression")
    parser.add_argument("--table", action="store_true", help="only write the table again from OUT/repro.json")
    parser.add_argument(
        "--min-us", type=float, default=0.0, help="only kernels whose in-run median per launch is over this"
    )
    opts = parser.parse_args()
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    if opts.table:
        (out / "repro_table.md").write_text(table(json.loads((out / "repro.json").read_text())))
        return 0
    methods = "all" if opts.methods == "all" else tuple(opts.methods.split(","))
    scripts = Path(opts.scripts) if opts.scripts else out / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    report = Report(opts.report)
    kernels = [k for k in report.kernels if k.language == opts.language and k.time is not None]
    if opts.only:
        kernels = [k for k in kernels if re.search(opts.only, k.name)]
    seen: set[str] = set()
    rows = []
    for k in sorted(kernels, key=lambda k: -(k.time.total_us if k.time else 0)):
        if time.monotonic() - START > opts.deadline_s:
            rows.append({"name": k.name, "error": "deadline"})
            continue
        source = report.kernel_source(k)
        key = k.name + str(hash(source))
        if key in seen:
            continue
        seen.add(key)
        row: dict = {"name": k.name, "frame": str(k.compile_id), "graph": k.graph_kind}
        detail = report.kernel_detail(k)
        if detail is not None:
            occ = occupancy(detail)
            row.update(
                regs=detail.n_regs,
                spills=detail.n_spills,
                shared=detail.shared,
                warps=detail.num_warps,
                stages=",".join(sorted(detail.stages)),
                occupancy=f"{occ.fraction:.0%} ({occ.limited_by})" if occ else None,
                launches=len(detail.launches),
            )
        try:
            spec = spec_for(report, k)
            if (spec.in_run_median_us or 0) <= opts.min_us:
                continue
            row["launch_source"] = spec.launch.source
            path = scripts / f"r{len(rows):03d}_{k.name[:60]}.py"
            path.write_text(render_script(spec, report_name=Path(opts.report).name, compile_id=k.compile_id))
            row["script"] = str(path)
            mod_spec = importlib.util.spec_from_file_location(f"repro_{len(rows)}", path)
            assert mod_spec is not None and mod_spec.loader is not None
            module = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(module)
            row.update(module.measure(100, methods=methods))
        except Exception as exc:  # noqa: BLE001 - one kernel's failure is a row, not the end
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            row["trace"] = traceback.format_exc()[-800:]
        rows.append(row)
        print(json.dumps({k2: v for k2, v in row.items() if k2 != "trace"}), flush=True)
    (out / "repro.json").write_text(json.dumps(rows, indent=1))
    (out / "repro_table.md").write_text(table(rows))
    print(table(rows))
    fixture(report, out)
    if opts.ncu and shutil.which("ncu"):
        (out / "ncu.md").write_text(
            ncu_table([r for r in rows if r.get("script")][: opts.ncu], opts.deadline_s + 60)
        )
    elif opts.ncu:
        (out / "ncu.md").write_text("ncu: not on PATH\n")
    return 0


COLUMNS = (  # method, key in the script's figures
    ("bracket warm", "bracket_warm_us"),
    ("bracket cold", "bracket_cold_us"),
    ("queued", "queued_us"),
    ("fed", "fed_us"),
    ("warm", "profiler_us"),
    ("cold", "profiler_cold_us"),
    ("mixed", "mixed_us"),
    ("mixed_cold", "mixed_cold_us"),
    ("cold_noise", "cold_noise_us"),
    ("rotate", "rotate_us"),
    ("flow", "flow_us"),
    ("do_bench", "do_bench_us"),
)


def table(rows: list[dict]) -> str:
    for r in rows:  # the bracket's ends as columns
        if r.get("bracket_us"):
            r["bracket_warm_us"], r["bracket_cold_us"] = r["bracket_us"]
    heads = " | ".join(f"{m} µs" for m, _ in COLUMNS)
    lines = [
        f"| kernel | frame | in-run median µs | {heads} | in bracket (ratio) | regs | warps | occupancy | grid / block |",
        "|" + "---|" * (9 + len(COLUMNS) - 1),
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | error: {r['error'][:120]} |")
            continue
        cells = " | ".join(_f(r.get(key)) for _, key in COLUMNS)
        gb = r.get("grid_block") or {}
        lines.append(
            f"| {r['name']} | {r.get('frame')} | {_f(r.get('in_run_median_us'))} | {cells}"
            f" | {_inside(r)} | {r.get('regs')} | {r.get('warps')}"
            f" | {r.get('occupancy')} | {gb.get('grid')} / {gb.get('block')} |"
        )
    lines.append("")
    ran = [r for r in rows if "error" not in r]
    lines.append(f"{len(ran)} of {len(rows)} kernels ran; the scripts' default method: {DEFAULT_METHOD}.")
    for m, key in COLUMNS:
        n = sum(within(r, key) for r in ran)
        ratios = [r[key] / r["in_run_median_us"] for r in ran if r.get(key) and r.get("in_run_median_us")]
        med = sorted(ratios)[len(ratios) // 2] if ratios else None
        lines.append(f"- {m}: {n} of {len(ran)} within 15% of the in-run median; median ratio {_f(med)}")
    return "\n".join(lines + [""] + bracket_summary(ran)) + "\n"


def bracket_summary(ran: list[dict]) -> list[str]:
    """How many in-run medians lie inside the bracket (its margin), the kernels outside with
    their ratio to the nearer end, and whether ``flow`` is nearer the run than ``rotate``."""
    judged = [r for r in ran if "in_bracket" in r]
    if not judged:
        return []
    inside = sum(bool(r["in_bracket"]) for r in judged)
    out = [f"**bracket: {inside} of {len(judged)} in-run medians inside** (L2 warm .. L2 cold, 10% margin)"]
    for r in judged:
        if not r["in_bracket"]:
            low, high = r["bracket_us"]
            out.append(
                f"- outside: {r['name']} ({r.get('frame')}): in-run {r['in_run_median_us']:.2f} µs,"
                f" bracket {low:.2f} .. {high:.2f} µs, ratio to the nearer end {r['bracket_ratio']:.2f}"
            )
    both = [r for r in judged if r.get("flow_us") and r.get("rotate_us")]
    if both:

        def gap(r: dict, key: str) -> float:
            return abs(r[key] / r["in_run_median_us"] - 1.0)

        nearer = sum(gap(r, "flow_us") < gap(r, "rotate_us") for r in both)
        flow15 = sum(gap(r, "flow_us") <= 0.15 for r in both)
        rot15 = sum(gap(r, "rotate_us") <= 0.15 for r in both)
        mean = {k: sum(gap(r, k) for r in both) / len(both) for k in ("flow_us", "rotate_us")}
        out.append(
            f"flow vs rotate on {len(both)} kernels: flow nearer the in-run median for {nearer};"
            f" within 15%: flow {flow15}, rotate {rot15}; mean |ratio - 1|: flow {mean['flow_us']:.3f},"
            f" rotate {mean['rotate_us']:.3f}"
        )
    return out


def _inside(r: dict) -> str:
    if "in_bracket" not in r:
        return "-"
    return f"{'yes' if r['in_bracket'] else 'no'} ({r['bracket_ratio']:.2f})"


def within(r: dict, key: str, tolerance: float = 0.15) -> bool:
    run, got = r.get("in_run_median_us"), r.get(key)
    return bool(run and got and abs(got / run - 1.0) <= tolerance)


def _f(v: object) -> str:
    return f"{v:.2f}" if isinstance(v, float) else ("-" if v is None else str(v))


def fixture(report: Report, out: Path) -> None:
    details = [d for d in report.kernel_details() if {"ttir", "ttgir", "ptx"} <= set(d.stages)]
    if not details:
        return
    small = min(details, key=lambda d: sum(len(t) for t in d.stages.values()))
    with tarfile.open(out / "ir_fixture.tar.gz", "w:gz") as tar:
        files = {f"{small.name}.{stage}": text for stage, text in small.stages.items()}
        files[f"{small.name}.py"] = small.python_source or ""
        files["meta.json"] = json.dumps({"name": small.name, "python_file": small.python_file})
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def ncu_table(rows: list[dict], deadline: float) -> str:
    metrics = "gpu__time_duration.sum,dram__bytes.sum"
    lines = [
        "| kernel | ncu gpu__time_duration µs | ncu dram bytes | ncu GB/s | repro µs (profiler) | in-run median µs |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if time.monotonic() - START > deadline:
            lines.append(f"| {r['name']} | deadline |||||")
            continue
        cmd = [
            "ncu", "--clock-control", "none", "--metrics", metrics, "-k", f"regex:^{r['name']}$",
            "--launch-skip", "1", "--launch-count", "1", "--csv", sys.executable, r["script"], "--once",
        ]  # fmt: skip
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=120, check=False, env=os.environ
            )
        except subprocess.TimeoutExpired:
            lines.append(f"| {r['name']} | timeout |||||")
            continue
        values = _ncu_values(done.stdout)
        t_ns = values.get("gpu__time_duration.sum")
        dram = values.get("dram__bytes.sum")
        if t_ns is None:
            lines.append(f"| {r['name']} | failed: {(done.stderr or done.stdout)[-160:]!r} |||||")
            continue
        gbps = dram / t_ns if dram is not None and t_ns else None
        lines.append(
            f"| {r['name']} | {t_ns / 1000:.2f} | {dram} | {_f(gbps)} | {_f(r.get('profiler_us'))} | {_f(r.get('in_run_median_us'))} |"
        )
    return "\n".join(lines) + "\n"


def _ncu_values(text: str) -> dict[str, float]:
    start = text.find('"ID"')
    if start < 0:
        return {}
    values: dict[str, float] = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        name, unit, value = row.get("Metric Name"), row.get("Metric Unit", ""), row.get("Metric Value", "")
        try:
            number = float(str(value).replace(",", ""))
        except ValueError:
            continue
        scale = {
            "usecond": 1000.0,
            "msecond": 1e6,
            "nsecond": 1.0,
            "second": 1e9,
            "Kbyte": 1e3,
            "Mbyte": 1e6,
            "Gbyte": 1e9,
            "byte": 1.0,
        }
        if name:
            values[name] = number * scale.get(unit or "", 1.0)
    return values


if __name__ == "__main__":
    sys.exit(main())
