"""Regenerate the whole-log fixtures under tests/data/logs/ (needs torch; not run by the tests).

Every scenario is a small script that runs in a fresh subprocess with ``TORCH_TRACE`` pointing
at a temp dir and a private ``TORCHINDUCTOR_CACHE_DIR`` (so FX-graph / AOTAutograd cache hits
and misses are decided only by what the scenario itself does). The ``*.log`` files torch
writes there are copied, unmodified, to ``tests/data/logs/<scenario>/``:

    trace.log      one-process scenarios (TORCH_TRACE)
    dtrace.log     export, draft_export: the same with TORCH_DTRACE (see RUNS)
    rank_N.log     ``ranks4`` (torchrun, one file per rank; N is read from the records'
                   ``rank`` field, falling back to the ``rank_N_`` in torch's file name)

Then ``tests/rawcount.py`` (independent of inspectc) counts every log into
``tests/data/logs/counts.json`` and the table in ``tests/data/logs/README.md``.

Scenarios (all CPU):

    export           torch.export.export of Linear+ReLU plus nonzero() (an unbacked size)
    draft_export     torch.export.draft_export (dim 0 dynamic) of a module that branches on
                     .item(), on nonzero().shape[0] and on the dynamic dim: 2 data-dependent
                     errors and 1 guard added in the draft report (TORCH_DTRACE only, see RUNS)
    aoti             torch._inductor.aoti_compile_and_package + aoti_load_package, run once
    cache_seq        one torch.compile'd function: cold miss, reset + hit, reset + float64 miss
    restart          graph break inside an inlined helper (backend="eager"): frames 0/0 and
                     1/0 restart (attempt _1)
    messages         a user's graph_break(msg=...) (two lines) and a backend that raises a
                     two-line RuntimeError (backend="eager" and a custom backend)
    rare             records few runs write: a compiled fx.GraphModule (dump_file) and a
                     backward under compiled autograd (compiled_autograd_graph); eager backend
    multi_recompile  dynamic=False, 4 shapes: recompiles list one failed guard per entry
    ranks4           torchrun --nproc_per_node 4, gloo: DDP of an aot_eager-compiled MLP plus
                     an Inductor-compiled fn; rank 2 feeds DDP another batch size on step 2
                     (recompile) and graph-breaks in the fn
    ranks3_diverge   torchrun 3 ranks, gloo, Inductor with functional collectives; one shared
                     Inductor cache: rank 2 misses where ranks 0 and 1 hit; rank 1's graph
                     schedules two all_reduces (the others one); rank 0 runs one more graph
                     (execution order); every rank recompiles on an object id (not a divergence)
    training         2-layer MLP, compiled model and compiled SGD step, 3 steps

Usage: .venv/bin/python tests/data/make_logs.py [--jobs 2] [--nproc 4] [scenario ...]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOGS = HERE / "logs"
sys.path.insert(0, str(HERE.parent))  # tests/ for rawcount (deliberately not inspectc)
import rawcount  # noqa: E402

PRELUDE = """\
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
"""

SCENARIOS: dict[str, str] = {
    "export": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        y = torch.relu(self.lin(x))
        idx = torch.nonzero(y)            # data-dependent output size (unbacked symint)
        return y, idx

ep = torch.export.export(M(), (torch.randn(2, 4),))
print(ep.graph_module.code)
""",
    "draft_export": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        n = (y > 0).sum().item()          # unbacked int
        if n > 2:                         # guard on a data-dependent value
            y = y * 2
        nz = torch.nonzero(y)
        if nz.shape[0] > 1:               # another data-dependent guard
            y = y + 1
        if x.shape[0] > 2:                # a guard on a dynamic (backed) dim
            y = y - 1
        return y[:, :1].repeat(1, 2) + nz.shape[0]

x = torch.randn(3, 4)
ep = torch.export.draft_export(M(), (x,), dynamic_shapes={"x": {0: torch.export.Dim("b")}})
print(ep._report)
""",
    "aoti": """
import os
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)) * 2

x = torch.randn(2, 4)
with torch.no_grad():
    ep = torch.export.export(M(), (x,))
    path = torch._inductor.aoti_compile_and_package(
        ep, package_path=os.path.join(os.environ["SCENARIO_TMP"], "m.pt2"))
    runner = torch._inductor.aoti_load_package(path)
    print(runner(x))
""",
    "cache_seq": """
def f(x):
    return torch.sin(x) * torch.cos(x) + 1

cf = torch.compile(f)
cf(torch.randn(8))                        # 0/0: FX graph cache miss (cold)
torch._dynamo.reset()
cf = torch.compile(f)
cf(torch.randn(8))                        # 0/0 again: cache hit
torch._dynamo.reset()
cf = torch.compile(f)
cf(torch.randn(8, dtype=torch.float64))   # 0/0 a third time: miss (new dtype)
""",
    "restart": """
def helper(x):
    x = torch.sin(x)
    torch._dynamo.graph_break()           # break inside an inlined call -> restart
    return torch.cos(x)

def f(x):
    x = x + 1
    x = helper(x)
    return x * 2

torch.compile(f, backend="eager")(torch.randn(8))
""",
    "messages": """
def f(x):
    x = x + 1
    torch._dynamo.graph_break(msg="the sensor read needs eager mode\\nsee docs/sensors.md")
    return x * 2

torch.compile(f, backend="eager")(torch.randn(8))

def broken(gm, inputs):
    raise RuntimeError("broken backend\\nits second line")

def g(x):
    return torch.sin(x)

try:
    torch.compile(g, backend=broken)(torch.randn(8))
except Exception:
    pass
""",
    "rare": """
import torch.fx
from torch._dynamo import compiled_autograd

class M(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2

gm = torch.fx.symbolic_trace(M())          # eval_with_key code: Dynamo logs it (dump_file)
torch.compile(lambda x: gm(x) + 1, backend="eager")(torch.randn(4))

lin = nn.Linear(4, 4)
step = torch.compile(lambda x: lin(x).sum(), backend="eager")
with compiled_autograd._enable(torch.compile(backend="eager")):  # compiled_autograd_graph
    step(torch.randn(2, 4)).backward()
""",
    "multi_recompile": """
f = torch.compile(lambda x: torch.relu(x) + 1, dynamic=False)
for n in (2, 3, 4, 5):
    f(torch.randn(n))
""",
    "training": """
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
cmodel = torch.compile(model)

@torch.compile
def step_opt():
    opt.step()

x, y = torch.randn(4, 8), torch.randn(4, 2)
for _ in range(3):
    opt.zero_grad()
    loss = F.mse_loss(cmodel(x), y)
    loss.backward()
    step_opt()
print(loss.item())
""",
}

RANKS_SCRIPT = """\
import os
# a private Inductor cache per rank, so no rank hits another's entries (set before torch loads)
os.environ["TORCHINDUCTOR_CACHE_DIR"] += "/rank_" + os.environ["LOCAL_RANK"]
import torch, torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")           # before any compile: the trace file gets rank_N_
rank = dist.get_rank()
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
# compile inside DDP (DDPOptimizer splits at bucket boundaries); aot_eager: AOT graphs, no
# C++ build. (torch.compile(DDP(model)) graph-breaks in DDP.forward in 2.13 and the model runs eagerly.)
ddp = DDP(torch.compile(model, backend="aot_eager"))
cmodel = ddp

def rank_fn(x):
    x = torch.sin(x)
    if rank == 2:
        torch._dynamo.graph_break()       # only rank 2 breaks
    return x.sum()

crank_fn = torch.compile(rank_fn)        # Inductor: C++ kernels in every rank's log
for step in range(2):
    batch = 3 if (rank == 2 and step == 1) else 2   # rank 2 recompiles on step 2
    out = cmodel(torch.randn(batch, 4))
    out.sum().backward()
    t = crank_fn(torch.randn(4))
    dist.all_reduce(t)

dist.barrier()
del cmodel, ddp, model                    # free DDP before destroy (known hang otherwise)
dist.destroy_process_group()
"""


DIVERGE_SCRIPT = """\
import os
# ONE Inductor cache for all ranks: rank 2 compiles `compute` first (miss), the others hit it
os.environ["TORCHINDUCTOR_CACHE_DIR"] += "/shared"
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as fc
import torch._inductor.config as inductor_config
import torch._inductor.debug as inductor_debug

inductor_config.log_tlparse = True        # runtime estimates and tensor metadata per graph
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)

def compute(x):
    return (x.sin() * 2).sum(0)

def reduce_fn(x):
    y = fc.all_reduce(x * 2, "sum", dist.group.WORLD)
    if rank == 1:                         # rank 1 schedules a second collective in its graph
        y = fc.all_reduce(y + 1, "sum", dist.group.WORLD)
    return y.cos()

def apply(fn, x):                         # guards on fn's identity: object ids differ per process
    return fn(x)

ccompute = torch.compile(compute)
creduce = torch.compile(reduce_fn)
capply = torch.compile(apply, backend="eager")
if rank == 2:
    ccompute(torch.randn(4, 4))
dist.barrier()
if rank != 2:
    ccompute(torch.randn(4, 4))
with inductor_debug.record_and_log_graph_execution_order():
    for step in range(2):
        y = creduce(torch.randn(8))
        if rank != 1:
            dist.all_reduce(y)            # pairs with rank 1's second collective: no hang
        if rank == 0 and step == 1:
            ccompute(torch.randn(4, 4))   # rank 0 runs one more graph
f1 = lambda t: t + 1
f2 = lambda t: t * 2
capply(f1, torch.randn(3))
capply(f2, torch.randn(3))                # every rank recompiles, on an object id
dist.barrier()
dist.destroy_process_group()
"""
TORCHRUN = {"ranks4": (RANKS_SCRIPT, None), "ranks3_diverge": (DIVERGE_SCRIPT, 3)}

#: per scenario, the runs to make: (log file stem, use TORCH_DTRACE). TORCH_DTRACE=<dir> is
#: TORCH_TRACE plus the detailed ``dtrace_structured`` records (``exported_program``,
#: ``guard_added``, ``expression_created``, ...), what ``tlparse --export`` reads. draft_export
#: needs it: it swaps the TORCH_TRACE handler for its own, which writes to $TORCH_DTRACE (else
#: /tmp/export_<user>/), so with TORCH_TRACE alone its records never reach TORCH_TRACE's dir.
RUNS: dict[str, list[tuple[str, bool]]] = {
    "export": [("trace", False), ("dtrace", True)],
    "draft_export": [("dtrace", True)],
}


def _env(tmp: Path, trace_dir: Path, dtrace: bool) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("TORCH_LOGS", "TORCH_COMPILE_DEBUG", "TORCH_TRACE", "TORCH_DTRACE"):
        env.pop(var, None)
    env.update(
        TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor_cache"),
        TORCHINDUCTOR_FX_GRAPH_CACHE="1",
        TORCHINDUCTOR_AUTOGRAD_CACHE="1",
        SCENARIO_TMP=str(tmp),
        OMP_NUM_THREADS="1",
        PYTHONHASHSEED="0",
    )
    env["TORCH_DTRACE" if dtrace else "TORCH_TRACE"] = str(trace_dir)
    return env


def _rank_of(log: Path) -> int | None:
    for rec in rawcount.records(log):
        if isinstance(rec.get("rank"), int):
            return rec["rank"]
    m = re.search(r"rank_(\d+)_", log.name)
    return int(m.group(1)) if m else None


def _run_once(name: str, stem: str, dtrace: bool, nproc: int, dest: Path) -> str:
    start = time.time()
    with tempfile.TemporaryDirectory(prefix=f"inspectc-{name}-") as tmp_s:
        tmp = Path(tmp_s)
        trace_dir = tmp / "trace"
        trace_dir.mkdir()
        # a real file, so stacks show source lines
        script = tmp / f"{name}.py"
        if name in TORCHRUN:
            text, fixed = TORCHRUN[name]
            script.write_text(text)
            cmd = [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                f"--nproc_per_node={fixed or nproc}",
                str(script),
            ]
        else:
            script.write_text(PRELUDE + SCENARIOS[name])
            cmd = [sys.executable, str(script)]
        proc = subprocess.run(
            cmd,
            env=_env(tmp, trace_dir, dtrace),
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        logs = sorted(trace_dir.glob("*.log"))
        if not logs:
            return f"{name}/{stem}: FAILED, no trace (rc={proc.returncode})\n{proc.stderr[-3000:]}"
        names = []
        for i, log in enumerate(logs):
            if name in TORCHRUN:
                rank = _rank_of(log)
                target = dest / (f"rank_{rank}.log" if rank is not None else log.name)
            else:  # more than one file (a traced compile subprocess, say): keep them all
                target = dest / (f"{stem}.log" if i == 0 else f"{stem}_{i}.log")
            shutil.copyfile(log, target)
            names.append(target.name)
        status = "ok" if proc.returncode == 0 else f"rc={proc.returncode}"
        tail = "" if proc.returncode == 0 else "\n" + proc.stderr[-3000:]
        return f"{name}: {status} in {time.time() - start:.0f}s -> {', '.join(sorted(names))}{tail}"


def run_scenario(name: str, nproc: int) -> str:
    dest = LOGS / name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    return "\n".join(
        _run_once(name, stem, dtrace, nproc, dest) for stem, dtrace in RUNS.get(name, [("trace", False)])
    )


def _torch_version(log: Path) -> str:
    for rec, payload in rawcount.iter_payloads(log):
        art = rec.get("artifact")
        if isinstance(art, dict) and art.get("name") == "torch_version" and payload:
            try:
                return str(json.loads(payload).get("pytorch_version"))
            except ValueError:
                pass
        cm = rec.get("compilation_metrics")
        if isinstance(cm, dict) and cm.get("pytorch_version"):
            return str(cm["pytorch_version"])
    # draft_export's own handler writes no torch_version record: say what made it, marked
    try:
        import importlib.metadata

        return importlib.metadata.version("torch") + " (not in log)"
    except Exception:  # noqa: BLE001
        return "?"


NOTES = """\
## What the logs show (torch 2.13.0+cpu)

- **Compile ids.** Context is in each record's JSON, not the glog prefix: `frame_id`,
  `frame_compile_id`, `attempt` (`0/0_1` is attempt 1), `compiled_autograd_id`. The event name
  is the first key. `str` (file-name interning) and `artifact:torch_version` records never carry
  context.
- **Repeated ids** (`cache_seq`): `torch._dynamo.reset()` restarts the frame counter, so `0/0`
  has three `dynamo_start` and three `compilation_metrics` records in one log (miss, hit,
  miss); the hit logs `artifact:aotautograd_cache_hit` + `artifact:fx_graph_cache_hit` and still
  an `inductor_output_code`.
- **Restarts** (`restart`): `dynamo_start` and the `dynamo_graph_break_reason` carry attempt 0;
  the rest of the frame (`dynamo_output_graph`, `compilation_metrics` with `restart_reasons`)
  carries attempt 1. No `dynamo_start` has attempt 1. The inlined helper's frame (`1/0`) restarts
  too, so 4 frames make 6 attempts.
- **Recompiles** (`multi_recompile`): `artifact` `recompile_reasons` (encoding `json`) on the
  new compile id (`0/1`, `0/2`, `0/3`); its payload is one JSON string when one entry failed,
  and a JSON list (newest entry first: `0/2`, `0/1`, `0/0`) when several did.
- **Ranks** (`ranks4`): every record with context has `"rank": N`; `str` and `torch_version`
  do not. Torch names the file `dedicated_log_torch_trace_rank_N_<random>.log` only if the
  process group is up before the first record; the glog `[rankN]:` prefix is never written to
  trace files.
- **Export / AOTI** records have no compile id: they carry `stack` (frames whose `filename` is
  a `str` id) instead. With `TORCH_TRACE` alone, `torch.export.export` logs only symbol/tensor
  records (`export/trace.log`); `exported_program`, `export` and `expression_created` are
  `dtrace_structured` and need `TORCH_DTRACE` (`export/dtrace.log`). `draft_export` removes the
  `TORCH_TRACE` handler and writes its own log to `$TORCH_DTRACE` (else `/tmp/export_<user>/`);
  its report's data-dependent errors are `propagate_real_tensors_provenance` records and its
  guards `guard_added` (stacks in the value's `user_stack`); it logs no `torch_version`.
- **AOTInductor** writes no `inductor_output_code`: its C++ is in `graph_dump` records named
  `inductor_aot_wrapper_code` and `inductor_aot_kernel_code` (`type: cpp`, with a `filename`),
  and its `compilation_metrics` has `compile_id: null`.
- **Size**: most of each Inductor compile's ~300 kB is the FX-graph-cache key `components`
  (the Inductor config), written three times: `artifact:fx_graph_cache_miss` and two
  `chromium_event` records. `restart` uses `backend="eager"`, and `ranks4`'s DDP model
  `aot_eager`, to keep the logs small.
"""


def write_counts() -> None:
    """counts.json and README.md from every log under tests/data/logs/."""
    counts: dict[str, dict] = {}
    rows = []
    types: dict[str, set[str]] = {}
    for log in sorted(LOGS.glob("*/*.log")):
        key = f"{log.parent.name}/{log.name}"
        by_type = rawcount.count_by_type(log)
        summ = rawcount.summary(log)
        counts[key] = {
            "torch": _torch_version(log),
            "bytes": log.stat().st_size,
            "summary": summ,
            "count_by_type": dict(sorted(by_type.items())),
        }
        types.setdefault(log.parent.name, set()).update(k for k in by_type if k != rawcount.MALFORMED)
        rows.append((key, counts[key]))
    (LOGS / "counts.json").write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n")

    what = {
        "export": "`torch.export.export` (non-strict, the default) of Linear+ReLU plus `nonzero()` (unbacked output size); `trace.log` with TORCH_TRACE, `dtrace.log` with TORCH_DTRACE",
        "draft_export": "`torch.export.draft_export` (dim 0 dynamic) of a module branching on `.item()`, on `nonzero().shape[0]` and on the dynamic dim: 2 data-dependent errors, 1 guard added",
        "aoti": "`aoti_compile_and_package` of Linear+ReLU (C++), then `aoti_load_package` and one run",
        "cache_seq": "one function: cold FX-cache miss, `reset()` + hit, `reset()` + float64 miss; `0/0` three times",
        "restart": "graph break inside an inlined helper: frame 0 restarts (`0/0_1`)",
        "messages": "a user's `graph_break(msg=...)` of two lines, and a backend raising a two-line `RuntimeError`",
        "rare": "a compiled `fx.GraphModule` (`dump_file`) and a backward under compiled autograd (`compiled_autograd_graph`), eager backend",
        "multi_recompile": "`dynamic=False`, shapes 2,3,4,5: recompiles with one failed guard per earlier entry",
        "ranks4": "torchrun 4 ranks, gloo DDP + torch.compile; rank 2 has a graph break and recompiles (other batch size)",
        "ranks3_diverge": "torchrun 3 ranks, gloo, Inductor + functional collectives, shared cache: rank 2 misses where 0 and 1 hit, rank 1 schedules 2 collectives, rank 0 runs one more graph, all recompile on an object id",
        "training": "2-layer MLP, compiled model + compiled `opt.step` (SGD), 3 steps (forward, backward, optimizer); the 2 graph breaks are torch.optim's own",
    }
    fields = [
        "frames",
        "attempts",
        "dynamo_starts",
        "graph_breaks",
        "recompiles",
        "compilation_metrics",
        "output_code",
        "kernels",
        "aot_code",
        "aot_kernels",
        "ranks",
    ]
    out = [
        "# Whole TORCH_TRACE logs from real torch runs",
        "",
        "Made by `make_logs.py` (run it with the project venv: `.venv/bin/python tests/data/make_logs.py`);",
        "each scenario ran in its own process with `TORCH_TRACE` (`TORCH_DTRACE` for `dtrace.log`) and a",
        "private `TORCHINDUCTOR_CACHE_DIR`;",
        "the log files are torch's own, unmodified, renamed to `trace.log` / `dtrace.log` / `rank_N.log`.",
        "The figures are `tests/rawcount.py`'s `summary()` (independent of inspectc; its docstring",
        "says what each one counts); `counts.json` has them plus `count_by_type()` for every log.",
        "",
        "| log | what | torch | bytes | records | malformed | " + " | ".join(fields) + " |",
        "| --- | --- | --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in fields) + " |",
    ]
    seen: set[str] = set()
    for key, c in rows:
        s = c["summary"]
        scen = key.split("/")[0]
        desc = "" if scen in seen else what.get(scen, "")
        seen.add(scen)
        cells = [str(s[f]) if f != "ranks" else (",".join(map(str, s[f])) or "-") for f in fields]
        out.append(
            f"| `{key}` | {desc} | {c['torch']} | {c['bytes']} | "
            f"{s['records']} | {s['malformed']} | " + " | ".join(cells) + " |"
        )
    total = sum(c["bytes"] for _, c in rows)
    out += ["", f"{len(rows)} logs, {total} bytes in all.", "", NOTES]
    out += ["", "## Record types per scenario (union over its logs, alphabetical)", ""]
    out.append("`artifact:<name>` and `graph_dump:<name>` are split by name, as `count_by_type()` does.")
    out.append("")
    for scen in sorted(types):
        out.append(f"- **{scen}**: " + ", ".join(f"`{t}`" for t in sorted(types[scen])))
    (LOGS / "README.md").write_text("\n".join(out) + "\n")


def main() -> None:
    all_names = [*SCENARIOS, *TORCHRUN]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--nproc", type=int, default=4, help="ranks for ranks4")
    parser.add_argument("--counts-only", action="store_true", help="only rewrite counts.json/README.md")
    parser.add_argument("scenarios", nargs="*", default=all_names)
    args = parser.parse_args()
    unknown = set(args.scenarios) - set(all_names)
    if unknown:
        parser.error(f"unknown scenarios: {sorted(unknown)}")
    if not args.counts_only:
        LOGS.mkdir(parents=True, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            jobs = {n: pool.submit(run_scenario, n, args.nproc) for n in args.scenarios}
            for job in jobs.values():
                print(job.result(), flush=True)
    write_counts()


if __name__ == "__main__":
    main()
