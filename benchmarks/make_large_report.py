"""Build a large, realistic inspectc report for the TUI benchmark and its load tests.

    python benchmarks/make_large_report.py out/large.inspectc            # 1,000 frames
    python benchmarks/make_large_report.py /tmp/small.inspectc --frames 50 --source-mb 5

The default is the size the TUI must stay responsive on: 1,000 compiled frames, 5,000
kernels and about 100 MB of source (FX graphs, Inductor output code, Triton and C++
kernels). Content imitates what torch 2.x emits (graph-break texts with hints and user
stacks, guard trees, FX graphs with ``# File:`` comments, output code with kernel
headers), with file paths of another machine (``/home/alice/...``) so readers must cope
with source they cannot open. Deterministic: the same arguments give the same report.
It writes rows with :class:`inspectc.store.factory.ReportFactory` (the real ReportWriter,
as capture orders them), the factory the tests use too; no torch needed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

from inspectc.model import (
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_OK,
    CompileId,
    CompileMetrics,
    Failure,
    Frame,
    GraphBreak,
    Guard,
    Kernel,
    KernelTime,
    Origin,
    Recompile,
    Run,
    StackFrame,
)
from inspectc.store.factory import ReportFactory

ROOT = "/home/alice/src/vision-llm"
MODULES = ["attention", "mlp", "norm", "embed", "rotary", "moe", "loss", "decoder", "encoder", "vit"]
FUNCS = ["forward", "_attn", "_ffn", "_norm", "apply_rotary", "route", "compute_loss", "step", "_proj"]
OPS = ["mul", "add", "sin", "cos", "exp", "relu", "gelu", "sigmoid", "tanh", "sub", "div", "rsqrt", "mean"]
BREAKS = [
    (
        "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "GB0124",
        "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
        (
            "Set `torch._dynamo.config.capture_scalar_outputs = True` or "
            "`export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured graph.",
        ),
    ),
    (
        "Call to `torch._dynamo.graph_break()`",
        "GB0025",
        "User-inserted graph break. Message: None",
        ("Remove the `torch._dynamo.graph_break()` call.",),
    ),
    (
        "Attempted to call function marked as skipped",
        "GB0007",
        "Dynamo developers have intentionally marked that the function `crc32` in file `zlib` should not be traced.",
        ("Avoid calling the function `crc32`.", "Apply `@torch._dynamo.dont_skip_tracing` to the function."),
    ),
    (
        "Data-dependent branching",
        "GB0170",
        "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing "
        "dynamic control flow.",
        (
            "This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through "
            "your code. Consider finding a workaround.",
            "Use `torch.cond` to express dynamic control flow.",
        ),
    ),
    (
        "Unsupported builtin print [bold red]not markup[/]",
        "GB0141",
        "Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)",
        ("Avoid calling builtin `print` with argument types ['str'].",),
    ),
]
GUARD_KINDS = ["TENSOR_MATCH", "TYPE_MATCH", "ID_MATCH", "DICT_LENGTH", "EQUALS_MATCH", "GLOBAL_STATE"]


def _path(rng: random.Random) -> str:
    return f"{ROOT}/models/{rng.choice(MODULES)}_{rng.randrange(40)}.py"


def _stack(rng: random.Random, n: int) -> tuple[StackFrame, ...]:
    return tuple(
        StackFrame(
            filename=_path(rng),
            line=rng.randrange(10, 900),
            function=rng.choice(FUNCS),
            code=f"x = self.{rng.choice(OPS)}(x)",
        )
        for _ in range(n)
    )


def _break(rng: random.Random) -> GraphBreak:
    reason, gb_id, explanation, hints = rng.choice(BREAKS)
    stack = _stack(rng, rng.randrange(2, 6))
    top = stack[-1]
    raw = (
        f"Graph break in user code at {top.filename}:{top.line}\nGraph Break Reason: {reason}\n"
        f"  Explanation: {explanation}\n" + "".join(f"  Hint: {h}\n" for h in hints)
    )
    return GraphBreak(
        reason=reason,
        gb_type=reason.split(" with")[0],
        gb_id=gb_id,
        explanation=explanation,
        hints=hints,
        filename=top.filename,
        line=top.line,
        user_stack=stack,
        raw=raw,
    )


def _guards(rng: random.Random, n: int) -> tuple[Guard, ...]:
    out = [Guard(kind="TREE_GUARD_MANAGER", source=None, code="TREE_GUARD_MANAGER:", depth=0)]
    for i in range(n):
        kind = rng.choice(GUARD_KINDS)
        source = f"L['self']._modules['layers']._modules['{i % 24}']._parameters['weight']"
        if kind == "TENSOR_MATCH":
            code = f"check_tensor({source}, Tensor, DispatchKeySet(CPU), torch.float32, device=None, size=[{rng.choice((64, 128, 4096))}, 64], stride=[64, 1])"
        elif kind == "TYPE_MATCH":
            code = f"___check_type_id({source}, {rng.randrange(10**14, 10**15)})"
        else:
            code = f"{kind}: {source}"
        out.append(
            Guard(
                kind=kind,
                source=source,
                code=code,
                user_code=f"self.layers[{i % 24}](x)",
                filename=_path(rng),
                line=rng.randrange(10, 900),
                depth=1 + (i % 3),
            )
        )
    return tuple(out)


def _fx_graph(rng: random.Random, nodes: list[str], title: str) -> str:
    lines = [f"class {title}(torch.nn.Module):", '    def forward(self, arg0_1: "f32[64, 64][64, 1]cpu"):']
    prev = "arg0_1"
    for node in nodes:
        op = node.rstrip("_0123456789") or "add"
        lines.append(
            f"         # File: {_path(rng)}:{rng.randrange(10, 900)} in forward, code: x = torch.{op}(x)"
        )
        lines.append(
            f'        {node}: "f32[64, 64][64, 1]cpu" = torch.ops.aten.{op}.default({prev});  {prev} = None'
        )
        prev = node
    lines.append(f"        return ({prev},)")
    return "\n".join(lines) + "\n"


def _kernel_source(rng: random.Random, name: str, nodes: list[str], size: int) -> str:
    head = [
        f"# kernel path: /tmp/torchinductor_alice/{rng.randrange(16**2):02x}/c{rng.getrandbits(160):040x}.py",
        f"# Topologically Sorted Source Nodes: [{', '.join(nodes)}], Original ATen: [{', '.join('aten.' + n.rstrip('_0123456789') for n in nodes)}]",
        "# Source node to ATen node mapping:",
        *(f"#   {n} => {n}" for n in nodes),
        f"{name} = async_compile.triton('{name}', '''",
        "import triton",
        "import triton.language as tl",
        "",
        "@triton_heuristics.pointwise(",
        f"    size_hints={{'x': {rng.choice((1024, 4096, 65536))}}},",
        f"    inductor_meta={{'kernel_name': '{name}', 'num_load': {len(nodes)}}},",
        ")",
        "@triton.jit",
        f"def {name}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):",
        "    xoffset = tl.program_id(0) * XBLOCK",
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
        "    xmask = xindex < xnumel",
    ]
    body: list[str] = []
    i = 0
    length = sum(len(x) + 1 for x in head)
    while length < size:
        line = (
            f"    tmp{i + 1} = tmp{i} * {rng.random():.6f} + tl.{rng.choice(('sin', 'cos', 'exp', 'abs'))}"
            f"(tmp{max(0, i - rng.randrange(1, 4))})  # {rng.choice(nodes)}"
        )
        body.append(line)
        length += len(line) + 1
        i += 1
    tail = [f"    tl.store(out_ptr0 + (xindex), tmp{i}, xmask)", "''', device_str='cuda')", ""]
    return "\n".join(["", *head, "    tmp0 = tl.load(in_ptr0 + (xindex), xmask)", *body, *tail])


def build(
    path: str | Path,
    *,
    frames: int = 1000,
    kernels_per_frame: int = 5,
    source_mb: float = 100,
    rank: int | None = None,
    world_size: int | None = None,
) -> dict:
    """Write the report at *path*; return counts (frames, kernels, source bytes). With *rank*,
    one rank's report of a run of *world_size* processes (``inspectc merge`` joins them)."""
    rng = random.Random(1234 + (rank or 0) // 8)  # ranks 0-7 alike, 8-15 alike...: some differ
    w = ReportFactory(path, rank=rank)
    per_frame = int(source_mb * 1_000_000 / max(frames, 1))
    kernel_size = max(800, int(per_frame * 0.85 / max(kernels_per_frame, 1)))
    w.run(
        Run(
            argv=("inspectc", "run", "train.py", "--config", "vit-l.yaml"),
            cwd=ROOT,
            mode="script",
            started=1_700_000_000.0,
            ended=1_700_003_600.0,
            exit_code=0,
            end_reason="exit",
            python_version="3.12.3",
            torch_version="2.13.0+cu128",
            triton_version="3.5.0",
            cuda_version="12.8",
            devices=("NVIDIA H100 80GB HBM3",),
            platform="Linux-6.8.0-x86_64",
            hostname="gpu-node-17",
            pid=4242,
            rank=rank,
            world_size=world_size,
        ),
    )
    source_bytes = 0
    kernel_total = 0
    for i in range(frames):
        cid = f"{i // 4}/{i % 4}"
        function = rng.choice(FUNCS)
        filename = _path(rng)
        line = rng.randrange(10, 900)
        roll = rng.random()
        breaks = tuple(_break(rng) for _ in range(rng.randrange(1, 3))) if roll < 0.25 else ()
        failure = (
            Failure(
                fail_type="TorchRuntimeError",
                reason="Failed running call_function aten.mm",
                filename=filename,
                line=line,
            )
            if 0.25 <= roll < 0.27
            else None
        )
        recompiles = (
            (
                Recompile(
                    text=f"{i // 4}/{i % 4 - 1}: tensor 'x' size mismatch at index 0. expected 64, actual 128",
                    earlier_compile_id=CompileId(frame=i // 4, compile=i % 4 - 1),
                    guard="tensor 'x' size mismatch at index 0. expected 64, actual 128",
                ),
            )
            if i % 4
            else ()
        )
        status = (
            STATUS_FAILED
            if failure
            else STATUS_GRAPH_BREAK
            if breaks
            else STATUS_EMPTY
            if roll > 0.98
            else STATUS_OK
        )
        kinds = ["dynamo", "aot_forward", "post_grad", "output_code", "guards"]
        nodes = [f"{rng.choice(OPS)}_{j}" for j in range(kernels_per_frame * 3)]
        ts = 1_700_000_000.0 + i * 3.0
        w.event("dynamo_start", compile_id=cid, metadata={"dynamo_start": {"stack": []}}, ts=ts)
        for kind, title in (
            ("dynamo", "GraphModule"),
            ("aot_forward", "GraphModule"),
            ("post_grad", "<lambda>"),
        ):
            text = _fx_graph(rng, nodes, title)
            w.graph(cid, kind, text, name=f"{kind}_graph", ts=ts)
            source_bytes += len(text)
        guards = _guards(rng, rng.randrange(20, 60))
        gtext = "\n".join("| " * g.depth + "+- " + g.code for g in guards)
        w.graph(cid, "guards", gtext, ts=ts)
        kernels: list[tuple[Kernel, str]] = []
        for k in range(kernels_per_frame):
            fused = nodes[k * 3 : k * 3 + 3]
            name = f"triton_poi_fused_{'_'.join(n.rstrip('_0123456789') for n in fused)}_{k}"
            src = _kernel_source(rng, name, fused, int(kernel_size * rng.uniform(0.5, 1.5)))
            calls = 10
            total = rng.uniform(5, 5000) * calls
            kernel = Kernel(
                id=-1,
                compile_id=CompileId.parse(cid),
                name=name,
                language="triton",
                kind="pointwise",
                source_size=len(src),
                fused_nodes=tuple(fused),
                origins=tuple(
                    Origin(
                        op=f"aten.{n.rstrip('_0123456789')}",
                        filename=_path(rng),
                        line=rng.randrange(10, 900),
                        module="vit.blocks.0.mlp",
                    )
                    for n in fused
                ),
                time=KernelTime(
                    calls=calls,
                    total_us=total,
                    mean_us=total / calls,
                    min_us=total / calls * 0.9,
                    max_us=total / calls * 1.2,
                    share=None,
                ),
            )
            kernels.append((kernel, src))
        frame_total = sum(k.time.total_us for k, _ in kernels if k.time)
        shared = [
            (replace(k, time=replace(k.time, share=k.time.total_us / frame_total)), src)
            for k, src in kernels
            if k.time
        ]
        head = "# AOT ID: ['0_inference']\nimport torch\nimport triton\nimport triton.language as tl\n"
        tail = "\n\ndef call(args):\n" + "".join(
            f"    {k.name}.run(buf0, buf1, 4096, stream=stream0)\n" for k, _ in kernels
        )
        metadata = {"inductor_output_code": {"filename": "/tmp/x.py"}}
        _, code = w.output_code(cid, [head, *shared, tail], metadata=metadata, ts=ts)
        source_bytes += len(code)
        kernel_total += len(shared)
        for n in range(6):
            phase = json.dumps({"name": f"phase{n}", "ph": "B"})
            w.event("chromium_event", phase, compile_id=cid, metadata={"chromium_event": {}}, ts=ts + n)
        metrics = {"compilation_metrics": {"co_name": function}}
        w.event("compilation_metrics", compile_id=cid, metadata=metrics, ts=ts + 2)
        total_s = rng.uniform(0.5, 30)
        w.frame(
            Frame(
                compile_id=CompileId.parse(cid),
                rank=rank,
                ordinal=i,
                function=function,
                filename=filename,
                line=line,
                user_stack=_stack(rng, 3),
                status=status,
                failure=failure,
                cache={"fx_graph": rng.choice(("hit", "miss")), "aot_autograd": "miss"},
                graph_breaks=breaks,
                recompiles=recompiles,
                guards=guards,
                metrics=CompileMetrics(
                    entire_frame_s=total_s,
                    backend_s=total_s * 0.8,
                    inductor_s=total_s * 0.7,
                    codegen_s=total_s * 0.1,
                    op_count=len(nodes),
                    node_count=len(nodes) + 2,
                    input_count=1,
                    guard_count=len(guards),
                    start_time=ts,
                ),
                graph_kinds=tuple(kinds),
                kernel_count=kernels_per_frame,
                region_time_us=frame_total * 1.1,
                region_calls=10,
                attempts=1 + len(breaks),
            )
        )
    w.close()
    return {"frames": frames, "kernels": kernel_total, "source_bytes": source_bytes}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("output")
    p.add_argument("--frames", type=int, default=1000)
    p.add_argument("--kernels-per-frame", type=int, default=5)
    p.add_argument("--source-mb", type=float, default=100)
    p.add_argument("--rank", type=int, help="write one rank's report (with --world-size)")
    p.add_argument("--world-size", type=int)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    counts = build(
        args.output,
        frames=args.frames,
        kernels_per_frame=args.kernels_per_frame,
        source_mb=args.source_mb,
        rank=args.rank,
        world_size=args.world_size,
    )
    size = Path(args.output).stat().st_size
    print(
        f"{args.output}: {counts['frames']} frames, {counts['kernels']} kernels, "
        f"{counts['source_bytes'] / 1e6:.1f} MB of source, file {size / 1e6:.1f} MB, "
        f"built in {time.perf_counter() - t0:.1f}s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
