"""Small purpose-made reports for TUI tests, written with the real ReportWriter.

The golden reports in samples/reports come from real capture; these (made with
:class:`inspectc.store.factory.ReportFactory`) add what a capture
on this machine cannot produce on demand: hostile text (Rich markup, ANSI escapes,
control characters) in every string a reader shows, paths of another machine, kernel
provenance (fused nodes and origins) for fusion navigation, and an empty frame.
"""

from __future__ import annotations

from pathlib import Path

from inspectc.model import (
    STATUS_EMPTY,
    STATUS_GRAPH_BREAK,
    CompileId,
    CompileMetrics,
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

MARKUP = "[bold red]not markup[/]"
ANSI = "\x1b[31mred\x1b[0m"
ELSEWHERE = "/nonexistent/alice/model.py"

POST_GRAD = """class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[64][1]cpu"):
        # File: {src}:2 in fn, code: y = torch.sin(x)
        sin: "f32[64][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
        # File: {src}:3 in fn, code: z = torch.sin(y)
        sin_1: "f32[64][1]cpu" = torch.ops.aten.sin.default(sin);  sin = None
        # File: {src}:4 in fn, code: return z * 2
        mul: "f32[64][1]cpu" = torch.ops.aten.mul.Tensor(sin_1, 2);  sin_1 = None
        return (mul,)
"""

KERNEL_SIN = '''cpp_fused_sin_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r"""
extern "C" void kernel(const float* in_ptr0, float* out_ptr0)
{
    for(int64_t x0=0; x0<64; x0+=1)
    {
        auto tmp0 = in_ptr0[x0];
        auto tmp1 = std::sin(tmp0);
        auto tmp2 = std::sin(tmp1);
        out_ptr0[x0] = tmp2;
    }
}
""")
'''
KERNEL_MUL = '''cpp_fused_mul_1 = async_compile.cpp_pybinding(['const float*', 'float*'], r"""
extern "C" void kernel(const float* in_ptr0, float* out_ptr0)
{
    for(int64_t x0=0; x0<64; x0+=1) { out_ptr0[x0] = in_ptr0[x0] * 2.0f; }
}
""")
'''

USER_SOURCE = "import torch\ny = torch.sin(x)\nz = torch.sin(y)\nreturn_value = z * 2\n"


def write_fusion_report(path: Path, src: Path) -> Path:
    """Frame 0/0 with a post-grad graph and two kernels whose provenance names its nodes;
    frame 1/0 hostile; frame 2/0 empty. *src* is a real user file for origins."""
    src.write_text(USER_SOURCE, encoding="utf-8")
    w = ReportFactory(
        path,
        Run(
            argv=("inspectc", "run", f"model{MARKUP}.py", ANSI),
            cwd="/nonexistent/alice",
            mode="script",
            exit_code=1,
            end_reason="exit",
            exception=f"RuntimeError: {MARKUP} {ANSI}",
            python_version="3.12.0",
            torch_version="2.13.0+cpu",
        ),
    )
    # Frame 0/0: fusion provenance.
    w.graph("0/0", "post_grad", POST_GRAD.format(src=src))
    sin = Kernel(
        id=-1,
        compile_id=CompileId.parse("0/0"),
        name="cpp_fused_sin_0",
        language="cpp",
        kind="pointwise",
        source_size=len(KERNEL_SIN),
        fused_nodes=("sin", "sin_1"),
        origins=(
            Origin(op="aten.sin.default", filename=str(src), line=2, module="fn"),
            Origin(op="aten.sin.default", filename=ELSEWHERE, line=3, module="fn"),
        ),
        time=KernelTime(calls=10, total_us=300.0, mean_us=30.0, min_us=25.0, max_us=40.0, share=0.75),
    )
    mul = Kernel(
        id=-1,
        compile_id=CompileId.parse("0/0"),
        name="cpp_fused_mul_1",
        language="cpp",
        kind="pointwise",
        source_size=len(KERNEL_MUL),
        fused_nodes=("mul",),
        origins=(Origin(op="aten.mul.Tensor", filename=str(src), line=4, module="fn"),),
        time=KernelTime(calls=10, total_us=100.0, mean_us=10.0, min_us=9.0, max_us=12.0, share=0.25),
    )
    pieces = [
        "# AOT ID: ['0_inference']\n",
        (sin, KERNEL_SIN),
        (mul, KERNEL_MUL),
        "\ndef call(args):\n    pass\n",
    ]
    w.output_code("0/0", pieces, ts=2.0)
    w.frame(
        Frame(
            compile_id=CompileId.parse("0/0"),
            ordinal=0,
            function="fn",
            filename=str(src),
            line=1,
            status="ok",
            graph_kinds=("post_grad", "output_code"),
            kernel_count=2,
            metrics=CompileMetrics(entire_frame_s=1.5, op_count=3),
            guards=(
                Guard(kind="TREE_GUARD_MANAGER", source=None, code="TREE_GUARD_MANAGER:", depth=0),
                Guard(kind="TENSOR_MATCH", source="L['x']", code="check_tensor(L['x'], size=[64])", depth=1),
                Guard(kind="TYPE_MATCH", source="L['y']", code="___check_type_id(L['y'], 1)", depth=1),
            ),
        )
    )
    # Frame 1/0: every shown string is hostile, paths are from another machine.
    w.event(f"weird{ANSI}", f"payload {ANSI} {MARKUP}", compile_id="1/0", metadata={"note": MARKUP}, ts=3.0)
    seq = w.graph("1/0", "dynamo", f"# {MARKUP}\nx = 1  # {ANSI}\n", ts=3.0)
    hostile_kernel = Kernel(
        id=-1,
        compile_id=CompileId.parse("1/0"),
        name=f"triton_{MARKUP}",
        language="triton",
        kind="pointwise",
        source_size=5,
    )
    w.kernel(hostile_kernel, seq=seq, start=0, stop=5)
    hostile_break = GraphBreak(
        reason=f"Unsupported {MARKUP} {ANSI}\x07bell",
        gb_type=f"Type {MARKUP}",
        explanation=f"explained {ANSI}",
        hints=(f"hint {MARKUP}",),
        filename=f"{ELSEWHERE[:-3]}{MARKUP}.py",
        line=7,
        user_stack=(StackFrame(filename=ELSEWHERE, line=7, function=f"f{MARKUP}", code=f"x = {ANSI}"),),
    )
    w.frame(
        Frame(
            compile_id=CompileId.parse("1/0"),
            ordinal=1,
            function=f"fn{MARKUP}",
            filename=ELSEWHERE,
            line=5,
            status=STATUS_GRAPH_BREAK,
            graph_breaks=(hostile_break,),
            graph_kinds=("dynamo",),
            kernel_count=1,
            recompiles=(
                Recompile(
                    text=f"0/0: {MARKUP}", earlier_compile_id=CompileId.parse("0/0"), guard=f"L['x'] {MARKUP}"
                ),
            ),
            guards=(Guard(kind=f"KIND{ANSI}", source=f"L['{MARKUP}']", code=f"code {MARKUP}", depth=1),),
        )
    )
    # Frame 2/0: nothing at all.
    w.frame(Frame(compile_id=CompileId.parse("2/0"), ordinal=2, status=STATUS_EMPTY))
    return w.close()


def write_empty_report(path: Path) -> Path:
    """A run killed before anything compiled: a header and nothing else."""
    return ReportFactory(
        path, Run(argv=("inspectc", "run", "train.py"), end_reason="killed"), inspectc_version=None
    ).close()
