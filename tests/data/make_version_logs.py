"""Make the per-version log fixtures under tests/data/logs/versions/ (needs torch; not run by tests).

Each scenario below is a small script run in a fresh process with ``TORCH_TRACE`` (export
scenarios also with ``TORCH_DTRACE``) under each torch version's own venv: torch 2.13 is the
project venv (``.venv``), the others ``.dev/torch-<version>`` (``make torch-venv VERSION=2.14.1``
makes one). The log torch writes is kept unmodified, gzip-compressed (mtime 0, so a rerun that
logs the same bytes makes the same file), as ``versions/<version>/<scenario>.log.gz``; the
notebook scenario runs a real notebook through nbclient on a real ipykernel.

Then ``tests/rawcount.py`` (independent of inspectc) counts every log into
``versions/counts.json``, which the tests compare inspectc's reading with.

Usage: .venv/bin/python tests/data/make_version_logs.py [--versions 2.11.0,2.14.1] [scenario ...]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE / "logs" / "versions"
sys.path.insert(0, str(HERE.parent))  # tests/ for rawcount (deliberately not inspectc)
import rawcount  # noqa: E402

VERSIONS = {
    "2.11.0": ROOT / ".dev" / "torch-2.11.0" / "bin" / "python",
    "2.12.1": ROOT / ".dev" / "torch-2.12.1" / "bin" / "python",
    "2.13.0": ROOT / ".venv" / "bin" / "python",
    "2.14.1": ROOT / ".dev" / "torch-2.14.1" / "bin" / "python",
}

PRELUDE = """\
import torch, torch.nn as nn
torch.manual_seed(0)
"""

EXPORTED = """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)) * 2

ep = torch.export.export(M(), (torch.randn(2, 4),), strict={strict})
print(ep.module()(torch.randn(2, 4)).shape)
"""

SCENARIOS: dict[str, str] = {
    # a user's break, a .tolist() break, and an unresumable break (inside a `with` of a
    # generic context manager: "cannot resume", the rest of the function runs eagerly)
    "breaks": """
import contextlib

def f(x):
    x = torch.sin(x)
    torch._dynamo.graph_break()
    return torch.cos(x)

def g(x):
    n = x.sum().tolist()
    return x * n

@contextlib.contextmanager
def ctx():
    yield

def h(x):
    x = x + 1
    x = x * 3
    with ctx():
        torch._dynamo.graph_break()
        x = x * 2
    return x.sin()

for fn in (f, g, h):
    torch.compile(fn, backend="eager")(torch.randn(4))
""",
    # dynamic=False, 4 shapes, a recompile limit of 2: the limit is hit on the third shape
    "recompile_limit": """
torch._dynamo.config.recompile_limit = 2
f = torch.compile(lambda x: torch.relu(x) + 1, backend="eager", dynamic=False)
for n in (2, 3, 4, 5):
    f(torch.randn(n))
""",
    "cond": """
def f(x):
    return torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))

torch.compile(f, backend="aot_eager")(torch.randn(4))
""",
    # a backward under compiled autograd: a compiled_autograd_graph record on its own id
    "compiled_autograd": """
from torch._dynamo import compiled_autograd

lin = nn.Linear(4, 4)
step = torch.compile(lambda x: lin(x).sum(), backend="aot_eager")
with compiled_autograd._enable(torch.compile(backend="aot_eager")):
    for _ in range(2):
        step(torch.randn(2, 4)).backward()
""",
    "export_strict": EXPORTED.format(strict=True),
    "export_nonstrict": EXPORTED.format(strict=False),
    # a compiled optimizer step: ID_MATCH guards on the optimizer and on nn.Parameters, whose
    # reprs span lines (2.11/2.12 print them as `type=<repr>` after the guard)
    "optim_step": """
model = nn.Linear(4, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.1)

@torch.compile(backend="eager")
def step():
    opt.step()

for _ in range(2):
    model(torch.randn(3, 4)).sum().backward()
    step()
    opt.zero_grad()
""",
    # one function under two backends: BACKEND_MATCH guards name the backend by object id
    "backend_mix": """
def f(x):
    return torch.sin(x) + 1

torch.compile(f, backend="aot_eager")(torch.randn(4))
torch.compile(f, backend="eager")(torch.randn(4))
""",
}
#: scenarios run twice (two runs of one unchanged script: diff/check must find nothing)
TWICE = ("backend_mix",)
DTRACE = ("export_strict", "export_nonstrict")

NOTEBOOK_CELLS = [
    "import torch\ntorch.manual_seed(0)",
    "def f(x):\n    x = torch.sin(x)\n    torch._dynamo.graph_break()\n    return torch.cos(x)",
    "cf = torch.compile(f, backend='eager')\ncf(torch.randn(4))",
]


def _env(tmp: Path, trace_dir: Path, dtrace: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_", "PYTHONPATH"))}
    env.update(
        TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor_cache"),
        OMP_NUM_THREADS="1",
        PYTHONHASHSEED="0",
    )
    env["TORCH_DTRACE" if dtrace else "TORCH_TRACE"] = str(trace_dir)
    return env


def _notebook(python: Path, tmp: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The cells run by nbclient on an ipykernel of *python* (its venv needs both)."""
    code = f"""
import nbformat, nbclient
nb = nbformat.v4.new_notebook()
nb.cells = [nbformat.v4.new_code_cell(c) for c in {NOTEBOOK_CELLS!r}]
nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                        resources={{"metadata": {{"path": {str(tmp)!r}}}}}).execute()
"""
    kernels = tmp / "kernels"
    # the kernel spec of this venv's own python (the user's default kernel may be another)
    subprocess.run(
        [str(python), "-m", "ipykernel", "install", "--prefix", str(kernels), "--name", "python3"],
        check=True,
        capture_output=True,
    )
    env = {**env, "JUPYTER_PATH": str(kernels / "share" / "jupyter")}
    return subprocess.run(
        [str(python), "-c", code], env=env, cwd=tmp, capture_output=True, text=True, timeout=1800
    )


def run(version: str, name: str, stem: str, dtrace: bool) -> str:
    python = VERSIONS[version]
    start = time.time()
    dest = OUT / version / f"{stem}.log.gz"
    with tempfile.TemporaryDirectory(prefix=f"inspectc-{name}-") as tmp_s:
        tmp = Path(tmp_s)
        trace_dir = tmp / "trace"
        trace_dir.mkdir()
        env = _env(tmp, trace_dir, dtrace)
        if name == "notebook":
            proc = _notebook(python, tmp, env)
        else:
            script = tmp / f"{name}.py"  # a real file, so stacks show source lines
            script.write_text(PRELUDE + SCENARIOS[name])
            cmd = [str(python), str(script)]
            proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, timeout=1800)
        logs = sorted(trace_dir.glob("*.log"))
        if not logs:
            return f"{version} {stem}: FAILED, no trace (rc={proc.returncode})\n{proc.stderr[-3000:]}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(logs[0], "rb") as src, open(dest, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
                shutil.copyfileobj(src, out)
    status = "ok" if proc.returncode == 0 else f"rc={proc.returncode}\n{proc.stderr[-3000:]}"
    return f"{version} {stem}: {status} in {time.time() - start:.0f}s ({dest.stat().st_size} bytes)"


def jobs(names: list[str]) -> list[tuple[str, str, bool]]:
    out = []
    for name in names:
        out.append((name, name, False))
        if name in DTRACE:
            out.append((name, f"{name}_dtrace", True))
        if name in TWICE:
            out.append((name, f"{name}_again", False))
    return out


def write_counts() -> None:
    counts: dict[str, dict] = {}
    for log in sorted(OUT.glob("*/*.log.gz")):
        counts[f"{log.parent.name}/{log.name}"] = {
            "bytes": log.stat().st_size,
            "summary": rawcount.summary(log),
            "count_by_type": dict(sorted(rawcount.count_by_type(log).items())),
        }
    (OUT / "counts.json").write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n")


def main() -> None:
    names = [*SCENARIOS, "notebook"]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--counts-only", action="store_true")
    parser.add_argument("scenarios", nargs="*", default=names)
    args = parser.parse_args()
    if not args.counts_only:
        for version in args.versions.split(","):
            if not VERSIONS[version].exists():
                print(f"{version}: no venv at {VERSIONS[version]} (skipped)")
                continue
            for name, stem, dtrace in jobs(args.scenarios):
                print(run(version, name, stem, dtrace), flush=True)
    write_counts()


if __name__ == "__main__":
    main()
