"""Regenerate the real provenance payloads in this folder (needs torch; not run by the tests).

    python tests/data/provenance/generate.py

Each case runs in a fresh process with its own TORCHINDUCTOR_CACHE_DIR and records, in stream
order, the `torch.__trace` records a builder needs: dynamo_output_graph, inductor_output_code,
the provenance artifacts and the FX/AOT cache artifacts, as [metadata, payload] pairs. The
only edit: fx_graph_cache_* "components" keep just the provenance_tracking_level line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEEP = ("dynamo_output_graph", "inductor_output_code")
KEEP_ARTIFACTS = ("inductor_provenance", "fx_graph_cache_", "aotautograd_cache_")

CHILD = r"""
import json, logging, os, sys
import torch
from torch._logging._internal import trace_log

records = []
class Keep(logging.Handler):
    def emit(self, r):
        md = dict(getattr(r, "metadata", {}) or {})
        name = md.get("artifact", {}).get("name", "") if isinstance(md.get("artifact"), dict) else ""
        if any(k in md for k in %(keep)r) or name.startswith(%(keep_artifacts)r):
            md.pop("has_payload", None)
            payload = getattr(r, "payload", None)
            if name.startswith("fx_graph_cache_") and payload:
                # 70 KB of config and graph dumps: keep the fields, trim the components list
                data = json.loads(payload)
                data["components"] = [c for c in data.get("components", [])
                                      if "provenance_tracking_level" in c]
                payload = json.dumps(data)
            records.append([md, payload])
trace_log.addHandler(Keep()); trace_log.setLevel(logging.DEBUG); trace_log.propagate = False
case = sys.argv[1]
if case.startswith("stale"):  # torch <= 2.11 keying: the level is not part of the cache key
    from torch._inductor import codecache
    orig = codecache.FxGraphHashDetails.__init__
    def init(self, *a, **k):
        orig(self, *a, **k)
        del self.provenance_tracking_level
    codecache.FxGraphHashDetails.__init__ = init
torch._inductor.config.trace.provenance_tracking_level = 0 if case == "stale_prime" else 1

class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.act = torch.nn.GELU()
        self.ln = torch.nn.LayerNorm(32)
        self.fc2 = torch.nn.Linear(32, 8)
    def forward(self, x):
        return self.fc2(self.ln(self.act(self.fc1(x))))

class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(16)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 16))
    def forward(self, x):
        return x + self.mlp(self.ln(x))

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block() for _ in range(2)])
    def forward(self, x):
        x = self.layers[0](x)
        torch._dynamo.graph_break()
        return self.layers[1](x)

torch.manual_seed(0)
if case.startswith(("sin", "stale")):
    @torch.compile
    def f(x):
        return torch.sin(torch.sin(x))
    f(torch.randn(8))
elif case == "mlp_inference":
    with torch.no_grad():
        torch.compile(MLP())(torch.randn(4, 16))
elif case == "mlp_train":
    torch.compile(MLP())(torch.randn(4, 16)).sum().backward()
elif case == "nested_train":
    torch.compile(Net())(torch.randn(4, 16)).sum().backward()
json.dump({"torch": torch.__version__, "case": case, "records": records}, sys.stdout)
"""


def run(case: str, tmp: str, group: str) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, group))
    # a real file: with `python -c` Dynamo records no stack traces
    script = Path(tmp) / "model.py"
    script.write_text(CHILD % {"keep": KEEP, "keep_artifacts": KEEP_ARTIFACTS}, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script), case], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def main() -> None:
    plan = [  # (file, case, cache dir group): same group = same cache dir, run in order
        ("sin_cold.json", "sin", "sin"),
        ("sin_warm.json", "sin", "sin"),
        (None, "stale_prime", "stale"),
        ("sin_stale_hit.json", "stale", "stale"),
        ("mlp_inference.json", "mlp_inference", "mlp_inf"),
        ("mlp_train.json", "mlp_train", "mlp_train"),
        ("nested_train.json", "nested_train", "nested"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, case, group in plan:
            data = run(case, tmp, group)
            if name:
                (HERE / name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
                print(name, len(data["records"]), "records")


if __name__ == "__main__":
    main()
