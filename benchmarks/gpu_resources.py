"""What ``inspectc ir`` shows of every Triton kernel of a report beside cuobjdump and Nsight Compute.

    python benchmarks/gpu_resources.py REPORT --out DIR --label gpt2 [--from-csv]
    python benchmarks/gpu_resources.py --launch SCRIPT...   (what ncu runs: each kernel twice)

For every Triton kernel with a recorded detail: its registers, spills, shared memory and
occupancy as ``ir`` prints them (``model/kernel_detail``), beside

- ``cuobjdump --dump-resource-usage`` of the cubin Triton wrote (``TRITON_CACHE_DIR/<cache_hash>``):
  REG, STACK, LOCAL, SHARED;
- one ``ncu --clock-control none`` run over every kernel's ``inspectc repro`` script (each
  launched twice in one process, the later launch kept; caches flushed, ncu's default):
  ``launch__registers_per_thread``, ``launch__shared_mem_per_block_{static,dynamic,driver}``,
  the occupancy limits, theoretical (``sm__maximum_warps_per_active_cycle_pct``) and achieved
  (``sm__warps_active.avg.pct_of_peak_sustained_active``) occupancy, and the DRAM figures;
- the roofline: ``analysis/roofline.roofline`` (the % of DRAM limit ``kernels`` and ``ir`` show)
  beside ncu's ``dram__throughput.avg.pct_of_peak_sustained_elapsed`` for the 10 kernels with the
  longest in-run time per launch.

Writes DIR/resources_LABEL.json (every figure), DIR/resources_LABEL.md (the tables) and keeps
ncu's CSV (DIR/ncu_res_LABEL.csv) so ``--from-csv`` rebuilds the tables without a GPU.

Each kernel's row also says which binary each figure is of (``benchmarks/gpu_regs.py``): the
launch config ``ir`` read (warps, stages, block sizes, among how many candidates), the repro's
own launcher in the process ncu profiled (config, ``n_regs``, ``cache_hash``, and the driver's
register count and blocks per SM), every cubin of the name in Triton's cache, and, with
``--tuners FILE`` (``GPU_MODELS_TUNERS``), the run's own autotuner at its end; the registers
column names the verdict (ncu reports 16 for a kernel that uses fewer: its allocation).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from gpu_regs import (
    agrees,
    cubin_path,
    cuobjdump,
    differences,
    launch_config,
    probe_repro,
    probes,
    ptx_calls,
    raw_details,
    regs_verdict,
    tuner_for,
    variants,
)

from inspectc.analysis.roofline import read_bytes, roofline, write_bytes
from inspectc.model.kernel_detail import KernelDetail, achieved_estimate, grid_of, occupancy
from inspectc.render.repro import render_script, spec_for
from inspectc.store.reader import Report

METRICS = (
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_driver",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__grid_size",
    "launch__block_size",
    "launch__waves_per_multiprocessor",
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__bytes.sum.peak_sustained",
    "dram__cycles_elapsed.avg.per_second",
)
# the issue's own metrics and round 7's: tried alone if the full list is refused
FALLBACK_METRICS = (
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
)
# to bytes and nanoseconds, where ncu chose a larger unit despite --print-units base
_TO_BASE = {"Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "usecond": 1e3, "msecond": 1e6, "second": 1e9}


def launch_all(paths: list[str]) -> int:
    """Import each repro script and launch its kernel twice; one line per script on stderr."""
    for i, path in enumerate(paths):
        try:
            spec = importlib.util.spec_from_file_location(f"repro_res_{i}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            kept: list = []
            load = getattr(module, "load_triton", None)
            if load is not None:  # keep the repro's autotuner: which binary it launched

                def keep(load=load, kept=kept):  # type: ignore[no-untyped-def]
                    kept.append(load())
                    return kept[-1]

                module.load_triton = keep
            module.measure(once=True)
            print(f"LAUNCHED {i}", file=sys.stderr, flush=True)
            if kept:
                print(f"REPRO {i} {json.dumps(probe_repro(kept[0]))}", file=sys.stderr, flush=True)
        except Exception as exc:  # noqa: BLE001 - one kernel's failure, the rest still run
            print(f"FAILED {i} {type(exc).__name__}: {exc}"[:300], file=sys.stderr, flush=True)
    return 0


def run_ncu(scripts: list[str], csv_path: Path, metrics: tuple[str, ...], timeout: float) -> str:
    names = sorted({Path(s).stem.split("__", 1)[1] for s in scripts})
    cmd = [
        "ncu", "--clock-control", "none", "--print-units", "base", "--csv", "--metrics", ",".join(metrics),
        "-k", f"regex:^({'|'.join(names)})$", sys.executable, __file__, "--launch", *scripts,
    ]  # fmt: skip
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=False, env=os.environ
        )  # noqa: S603
        text = done.stdout + "\n#stderr\n" + done.stderr[-50_000:]
    except subprocess.TimeoutExpired as exc:
        text = str(exc.stdout or "") + "\n#stderr\ntimeout\n"
    csv_path.write_text(text)
    return text


def parse_ncu(text: str) -> list[tuple[str, dict[str, float]]]:
    """(kernel name, metric -> value in base units) per profiled launch, in launch order."""
    body = text.split("\n#stderr\n")[0]
    start = body.find('"ID"')
    if start < 0:
        return []
    per_id: dict[int, tuple[str, dict[str, float]]] = {}
    for row in csv.DictReader(io.StringIO(body[start:])):
        try:
            ident = int(row.get("ID", ""))
            value = float(str(row.get("Metric Value", "")).replace(",", ""))
        except ValueError:
            continue
        name, metrics = per_id.setdefault(ident, (row.get("Kernel Name", ""), {}))
        metrics[str(row.get("Metric Name"))] = value * _TO_BASE.get(row.get("Metric Unit") or "", 1.0)
    return [per_id[i] for i in sorted(per_id)]


def assign(scripts: list[str], text: str) -> dict[str, dict[str, float]]:
    """Script -> ncu's figures of its later launch: launches are matched in order to the scripts
    that said LAUNCHED (two launches each, by kernel name)."""
    stderr = text.split("\n#stderr\n", 1)[1] if "\n#stderr\n" in text else ""
    launched = [scripts[int(m)] for m in re.findall(r"^LAUNCHED (\d+)", stderr, re.MULTILINE)]
    rows = parse_ncu(text)
    out: dict[str, dict[str, float]] = {}
    i = 0
    for script in launched:
        name = Path(script).stem.split("__", 1)[1]
        mine = []
        while i < len(rows) and rows[i][0] == name and len(mine) < 2:
            mine.append(rows[i][1])
            i += 1
        if mine:
            out[script] = mine[-1]
    return out


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--launch":
        return launch_all(sys.argv[2:])
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--out", required=True)
    p.add_argument("--label", default="kernels")
    p.add_argument("--from-csv", action="store_true", help="no ncu run: read OUT/ncu_res_LABEL.csv")
    p.add_argument("--top", type=int, default=10, help="kernels of the roofline table")
    p.add_argument("--ncu-timeout", type=float, default=420.0)
    p.add_argument("--tuners", help="gpu_models.py's GPU_MODELS_TUNERS file: the run's own autotuners")
    opts = p.parse_args()
    out = Path(opts.out)
    scripts_dir = out / f"scripts_{opts.label}"
    scripts_dir.mkdir(parents=True, exist_ok=True)
    report = Report(opts.report)
    raw = raw_details(report)
    tuners = json.loads(Path(opts.tuners).read_text()) if opts.tuners and Path(opts.tuners).is_file() else []
    rows, scripts = [], []
    seen: set[tuple[str, str, str]] = set()
    for k in report.kernels:
        if k.language != "triton":
            continue
        detail = report.kernel_detail(k)
        key = (k.name, str(k.compile_id), k.graph_kind)
        if detail is None or key in seen:
            continue
        seen.add(key)
        row = kernel_row(report, k, detail)
        row["raw"] = next(
            (
                {k2: v for k2, v in d.items() if k2 not in ("launches", "missing", "truncated", "device")}
                for d in raw
                if d.get("name") == k.name and d.get("cache_hash") == detail.cache_hash
            ),
            None,
        )
        row["run_tuner"] = tuner_for(tuners, k.name, detail.python_file) if tuners else None
        try:
            spec = spec_for(report, k)
            script = scripts_dir / f"k{len(rows):03d}__{k.name}.py"
            script.write_text(
                render_script(spec, report_name=Path(opts.report).name, compile_id=k.compile_id)
            )
            row["script"] = str(script)
            row["in_run_us"] = spec.in_run_median_us
            scripts.append(str(script))
        except Exception as exc:  # noqa: BLE001 - a row that says why
            row["script_error"] = f"{type(exc).__name__}: {exc}"[:200]
        rows.append(row)
    csv_path = out / f"ncu_res_{opts.label}.csv"
    json_path = out / f"resources_{opts.label}.json"
    if opts.from_csv:  # the device's cuobjdump figures, from the run that measured them
        packed = csv_path.with_name(csv_path.name + ".gz")
        text = csv_path.read_text() if csv_path.exists() else gzip.decompress(packed.read_bytes()).decode()
        before = {(r["name"], r["frame"], r["graph"]): r for r in json.loads(json_path.read_text())}
        for row in rows:
            old = before.get((row["name"], row["frame"], row["graph"])) or {}
            for key in ("cuobjdump", "variants", "run_tuner"):
                row[key] = row.get(key) or old.get(key)
    elif shutil.which("ncu") and scripts:
        t0 = time.monotonic()
        text = run_ncu(scripts, csv_path, METRICS, opts.ncu_timeout)
        if not parse_ncu(text) and time.monotonic() - t0 < opts.ncu_timeout / 2:
            print("ncu refused the full metric list; again with", FALLBACK_METRICS, file=sys.stderr)
            text = run_ncu(scripts, csv_path, FALLBACK_METRICS, opts.ncu_timeout - (time.monotonic() - t0))
        print(f"ncu: {time.monotonic() - t0:.0f} s for {len(scripts)} scripts", file=sys.stderr)
    else:
        text = ""
    figures = assign(scripts, text) if text else {}
    probed = probes(scripts, text) if text else {}
    for row in rows:
        row["ncu"] = figures.get(row.get("script", ""), {})
        row["repro"] = probed.get(row.get("script", "")) or row.get("repro")
    json_path.write_text(json.dumps(rows, indent=1))
    md = tables(rows, opts.label, opts.top, report)
    (out / f"resources_{opts.label}.md").write_text(md)
    print(md)
    return 0


def kernel_row(report: Report, k, detail: KernelDetail) -> dict:  # type: ignore[no-untyped-def]
    occ = occupancy(detail)
    grid = grid_of(detail, detail.launches[0]) if detail.launches else None
    reads, writes = read_bytes(detail), write_bytes(detail)
    roof = roofline(k, report.bench, reads)
    cubin = cubin_path(detail)
    return {
        "name": k.name,
        "frame": str(k.compile_id),
        "graph": k.graph_kind,
        "regs": detail.n_regs,
        "num_stages": detail.num_stages,
        "config": detail.config,
        "candidates": detail.candidates,
        "cache_hash": detail.cache_hash,
        "python_file": detail.python_file,
        "variants": variants(detail.name, cuobjdump),
        "ptx_calls": ptx_calls(detail.stages.get("ptx")),
        "spills": detail.n_spills,
        "shared": detail.shared,
        "warps": detail.num_warps,
        "grid": list(grid) if grid else None,
        "occupancy_pct": round(occ.fraction * 100, 2) if occ else None,
        "blocks_per_sm": occ.blocks_per_sm if occ else None,
        "limits": occ.limits if occ else None,
        "limited_by": occ.limited_by if occ else None,
        "achieved_est_pct": _pct(achieved_estimate(detail, occ, grid)) if occ else None,
        "reads": reads,
        "writes": writes,
        "roofline_pct": _pct(roof.fraction) if roof else None,
        "roofline_us": roof.launch_us if roof else None,
        "roofline_gb": roof.gb if roof else None,
        "cuobjdump": cuobjdump(cubin) if cubin else None,
    }


def _pct(v: float | None) -> float | None:
    return None if v is None else round(v * 100, 2)


def tables(rows: list[dict], label: str, top: int, report: Report) -> str:
    run = report.bench.run
    lines = [
        f"# {label}: registers, spills, shared memory, occupancy and DRAM share beside cuobjdump and ncu",
        "",
    ]
    lines.append(
        f"bench device: {run.device if run else 'not benched'}; {len(rows)} Triton kernels with a recorded detail"
    )
    lines += [
        "",
        "| kernel | frame | launch config (warps, stages, block sizes; candidates) | regs ir / cuobjdump / ncu | local B ir / cuobjdump (STACK+LOCAL) | shared B ir / ncu static+dynamic (cuobjdump static) |"
        " occupancy % ir / ncu theoretical | blocks/SM ir / ncu limits (reg, smem, warps, blocks) | achieved % ir estimate / ncu | grid |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    agree = {
        "regs": [0, 0],
        "regs_kernel": [0, 0],
        "local": [0, 0],
        "shared": [0, 0],
        "theoretical": [0, 0],
        "achieved": [0, 0],
    }
    for r in rows:
        n, c = r.get("ncu") or {}, r.get("cuobjdump") or {}
        checks = compare(r, n, c)
        for key, ok in checks.items():
            if ok is not None:
                agree[key][0] += ok
                agree[key][1] += 1
        limits = r.get("limits") or {}
        ncu_limits = ",".join(
            _i(n.get(f"launch__occupancy_limit_{m}")) for m in ("registers", "shared_mem", "warps", "blocks")
        )
        ir_limits = ",".join(_i(limits.get(m)) for m in ("registers", "shared memory", "warps", "blocks"))
        why = regs_verdict(r)
        lines.append(
            f"| {r['name']} | {r['frame']} | {launch_config(r)}"
            f" | {_i(r.get('regs'))} / {_i(c.get('REG'))} / {_i(n.get('launch__registers_per_thread'))}"
            f"{'' if why == 'agree' else f' ({why})'}"
            f" | {_i((r.get('spills') or 0) * 4 if r.get('spills') is not None else None)} / {_i(_local(c))}"
            f" | {_i(r.get('shared'))} / {_i(_shared(n))} ({_i(c.get('SHARED'))})"
            f" | {_f(r.get('occupancy_pct'))} / {_f(n.get('sm__maximum_warps_per_active_cycle_pct'))}"
            f" | {ir_limits} / {ncu_limits}"
            f" | {_f(r.get('achieved_est_pct'))} / {_f(n.get('sm__warps_active.avg.pct_of_peak_sustained_active'))}"
            f" | {r.get('grid')} |"
        )
    lines += ["", "Agreement (kernels with both figures):", ""]
    text = {
        "regs": "registers per thread: ir = cuobjdump REG = ncu launch__registers_per_thread",
        "regs_kernel": "registers per thread: ir = cuobjdump REG, and ncu's equal or the launch's allocation (16 for a kernel that uses fewer, 32 for one that calls a function)",
        "local": "local memory per thread: ir's spills x 4 = cuobjdump STACK + LOCAL",
        "shared": "shared memory per block: ir = ncu static + dynamic",
        "theoretical": "occupancy: ir's estimate within 1 point of ncu's theoretical occupancy",
        "achieved": "achieved occupancy: ir's grid estimate within 10 points of ncu's achieved occupancy",
    }
    for key, (ok, n) in agree.items():
        lines.append(f"- {text[key]}: **{ok} of {n}**")
    lines += ["", differences(rows), "", roof_table(rows, top)]
    return "\n".join(lines) + "\n"


def compare(r: dict, n: dict, c: dict) -> dict[str, bool | None]:
    keys = ("regs", "regs_kernel", "local", "shared", "theoretical", "achieved")
    out: dict[str, bool | None] = dict.fromkeys(keys)
    regs = n.get("launch__registers_per_thread")
    if r.get("regs") is not None and c.get("REG") is not None and regs is not None:
        out["regs"] = r["regs"] == c["REG"] == int(regs)
        out["regs_kernel"] = agrees(regs_verdict(r))
    if r.get("spills") is not None and c:
        out["local"] = r["spills"] * 4 == _local(c)
    if r.get("shared") is not None and _shared(n) is not None:
        out["shared"] = r["shared"] == _shared(n)
    theo = n.get("sm__maximum_warps_per_active_cycle_pct")
    if r.get("occupancy_pct") is not None and theo is not None:
        out["theoretical"] = abs(r["occupancy_pct"] - theo) <= 1.0
    achieved = n.get("sm__warps_active.avg.pct_of_peak_sustained_active")
    if r.get("achieved_est_pct") is not None and achieved is not None:
        out["achieved"] = abs(r["achieved_est_pct"] - achieved) <= 10.0
    return out


def roof_table(rows: list[dict], top: int) -> str:
    ranked = sorted((r for r in rows if r.get("in_run_us")), key=lambda r: -r["in_run_us"])[:top]
    lines = [
        f"## Roofline: the {len(ranked)} kernels with the longest in-run time per launch",
        "",
        "| kernel | in-run µs | isolated µs (bench) | reads MB | writes MB | ncu read MB | ncu write MB | inspectc DRAM % | ncu dram % | within 10 | ncu µs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ok = 0
    for r in ranked:
        n = r.get("ncu") or {}
        ours, theirs = r.get("roofline_pct"), n.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")
        within = ours is not None and theirs is not None and abs(ours - theirs) <= 10
        ok += within
        lines.append(
            f"| {r['name']} | {_f(r['in_run_us'])} | {_f(r.get('roofline_us'))} | {_mb(r.get('reads'))} | {_mb(r.get('writes'))}"
            f" | {_mb(n.get('dram__bytes_read.sum'))} | {_mb(n.get('dram__bytes_write.sum'))} | {_f(ours)} | {_f(theirs)}"
            f" | {'yes' if within else 'no'} | {_f(_us(n.get('gpu__time_duration.sum')))} |"
        )
    peak = next(
        (r["ncu"] for r in ranked if (r.get("ncu") or {}).get("dram__bytes.sum.peak_sustained")), None
    )
    lines.append(
        f"\n**{ok} of {len(ranked)} within 10 points of ncu's dram__throughput** (caches flushed, ncu's default)."
    )
    if peak:
        gbps = (
            peak["dram__bytes.sum.peak_sustained"] * peak.get("dram__cycles_elapsed.avg.per_second", 0) / 1e9
        )
        lines.append(
            f"ncu's DRAM peak here: {peak['dram__bytes.sum.peak_sustained']:.0f} B/cycle x "
            f"{peak.get('dram__cycles_elapsed.avg.per_second', 0) / 1e9:.3f} GHz = {gbps:,.0f} GB/s"
        )
    return "\n".join(lines)


def _local(c: dict) -> int | None:
    return c["STACK"] + c["LOCAL"] if c else None


def _shared(n: dict) -> int | None:
    s, d = n.get("launch__shared_mem_per_block_static"), n.get("launch__shared_mem_per_block_dynamic")
    return None if s is None or d is None else int(s + d)


def _us(ns: float | None) -> float | None:
    return None if ns is None else ns / 1000


def _mb(v: float | None) -> str:
    return "-" if v is None else f"{v / 1e6:.2f}"


def _i(v: object) -> str:
    return "-" if v is None else str(int(v)) if isinstance(v, int | float) else str(v)


def _f(v: object) -> str:
    return f"{v:.2f}" if isinstance(v, float) else ("-" if v is None else str(v))


if __name__ == "__main__":
    sys.exit(main())
