"""Graphviz export on a big frame: a synthetic 10,000-node post-grad graph -> DOT -> ``dot``.

Builds a report (no torch) whose one frame has a transformer-like post-grad graph printed as
torch prints it (``print_readable``), with one generated kernel per fused group and extern
matmuls, origins carrying module paths (``layers.N.attn``...) and kernel times. Then times,
for the full graph and for the views a user gets by default (``--max-nodes 400``) or asks for:
parsing + building the DOT text (inspectc's part) and ``dot -Tsvg`` (Graphviz's part).

    python benchmarks/bench_graph.py [--nodes 10000] [--skip-full]

Prints a table; no timed assertions. Needs Graphviz's ``dot`` on PATH.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inspectc.model import CompileId, Frame, Kernel, KernelTime, Origin
from inspectc.render.graph import fusion_dot
from inspectc.store.open import open_report
from inspectc.store.writer import ReportWriter

FILE = "/home/alice/model/transformer.py"
# A node statement as graphviz writes it: a tab, an ID (quoted or bare) and its attributes.
NODE_LINE = re.compile(r'^\t+(?!(?:graph|node|edge) \[)("(?:[^"\\]|\\.)*"|\w+) \[', re.MULTILINE)
T = '"f32[8, 128, 256][32768, 256, 1]cuda:0"'
S = '"f32[8, 128, 1][128, 1, 1]cuda:0"'


class _Graph:
    """Writes print_readable-style lines and remembers kernels (fused groups)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.params: list[str] = []
        self.count = 0
        self.kernels: list[tuple[str, str, list[str], str, str]] = []  # name, lang, nodes, op, module

    def param(self) -> str:
        name = f"primals_{len(self.params) + 1}"
        self.params.append(f'{name}: "f32[256, 256][256, 1]cuda:0"')
        return name

    def op(self, target: str, args: str, annot: str = T) -> str:
        self.count += 1
        name = f"{target.split('.')[0]}_{self.count}"
        self.lines.append(f"        {name}: {annot} = torch.ops.aten.{target}({args})")
        return name

    def layer(self, i: int, x: str) -> str:
        mod = f"layers.{i}"
        self.lines.append(f"\n        # File: {FILE}:{40 + i % 7} in forward, code: x = self.block(x)")
        # layer norm (one reduction kernel)
        vm = self.op("var_mean.correction", f"{x}, [2], correction = 0, keepdim = True", S)
        mean = self.op("getitem.default", vm, S)
        add = self.op("add.Tensor", f"{vm}, 1e-05", S)
        rs = self.op("rsqrt.default", add, S)
        sub = self.op("sub.Tensor", f"{x}, {mean}")
        ln = self.op("mul.Tensor", f"{sub}, {rs}")
        self.kernels.append(
            (
                f"triton_red_fused_layer_norm_{i}",
                "triton",
                [vm, mean, add, rs, sub, ln],
                "var_mean",
                f"{mod}.ln_1",
            )
        )
        # attention: qkv matmul (extern), softmax (kernel), out projection (extern)
        w = self.param()
        perm = self.op("permute.default", f"{w}, [1, 0]")
        qkv = self.op("mm.default", f"{ln}, {perm}")
        self.kernels.append((f"extern_kernels.mm:{2 * i + 1}", "extern", [qkv], "mm", f"{mod}.attn.qkv"))
        scores = self.op("bmm.default", f"{qkv}, {qkv}")
        amax = self.op("amax.default", f"{scores}, [-1], True", S)
        sub2 = self.op("sub.Tensor", f"{scores}, {amax}")
        exp = self.op("exp.default", sub2)
        total = self.op("sum.dim_IntList", f"{exp}, [-1], True", S)
        soft = self.op("div.Tensor", f"{exp}, {total}")
        self.kernels.append(
            (f"triton_per_fused_softmax_{i}", "triton", [amax, sub2, exp, total, soft], "amax", f"{mod}.attn")
        )
        ctx = self.op("bmm.default", f"{soft}, {qkv}")
        w2 = self.param()
        perm2 = self.op("permute.default", f"{w2}, [1, 0]")
        proj = self.op("mm.default", f"{ctx}, {perm2}")
        self.kernels.append((f"extern_kernels.mm:{2 * i + 2}", "extern", [proj], "mm", f"{mod}.attn.proj"))
        res = self.op("add.Tensor", f"{x}, {proj}")
        # MLP with GELU (one pointwise kernel) and a residual add
        w3 = self.param()
        up = self.op("mm.default", f"{res}, {w3}")
        half = self.op("mul.Tensor", f"{up}, 0.5")
        scaled = self.op("mul.Tensor", f"{up}, 0.7071067811865476")
        erf = self.op("erf.default", scaled)
        one = self.op("add.Tensor", f"{erf}, 1")
        gelu = self.op("mul.Tensor", f"{half}, {one}")
        self.kernels.append(
            (f"triton_poi_fused_gelu_{i}", "triton", [half, scaled, erf, one, gelu], "erf", f"{mod}.mlp.act")
        )
        w4 = self.param()
        down = self.op("mm.default", f"{gelu}, {w4}")
        out = self.op("add.Tensor", f"{res}, {down}")
        self.kernels.append((f"triton_poi_fused_add_{i}", "triton", [res, out], "add", mod))
        return out

    def text(self, x: str) -> str:
        head = f"class GraphModule(torch.nn.Module):\n    def forward(self, {', '.join(self.params)}):"
        return "\n".join([head, *self.lines, f"        return ({x},)", ""])


def build_report(path: Path, nodes: int) -> int:
    graph = _Graph()
    x = graph.param()
    layer = 0
    while graph.count + len(graph.params) < nodes:
        x = graph.layer(layer, x)
        layer += 1
    text = graph.text(x)
    writer = ReportWriter(path)
    seq = writer.add_event(
        name="inductor_post_grad_graph", metadata={}, payload=text, compile_id="0/0", rank=None, ts=0.0
    )
    writer.put_graph(rank=None, compile_id="0/0", kind="post_grad", seq=seq)
    rng = random.Random(0)
    times = [rng.uniform(1, 50) for _ in graph.kernels]
    total = sum(times)
    for (name, lang, members, op, module), spent in zip(graph.kernels, times, strict=True):
        kernel = Kernel(
            id=-1,
            compile_id=CompileId.parse("0/0"),
            name=name,
            language=lang,
            kind="extern" if lang == "extern" else "pointwise",
            source_size=100,
            fused_nodes=tuple(members),
            origins=(Origin(op=f"aten.{op}", filename=FILE, line=40, module=module),),
            time=KernelTime(
                calls=10, total_us=spent * 10, mean_us=spent, min_us=spent, max_us=spent, share=spent / total
            ),
        )
        writer.add_kernel(kernel, rank=None, seq=seq, start=0, stop=1)
    writer.put_frame(
        Frame(
            compile_id=CompileId.parse("0/0"),
            function="forward",
            filename=FILE,
            line=30,
            status="ok",
            graph_kinds=("post_grad",),
        )
    )
    writer.close()
    return graph.count + len(graph.params)


def dot_seconds(text: str, out: Path, timeout: float) -> float | None:
    start = time.perf_counter()
    try:
        subprocess.run(["dot", "-Tsvg", "-o", str(out)], input=text.encode(), check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--skip-full", action="store_true", help="do not lay out the uncollapsed graph")
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds before giving up on one dot run"
    )
    opts = parser.parse_args()
    if shutil.which("dot") is None:
        sys.exit("bench_graph: Graphviz's dot is not on PATH (apt-get install graphviz)")
    work = Path(tempfile.mkdtemp(prefix="bench-graph-"))
    report_path = work / "big.inspectc"
    count = build_report(report_path, opts.nodes)
    views: list[tuple[str, dict]] = [
        ("full graph (--max-nodes 0)", {}),
        ("default (--max-nodes 400)", {"max_nodes": 400}),
        ("--collapse 2", {"collapse": 2}),
        ("--module layers.3", {"module": "layers.3"}),
    ]
    if opts.skip_full:
        views = views[1:]
    print(
        f"synthetic post-grad graph: {count} nodes; dot: {subprocess.run(['dot', '-V'], capture_output=True, text=True).stderr.strip()}"
    )
    print(f"{'view':<30} {'DOT nodes':>9} {'DOT edges':>9} {'build s':>8} {'dot -Tsvg s':>12} {'SVG MB':>7}")
    with open_report(report_path) as report:
        for label, kwargs in views:
            start = time.perf_counter()
            text = fusion_dot(report, CompileId(frame=0, compile=0), **kwargs)
            build = time.perf_counter() - start
            n_nodes = len(NODE_LINE.findall(text))
            n_edges = text.count(" -> ")
            svg = work / "out.svg"
            spent = dot_seconds(text, svg, opts.timeout)
            size = svg.stat().st_size / 1e6 if spent is not None else float("nan")
            shown = f"{spent:12.1f}" if spent is not None else f"{'> ' + str(int(opts.timeout)):>12}"
            print(f"{label:<30} {n_nodes:>9} {n_edges:>9} {build:>8.2f} {shown} {size:>7.1f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
