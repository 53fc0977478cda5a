"""Regenerate the real torch samples under tests/data/ (needs torch; not run by the tests).

Each scenario runs torch.compile in a fresh subprocess with TORCH_TRACE set; the payloads the
parsers read are then cut out of the trace with inspectc.trace.records and written, named
``<torch version>-<device>-<scenario>-<compile id>``, under --out:

    output_code/*.py   inductor_output_code payloads
    guards/*.txt       dynamo_cpp_guards_str payloads
    breaks/*.txt       dynamo_graph_break_reason payloads
    reasons/*.json     compilation_metrics restart_reasons / fail_reason, recompile_reasons

Usage: python tests/data/make_samples.py --device cpu --out tests/data [scenario ...]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from inspectc.trace.records import compile_id, event_name, parse_file  # noqa: E402

PRELUDE = """
import torch, torch.nn as nn, torch.nn.functional as F, torch._inductor.config as ic
dev = {device!r}
torch.manual_seed(0)
"""

SCENARIOS = {
    "pointwise": "torch.compile(lambda x: torch.sin(torch.sin(x)))(torch.randn(1024, device=dev))",
    "reductions": (
        "f = torch.compile(lambda x: (x.sum(-1), torch.softmax(x, -1), F.layer_norm(x, (x.shape[-1],))))\n"
        "f(torch.randn(64, 3000, device=dev)); f(torch.randn(64, 300, device=dev))"
    ),
    "mlp": (
        "m = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 8)).to(dev)\n"
        "with torch.no_grad(): torch.compile(m)(torch.randn(4, 16, device=dev))"
    ),
    "mm_template": (
        "ic.max_autotune = True; ic.max_autotune_gemm_backends = 'TRITON'\n"
        "torch.compile(lambda a, b: torch.relu(a @ b))(torch.randn(256, 256, device=dev), torch.randn(256, 256, device=dev))"
    ),
    "foreach_scan": (
        "xs = [torch.randn(100, device=dev) for _ in range(4)]\n"
        "torch.compile(lambda xs, x: (torch._foreach_add(xs, 1.0), torch.cumsum(x, 0)))(xs, torch.randn(100000, device=dev))"
    ),
    "sdpa_conv": (
        "q = torch.randn(2, 4, 128, 64, device=dev, dtype=torch.float16 if dev == 'cuda' else torch.float32)\n"
        "conv = nn.Conv2d(3, 8, 3).to(dev).to(q.dtype)\n"
        "with torch.no_grad(): torch.compile(lambda q, x: (F.scaled_dot_product_attention(q, q, q) * 2, conv(x).relu()))"
        "(q, torch.randn(2, 3, 16, 16, device=dev, dtype=q.dtype))"
    ),
    "frozen": (
        "ic.freezing = True\n"
        "m = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 8)).eval().to(dev)\n"
        "c = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3)).eval().to(dev)\n"
        "with torch.no_grad():\n"
        "    torch.compile(m)(torch.randn(4, 16, device=dev))\n"
        "    torch.compile(c)(torch.randn(2, 3, 16, 16, device=dev))"
    ),
    "cpp_gemm": (
        "ic.freezing = True; ic.max_autotune = True; ic.max_autotune_gemm_backends = 'CPP,ATEN'\n"
        "m = nn.Sequential(nn.Linear(16, 32), nn.GELU()).eval().to(dev)\n"
        "with torch.no_grad(): torch.compile(m)(torch.randn(64, 16, device=dev))"
    ),
    "cpp_wrapper": (
        "ic.cpp_wrapper = True\ntorch.compile(lambda x: torch.sin(x) @ x)(torch.randn(8, 8, device=dev))"
    ),
    "dynamic": (
        "f = torch.compile(lambda x, y: (torch.sin(x).sum(0), torch.bmm(y, y)), dynamic=True)\n"
        "f(torch.randn(8, 5, device=dev), torch.randn(2, 4, 4, device=dev))"
    ),
    "breaks": (
        "def gb_print(x):\n    x = torch.sin(x)\n    print('hi')\n    return torch.cos(x)\n"
        "def gb_item(x):\n    x = torch.sin(x)\n    if x.sum().item() > 0:\n        return x + 1\n    return x - 1\n"
        "def gb_explicit(x):\n    x = torch.sin(x)\n    torch._dynamo.graph_break()\n    return torch.cos(x)\n"
        "def gb_open(x):\n    x = torch.sin(x)\n    with open(__file__) as f:\n        f.read(1)\n    return torch.cos(x)\n"
        "import zlib\n"
        "def gb_cext(x):\n    x = torch.sin(x)\n    n = zlib.crc32(b'abc')\n    return torch.cos(x) + n\n"
        "for f in (gb_print, gb_item, gb_explicit, gb_open, gb_cext):\n    torch.compile(f, backend='eager')(torch.randn(8, device=dev))"
    ),
    "recompiles": (
        "f = torch.compile(lambda x, n: x * n, dynamic=False, backend='eager')\n"
        "f(torch.randn(8, device=dev), 2); f(torch.randn(16, device=dev), 2); f(torch.randn(16, device=dev), 3)\n"
        "f(torch.randn(8, device=dev, dtype=torch.float64), 3)"
    ),
    "global_state": (  # the newest entry fails on grad mode, an older one on the call's size
        "f = torch.compile(lambda x: x.sin() * 2, dynamic=False, backend='eager')\n"
        "f(torch.randn(4, device=dev)); f(torch.randn(4, device=dev).double())\n"
        "with torch.no_grad():\n    f(torch.randn(4, device=dev))\n"
        "f(torch.randn(6, device=dev))"
    ),
}

PAYLOADS = {
    "inductor_output_code": ("output_code", ".py"),
    "dynamo_cpp_guards_str": ("guards", ".txt"),
    "artifact:dynamo_graph_break_reason": ("breaks", ".txt"),
    "artifact:recompile_reasons": ("reasons", ".txt"),
}


def run_scenario(name: str, device: str, out: Path) -> str:
    with tempfile.TemporaryDirectory() as trace_dir:
        script = Path(trace_dir) / f"{name}.py"  # a real file: stacks then show source lines
        script.write_text(PRELUDE.format(device=device) + SCENARIOS[name] + "\n")
        env = dict(os.environ, TORCH_TRACE=trace_dir)
        proc = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=900
        )
        logs = sorted(Path(trace_dir).glob("*.log"))
        if not logs:
            return f"{name}: no trace (rc={proc.returncode}) {proc.stderr[-2000:]}"
        version = _torch_version(logs[0])
        prefix = f"{version}-{device}-{name}"
        written = 0
        for log in logs:
            written += _extract(log, prefix, out)
        return f"{name}: rc={proc.returncode} wrote {written} files as {prefix}-*"


def _torch_version(log: Path) -> str:
    records, _ = parse_file(log)
    for record in records:
        kind = event_name(record.metadata)
        if kind == "artifact:torch_version" and record.payload:
            return str(json.loads(record.payload).get("pytorch_version", "torch")).split("+")[0]
        if kind == "compilation_metrics" and record.metadata[kind].get("pytorch_version"):
            return str(record.metadata[kind]["pytorch_version"]).split("+")[0]
    return "torch"


def _extract(log: Path, prefix: str, out: Path) -> int:
    records, _ = parse_file(log)
    written = 0
    for record in records:
        kind = event_name(record.metadata)
        cid = (compile_id(record.metadata) or "none").replace("/", "_").replace("!", "ca")
        if kind in PAYLOADS and record.payload is not None:
            folder, suffix = PAYLOADS[kind]
            path = out / folder / f"{prefix}-{cid}{suffix}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(record.payload)
            written += 1
        elif kind == "compilation_metrics":
            metrics = record.metadata[kind]
            keep = {k: metrics.get(k) for k in ("restart_reasons", "fail_type", "fail_reason")}
            if keep["restart_reasons"] or keep["fail_reason"]:
                path = out / "reasons" / f"{prefix}-{cid}-metrics.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(keep, indent=1) + "\n")
                written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("scenarios", nargs="*", default=list(SCENARIOS))
    args = parser.parse_args()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = [pool.submit(run_scenario, name, args.device, args.out) for name in args.scenarios]
        for job in jobs:
            print(job.result(), flush=True)


if __name__ == "__main__":
    main()
