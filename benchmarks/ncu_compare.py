"""inspectc's % of the bandwidth limit beside Nsight Compute's, for N kernels of a report.

    python benchmarks/ncu_compare.py REPORT REPRO_JSON --out DIR [--frame 0/1] [--n 10] [--label resnet18]

REPORT carries Inductor's byte counts (``inspectc run --kernel-harness``) and ``inspectc bench``'s
isolated times; REPRO_JSON is ``benchmarks/repro_all.py``'s (the repro script of each kernel).
Picks the N kernels of the frame with the most in-run time, at least N/3 of them reductions
(``triton_red_``/``triton_per_``), and runs their scripts once each (``--once``: two launches)
in one process under ``ncu --clock-control none`` twice: caches flushed before each profiled
launch (ncu's default) and not (``--cache-control none``). Writes DIR/ncu_LABEL.json (every
figure) and DIR/ncu_LABEL.md (the table). No inspectc figure is changed here: inspectc's side is
``analysis.roofline.roofline`` of the report as ``inspectc kernels`` shows it.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from inspectc.analysis.roofline import read_bytes, roofline
from inspectc.store.reader import Report

METRICS = (
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes.sum.peak_sustained",
    "dram__cycles_elapsed.avg.per_second",
    "lts__t_bytes.sum",
)
SCALE = {
    "ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "second": 1e6,  # -> µs
    "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
    "cycle/nsecond": 1e9, "cycle/usecond": 1e6, "cycle/second": 1.0, "Ghz": 1e9, "Mhz": 1e6,
    "hz": 1.0, "khz": 1e3, "Khz": 1e3, "Hz": 1.0, "MHz": 1e6, "GHz": 1e9,
    "byte/cycle": 1.0, "Kbyte/cycle": 1e3,
}  # fmt: skip


def pick(rows: list[dict], frame: str | None, n: int) -> list[dict]:
    ran = [
        r for r in rows if r.get("script") and "error" not in r and (frame is None or r.get("frame") == frame)
    ]
    ran.sort(key=lambda r: -(r.get("in_run_median_us") or 0))
    reductions = [r for r in ran if r["name"].startswith(("triton_red_", "triton_per_"))][: max(1, n // 3)]
    others = [r for r in ran if r not in reductions][: n - len(reductions)]
    return sorted(others + reductions, key=lambda r: -(r.get("in_run_median_us") or 0))


def run_ncu(picked: list[dict], cache: str, out: Path, label: str) -> dict[str, dict[str, float]]:
    names = "|".join(r["name"] for r in picked)
    runner = Path(__file__).with_name("run_once.py")
    cmd = [
        "ncu", "--clock-control", "none", "--cache-control", cache, "--metrics", ",".join(METRICS),
        "-k", f"regex:^({names})$", "--csv", sys.executable, str(runner), *[r["script"] for r in picked],
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=400, check=False, env=os.environ)  # noqa: S603
    (out / f"ncu_{label}_{cache}.csv").write_text(
        done.stdout[-2_000_000:] + "\n#stderr\n" + done.stderr[-20_000:]
    )
    return parse(done.stdout)


def parse(text: str) -> dict[str, dict[str, float]]:
    """Kernel name -> metric -> value (the last profiled launch of each kernel), in µs / bytes / Hz."""
    start = text.find('"ID"')
    if start < 0:
        return {}
    per_id: dict[str, dict[str, float]] = {}
    names: dict[str, str] = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        ident, kname = row.get("ID", ""), row.get("Kernel Name", "")
        metric, unit, value = (
            row.get("Metric Name"),
            row.get("Metric Unit") or "",
            row.get("Metric Value", ""),
        )
        try:
            number = float(str(value).replace(",", ""))
        except ValueError:
            continue
        if not metric:
            continue
        if unit == "%":
            scale = 1.0
        else:
            scale = SCALE.get(unit, 1.0)
        per_id.setdefault(ident, {})[metric] = number * scale
        names[ident] = kname
    out: dict[str, dict[str, float]] = {}
    for ident in sorted(per_id, key=lambda i: int(i) if i.isdigit() else 0):
        out[names[ident]] = per_id[ident]  # the later launch wins
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("repro_json")
    p.add_argument("--out", required=True)
    p.add_argument("--frame")
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--label", default="kernels")
    p.add_argument("--from-csv", action="store_true", help="no ncu run: read OUT/ncu_LABEL_{all,none}.csv")
    opts = p.parse_args()
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    report = Report(opts.report)
    picked = pick(json.loads(Path(opts.repro_json).read_text()), opts.frame, opts.n)
    if opts.from_csv:
        flushed, kept = (parse(_csv(out / f"ncu_{opts.label}_{c}.csv")) for c in ("all", "none"))
    else:
        flushed = run_ncu(picked, "all", out, opts.label)
        kept = run_ncu(picked, "none", out, opts.label)
    bench = report.bench
    rows = []
    for r in picked:
        kernel = next(
            (
                k
                for k in report.kernels
                if k.name == r["name"] and str(k.compile_id) == r.get("frame") and k.time
            ),
            None,
        )
        roof = roofline(kernel, bench) if kernel is not None else None  # the fallback: Inductor's bytes
        reads = read_bytes(report.kernel_detail(kernel)) if kernel is not None else None
        share = roofline(kernel, bench, reads) if kernel is not None and reads is not None else None
        frac = share.fraction if share is not None else None
        rows.append(
            {
                **{k: r.get(k) for k in ("name", "frame", "in_run_median_us", "queued_us", "fed_us",
                                         "profiler_us", "profiler_cold_us", "do_bench_us", "repro_us")},
                "gb": roof.gb if roof else None,
                "isolated_us": roof.launch_us if roof else None,
                "basis": roof.basis if roof else None,
                "limit_gbps": roof.limit_gbps if roof else None,
                "roofline_pct": round(roof.fraction * 100, 1) if roof and roof.fraction is not None else None,
                "read_bytes": reads,
                "inspectc_pct": round(frac * 100, 1) if frac is not None else None,
                "ncu_flushed": flushed.get(r["name"], {}),
                "ncu_kept": kept.get(r["name"], {}),
            }
        )  # fmt: skip
    (out / f"ncu_{opts.label}.json").write_text(json.dumps(rows, indent=1))
    lines = [
        "| kernel | µs (isolated) | reads MB | ncu DRAM read MB | ncu DRAM write MB | inspectc DRAM % | ncu dram % | within 10 | old roofline % | ncu sm % | ncu µs | ncu dram % (L2 kept) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ok = 0
    for row in rows:
        f, k = row["ncu_flushed"], row["ncu_kept"]
        dram = f.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")
        ours = row["inspectc_pct"]
        within = ours is not None and dram is not None and abs(ours - dram) <= 10
        ok += within
        mb = (row["read_bytes"] or 0) / 1e6
        lines.append(
            f"| {row['name']} | {_f(row['isolated_us'])} | {mb:.2f} | {_mb(f.get('dram__bytes_read.sum'))}"
            f" | {_mb(f.get('dram__bytes_write.sum'))} | {_f(ours)} | {_f(dram)} | {'yes' if within else 'no'}"
            f" | {_f(row['roofline_pct'])} | {_f(f.get('sm__throughput.avg.pct_of_peak_sustained_elapsed'))}"
            f" | {_f(f.get('gpu__time_duration.sum'))} | {_f(k.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'))} |"
        )
    lines.append(
        f"\n{ok} of {len(rows)} within 10 points of ncu's dram__throughput (caches flushed, ncu's default)."
    )
    text = "\n".join(lines) + "\n"
    (out / f"ncu_{opts.label}.md").write_text(text)
    print(text)
    return 0


def _mb(v: float | None) -> str:
    return "-" if v is None else f"{v / 1e6:.2f}"


def _csv(path: Path) -> str:
    return path.read_text().split("\n#stderr\n")[0]


def _f(v: object) -> str:
    return f"{v:.2f}" if isinstance(v, float) else ("-" if v is None else str(v))


if __name__ == "__main__":
    sys.exit(main())
