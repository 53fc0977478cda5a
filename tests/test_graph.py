"""Graphviz export: real `dot` lays out what inspectc.render.graph writes; the structure is checked.

Fusion view: one cluster per generated kernel, whose members are exactly the kernel's
``fused_nodes``; edges are the FX graph's data flow (read here with a few lines of
independent parsing); extern kernels, inputs and outputs have their own shapes. Break view:
one box per compiled frame, one labelled edge per graph break into the resume frame, the
recompiles of a frame stacked in one cluster. Hostile names render in every format.
Reports are golden reports from real capture (no torch) or built with ReportWriter.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import graphviz
import pytest
from conftest import run_cli

from inspectc.errors import UsageError
from inspectc.model import (
    CompileId,
    Failure,
    Frame,
    GraphBreak,
    Kernel,
    KernelTime,
    Origin,
    Recompile,
    Run,
    StackFrame,
)
from inspectc.model import fxgraph as fxtext
from inspectc.render.graph import (
    GraphvizMissing,
    RenderError,
    breaks_dot,
    clean,
    fusion_dot,
    html,
    node_modules,
    quote,
    render,
    svg,
)
from inspectc.store.open import open_report
from inspectc.store.reader import Report
from inspectc.store.writer import ReportWriter

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")

# The kernels of samples/mlp_train.py's forward (torch 2.13, CPU) and the post-grad nodes
# each one fused, as Inductor's provenance tracking reported them
# (`inductor_provenance_tracking_node_mappings`, cppCodeToPost; calls of one kernel merged).
MLP_FORWARD_FUSED = {
    "cpp_fused_gelu_native_layer_norm_0": (
        "var_mean", "mul_2", "mul", "add", "erf", "mul_1", "rsqrt", "add_1", "add_2", "mul_4",
        "mul_3", "sub", "getitem_1", "var_mean_1", "mul_7", "mul_5", "add_4", "erf_1", "mul_6",
        "rsqrt_1", "add_5", "add_6", "mul_9", "mul_8", "sub_1", "getitem_3",
    ),
    "cpp_fused_add_1": ("add_3", "add_7"),
    "extern_kernels.addmm:1": ("addmm",),
    "extern_kernels.addmm:2": ("addmm_1",),
    "extern_kernels.addmm:3": ("addmm_2",),
    "extern_kernels.addmm:4": ("addmm_3",),
    "extern_kernels.addmm:5": ("addmm_4",),
}  # fmt: skip
# Their origins as capture records them: pre-grad op names; modules only for ops with parameters.
MLP_ORIGINS = {
    "cpp_fused_gelu_native_layer_norm_0": (
        ("gelu", None), ("layer_norm", "layers.0.norm"), ("gelu_1", None), ("layer_norm_1", "layers.1.norm"),
    ),
    "cpp_fused_add_1": (("x", None), ("x_1", None)),
    "extern_kernels.addmm:1": (("linear", "layers.0.fc"),),
    "extern_kernels.addmm:2": (("linear_1", "layers.0.proj"),),
    "extern_kernels.addmm:3": (("linear_2", "layers.1.fc"),),
    "extern_kernels.addmm:4": (("linear_3", "layers.1.proj"),),
    "extern_kernels.addmm:5": (("linear_4", "head"),),
}  # fmt: skip

HOSTILE = "we\"ird\\ <b>&amp; {x|y} 'q' ünïcödé 🔥 \x1b[31m\x00 ]]> end\\"


# --------------------------------------------------------------------------- helpers


def layout(dot_text: str) -> dict:
    """What real `dot` made of *dot_text* (-Tjson: clusters, nodes, edges with attributes)."""
    proc = subprocess.run(["dot", "-Tjson"], input=dot_text.encode(), capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def clusters(data: dict) -> dict[str, set[str]]:
    objects = data.get("objects", [])
    names = {o["_gvid"]: o["name"] for o in objects if "nodes" not in o}
    return {o["name"]: {names[i] for i in o.get("nodes", [])} for o in objects if "nodes" in o}


def nodes(data: dict) -> dict[str, dict]:
    return {o["name"]: o for o in data.get("objects", []) if "nodes" not in o}


def edges(data: dict) -> list[tuple[str, str, dict]]:
    names = {o["_gvid"]: o["name"] for o in data.get("objects", [])}
    return [(names[e["tail"]], names[e["head"]], e) for e in data.get("edges", [])]


def fx_name(node_id: str) -> str | None:
    """``fx/mul_3`` and ``fx/mul_3@k4`` (a copy recomputed in kernel 4) -> ``mul_3``."""
    return node_id[3:].split("@k")[0] if node_id.startswith("fx/") else None


_DEF = re.compile(r'^\s+(\w+)(?:: "[^"]*")? = (.*)$')


def fx_edges(graph_text: str) -> set[tuple[str, str]]:
    """Data-flow edges of a printed FX graph, read independently of inspectc.model.fxgraph."""
    header = re.search(r"def forward\(self, (.*)\):", graph_text)
    known = set(re.findall(r"(\w+):", header.group(1))) if header else set()
    found = set()
    for line in graph_text.splitlines():
        match = _DEF.match(line)
        if not match:
            continue
        name, rhs = match.groups()
        rhs = rhs.split(";")[0]
        call = rhs[rhs.find("(") :] if "(" in rhs else rhs
        for word in re.findall(r"(?<![\w.])(\w+)", call):
            if word in known:
                found.add((word, name))
        known.add(name)
    return found


def with_provenance(golden: Path, tmp_path: Path, *, always: bool = False) -> Report:
    """The golden MLP report with kernels carrying fused nodes, origins (modules) and times.

    Once capture records provenance in the golden report, that report itself is used (unless
    *always*: the collapse tests need the module paths set here).
    """
    src = open_report(golden / "mlp_train.inspectc")
    if not always and any(k.fused_nodes for k in src.kernels):
        return src
    frame = src.frame(CompileId.parse("0/0"))
    assert frame is not None
    out = tmp_path / "mlp_prov.inspectc"
    writer = ReportWriter(out)
    for kind in frame.graph_kinds:
        text = src.graph(CompileId.parse("0/0"), kind)
        if text is not None:
            seq = writer.add_event(name=kind, metadata={}, payload=text, compile_id="0/0", rank=None, ts=0.0)
            writer.put_graph(rank=None, compile_id="0/0", kind=kind, seq=seq)
    total = float(len(src.kernels))
    for i, kernel in enumerate(src.kernels, 1):
        fused = MLP_FORWARD_FUSED.get(kernel.name, ()) if kernel.graph_kind == "output_code" else ()
        origins = tuple(
            Origin(op=op, filename="samples/mlp_train.py", line=21, module=module)
            for op, module in (MLP_ORIGINS.get(kernel.name, ()) if fused else ())
        )
        time = KernelTime(calls=10, total_us=10.0 * i, mean_us=i, min_us=i, max_us=i, share=i / total / 10)
        writer.add_kernel(
            replace(kernel, fused_nodes=fused, origins=origins, time=time),
            rank=None,
            seq=seq,
            start=0,
            stop=1,
        )
    writer.put_frame(frame)
    writer.close()
    src.close()
    return open_report(out)


@pytest.fixture
def mlp(golden: Path, tmp_path: Path) -> Report:
    return with_provenance(golden, tmp_path)


@pytest.fixture
def mlp_modules(golden: Path, tmp_path: Path) -> Report:
    return with_provenance(golden, tmp_path, always=True)


# --------------------------------------------------------------------------- fusion view


@needs_dot
def test_one_cluster_per_generated_kernel_with_exactly_its_fused_nodes(mlp: Report) -> None:
    data = layout(fusion_dot(mlp, CompileId.parse("0/0")))
    found = {name: {fx_name(n) for n in members} for name, members in clusters(data).items()}
    generated = [
        k
        for k in mlp.frame_kernels(CompileId.parse("0/0"))
        if k.graph_kind == "output_code" and k.language != "extern"
    ]
    assert generated and all(k.fused_nodes for k in generated)
    assert set(found) == {f"cluster_k{k.id}" for k in generated}
    for kernel in generated:
        assert found[f"cluster_k{kernel.id}"] == set(kernel.fused_nodes), kernel.name
        label = next(o["label"] for o in data["objects"] if o["name"] == f"cluster_k{kernel.id}")
        assert kernel.name in label and kernel.kind in label  # name, kind, measured time
        assert ("of frame" if kernel.time and kernel.time.share is not None else "not timed") in label


@needs_dot
def test_edges_follow_the_fx_graph(mlp: Report) -> None:
    text = mlp.graph(CompileId.parse("0/0"), "post_grad")
    assert text is not None
    expected = fx_edges(text)
    data = layout(fusion_dot(mlp, CompileId.parse("0/0")))
    drawn = {(fx_name(t), fx_name(h)) for t, h, _ in edges(data) if fx_name(t) and fx_name(h)}
    assert drawn == expected
    # every FX node is drawn once; outputs lead to the one output node
    fx_nodes = {fx_name(n) for n in nodes(data) if fx_name(n)}
    assert fx_nodes == {a for a, _ in expected} | {b for _, b in expected}
    returned = re.search(r"return \((.*)\)", text)
    assert returned is not None
    outs = {o.strip() for o in returned.group(1).split(",") if o.strip()}
    assert {fx_name(t) for t, h, _ in edges(data) if h == "output"} == outs


@needs_dot
def test_inputs_outputs_and_extern_kernels_are_drawn_distinctly(mlp: Report) -> None:
    data = layout(fusion_dot(mlp, CompileId.parse("0/0")))
    drawn = nodes(data)
    forward = [
        k for k in mlp.frame_kernels(CompileId.parse("0/0")) if k.graph_kind == "output_code"
    ]  # fusion_dot draws it
    extern = {n for k in forward if k.language == "extern" for n in k.fused_nodes}
    assert extern
    for name in extern:
        assert drawn[f"fx/{name}"]["shape"] == "box3d"
        assert "extern" in drawn[f"fx/{name}"]["label"]
    inputs = [n for n in drawn if n.startswith("fx/primals_")]
    assert inputs and all(drawn[n]["shape"] == "invhouse" for n in inputs)
    assert drawn["output"]["shape"] == "house"
    assert "legend" in drawn and "share of frame time" in drawn["legend"]["label"]


@needs_dot
def test_backward_graph_uses_backward_kernels(mlp: Report) -> None:
    text = fusion_dot(mlp, CompileId.parse("0/0"), backward=True)
    assert "backward post-grad graph" in text
    data = layout(text)
    backward_graph = mlp.graph(CompileId.parse("0/0"), "post_grad_backward")
    assert backward_graph is not None
    assert {fx_name(n) for n in nodes(data) if fx_name(n)} >= {"tangents_1"}
    ids = {int(name[len("cluster_k") :]) for name in clusters(data)}
    assert all(k.graph_kind == "output_code_backward" for k in mlp.kernels if k.id in ids)


@needs_dot
def test_real_sample_renders_svg_png_and_dot(mlp: Report, tmp_path: Path) -> None:
    text = fusion_dot(mlp, CompileId.parse("0/0"))
    for ext in ("svg", "png", "dot"):
        out = render(text, tmp_path / f"frame.{ext}")
        assert out.stat().st_size > 500
    assert (tmp_path / "frame.dot").read_text() == text
    tree = ET.parse(tmp_path / "frame.svg")
    words = {t.text for t in tree.iter("{http://www.w3.org/2000/svg}text")}
    assert "cpp_fused_add_1" in words
    assert (tmp_path / "frame.png").read_bytes()[:4] == b"\x89PNG"
    assert ET.fromstring(svg(text).encode()).tag.endswith("svg")  # for a notebook's display(SVG(...))


def test_max_nodes_collapses_by_module_then_truncates(mlp_modules: Report) -> None:
    full = layout(fusion_dot(mlp_modules, CompileId.parse("0/0")))
    n_full = len([n for n in nodes(full) if n.startswith("fx/")])
    small = layout(fusion_dot(mlp_modules, CompileId.parse("0/0"), max_nodes=20))
    drawn = [n for n in nodes(small) if n not in ("legend", "output")]
    assert len(drawn) <= 20 < n_full
    assert any(n.startswith(("module/", "kernel/")) for n in drawn)
    assert "nodes:" in small["label"] or "not shown" in small["label"]


def test_module_paths_from_origins(mlp_modules: Report) -> None:
    graph = fxtext.parse(mlp_modules.graph(CompileId.parse("0/0"), "post_grad"))
    found = node_modules(graph, mlp_modules.frame_kernels(CompileId.parse("0/0")))
    assert found["addmm"] == "layers.0.fc" and found["addmm_4"] == "head"
    assert found["permute"] == "layers.0.fc"  # the weight's transpose, in no kernel: its user's
    # one kernel fused both layer norms: each node gets its own layer's
    assert found["var_mean"] == found["erf"] == "layers.0.norm"
    assert found["var_mean_1"] == found["erf_1"] == "layers.1.norm"
    assert "primals_1" not in found  # graph inputs belong to no module


def test_collapse_and_module_filter(mlp_modules: Report) -> None:
    data = layout(fusion_dot(mlp_modules, CompileId.parse("0/0"), collapse=2))
    groups = {n for n in nodes(data) if n.startswith("module/")}
    assert {"module/layers.0", "module/layers.1"} <= groups
    only = layout(fusion_dot(mlp_modules, CompileId.parse("0/0"), module="layers[0].fc"))
    kept = {fx_name(n) for n, o in nodes(only).items() if fx_name(n) and "dashed" not in o.get("style", "")}
    assert "addmm" in kept and "addmm_2" not in kept


def test_unknown_frame_module_and_graph_are_one_line_errors(mlp: Report) -> None:
    with pytest.raises(UsageError, match="no frame 9/9"):
        fusion_dot(mlp, CompileId.parse("9/9"))
    with pytest.raises(UsageError, match="no node of module 'nowhere'"):
        fusion_dot(mlp, CompileId.parse("0/0"), module="nowhere")


# --------------------------------------------------------------------------- break view


@needs_dot
def test_break_view_of_a_run_with_several_breaks(golden: Path) -> None:
    with open_report(golden / "graph_breaks.inspectc") as report:
        frames = report.frames
        data = layout(breaks_dot(report))
    drawn = nodes(data)
    assert {f"frame/{f.compile_id}" for f in frames} <= set(drawn)
    visible = [(t, h, e) for t, h, e in edges(data) if e.get("style") != "invis"]
    breaks = [(t, h, e) for t, h, e in visible if "graph break" in e.get("label", "")]
    with_breaks = [f for f in frames if f.graph_breaks]
    assert len(with_breaks) >= 4 and len(breaks) == len(with_breaks)
    by_id = {f"frame/{f.compile_id}": f for f in frames}
    for tail, head, edge in breaks:
        frame = by_id[tail]
        gb = frame.graph_breaks[0]
        assert by_id[head].function.startswith(f"torch_dynamo_resume_in_{frame.function}_at_")
        assert html(gb.reason[:40]) in edge["label"] and f"graph_breaks.py:{gb.line}" in edge["label"]
    recompiled = [f for f in frames if f.recompiles]
    assert recompiled
    groups = clusters(data)
    for frame in recompiled:
        stack = next(m for m in groups.values() if f"frame/{frame.compile_id}" in m)
        assert stack == {
            f"frame/{f.compile_id}" for f in frames if f.compile_id.frame == frame.compile_id.frame
        }
        incoming = [
            e for t, h, e in visible if h == f"frame/{frame.compile_id}" and "recompile" in e["label"]
        ]
        assert incoming and all(e["style"] == "dashed" for e in incoming)
        assert "mismatch" in " ".join(e["label"] for e in incoming)  # the failed guard


TWO_BREAKS = textwrap.dedent(
    """
    import torch


    def two_breaks(x):
        x = torch.sin(x) + 1
        torch._dynamo.graph_break()
        x = torch.cos(x) * 2
        torch._dynamo.graph_break()
        return torch.tanh(x) - 1


    torch.compile(two_breaks)(torch.randn(16))
    """
)


def break_edges(report: Report) -> dict[str, set[str]]:
    """Frame -> the frames (or eager nodes) its graph-break edges end at, as `dot` read them."""
    found: dict[str, set[str]] = {}
    for tail, head, edge in edges(layout(breaks_dot(report))):
        if "graph break" in edge.get("label", ""):
            found.setdefault(tail, set()).add(head)
    return found


@pytest.fixture(scope="module")
def two_breaks_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real capture of one function with two graph breaks (no golden report has one yet)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    work = tmp_path_factory.mktemp("two-breaks")
    (work / "two_breaks.py").write_text(TWO_BREAKS)
    report = work / "two_breaks.inspectc"
    run_cli("run", "-q", "-o", str(report), "two_breaks.py", cwd=work, check=True)
    return report


@needs_dot
@pytest.mark.capture
@pytest.mark.slow
def test_second_break_of_a_function_ends_at_the_nested_resume_frame(two_breaks_report: Path) -> None:
    at_1, at_2 = (n for n, line in enumerate(TWO_BREAKS.splitlines(), 1) if "graph_break()" in line)
    resume_1, resume_2 = (f"torch_dynamo_resume_in_two_breaks_at_{line}" for line in (at_1, at_2))
    with open_report(two_breaks_report) as report:
        frames = {f.function: f"frame/{f.compile_id}" for f in report.frames}
        # The second resume function is compiled from within the first, named after two_breaks.
        assert set(frames) == {"two_breaks", resume_1, resume_2}
        found = break_edges(report)
    assert found == {
        frames["two_breaks"]: {frames[resume_1]},
        frames[resume_1]: {frames[resume_2]},  # was "continues eagerly"
    }


@needs_dot
def test_breaks_resume_by_the_user_functions_name_and_the_break_line(tmp_path: Path) -> None:
    def frame(n: int, function: str, line: int, breaks: tuple[int, ...] = ()) -> Frame:
        stack = (StackFrame(filename="f.py", line=99, function="main"),)
        return Frame(
            compile_id=CompileId(frame=n, compile=0),
            ordinal=n,
            function=function,
            filename="f.py",
            line=line,
            status="graph_break" if breaks else "ok",
            graph_breaks=tuple(
                GraphBreak(
                    reason="r",
                    filename="f.py",
                    line=b,
                    user_stack=(*stack, StackFrame(filename="f.py", line=b, function="f")),
                )
                for b in breaks
            ),
        )

    writer = ReportWriter(tmp_path / "r.inspectc")
    writer.put_frame(frame(0, "f", 1, breaks=(3,)))
    writer.put_frame(frame(1, "torch_dynamo_resume_in_f_at_3", 3, breaks=(5,)))
    writer.put_frame(frame(2, "torch_dynamo_resume_in_f_at_5", 5, breaks=(7,)))  # 7: not compiled
    writer.put_frame(frame(3, "torch_dynamo_resume_in_g_at_5", 5))  # another function's resume
    writer.close()
    with open_report(tmp_path / "r.inspectc") as report:
        assert break_edges(report) == {
            "frame/0/0": {"frame/1/0"},
            "frame/1/0": {"frame/2/0"},
            "frame/2/0": {"eager/frame/2/0"},
        }


def test_break_view_of_an_empty_report(tmp_path: Path) -> None:
    writer = ReportWriter(tmp_path / "empty.inspectc")
    writer.close()
    with open_report(tmp_path / "empty.inspectc") as report:
        assert "no compiled frames" in breaks_dot(report)


# --------------------------------------------------------------------------- hostile text


def hostile_report(path: Path) -> Path:
    h = HOSTILE
    graph = (
        "class GraphModule(torch.nn.Module):\n"
        '    def forward(self, arg0_1: "f32[8][1]cpu"):\n'
        f"        # File: /tmp/{h}.py:3 in {h}, code: return {h}\n"
        '        sin: "f32[8][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None\n'
        f'        sin_1: "f32[8][1]cpu" = torch.ops.aten.sin.default(sin, "{h}");  sin = None\n'
        '        cos: "f32[8][1]cpu" = torch.ops.aten.cos.default(sin_1)\n'
        "        return (sin_1, cos)\n"
    )
    writer = ReportWriter(path)
    writer.set_meta("run", Run(argv=("inspectc", "run", h), cwd="/tmp"))
    seq = writer.add_event(name="g", metadata={}, payload=graph, compile_id="0/0", rank=None, ts=0.0)
    writer.put_graph(rank=None, compile_id="0/0", kind="post_grad", seq=seq)
    time = KernelTime(calls=1, total_us=5.0, mean_us=5.0, min_us=5.0, max_us=5.0, share=0.6)
    origin = Origin(op=h, filename=h, line=3, module=f"layers.0.{h}")
    for name, lang, fused in ((f"cpp_{h}", "cpp", ("sin", "sin_1", h)), (f"extern_{h}", "extern", ("cos",))):
        kernel = Kernel(
            id=-1, compile_id=CompileId.parse("0/0"), name=name, language=lang, kind=h, source_size=1,
            fused_nodes=fused, origins=(origin,), time=time,
        )  # fmt: skip
        writer.add_kernel(kernel, rank=None, seq=seq, start=0, stop=1)
    gb = GraphBreak(reason=h, filename=f"/tmp/{h}", line=3)
    writer.put_frame(
        Frame(compile_id=CompileId.parse("0/0"), ordinal=0, function=h, filename=h, line=1, status="graph_break",
              graph_breaks=(gb,), graph_kinds=("post_grad",), kernel_count=2)
    )  # fmt: skip
    writer.put_frame(
        Frame(
            compile_id=CompileId.parse("1/0"),
            ordinal=1,
            function=f"torch_dynamo_resume_in_{h}_at_3",
            status="ok",
        )
    )
    writer.put_frame(
        Frame(compile_id=CompileId.parse("0/1"), ordinal=2, function=h, filename=h, line=1, status="failed",
              failure=Failure(fail_type=h, reason=h),
              recompiles=(Recompile(text=h, earlier_compile_id=CompileId.parse("0/0"), guard=h),))
    )  # fmt: skip
    writer.close()
    return path


@needs_dot
@pytest.mark.parametrize(
    "view",
    [
        pytest.param(lambda r: fusion_dot(r, CompileId.parse("0/0")), id="fusion"),
        pytest.param(lambda r: fusion_dot(r, CompileId.parse("0/0"), collapse=2), id="collapsed"),
        pytest.param(lambda r: fusion_dot(r, CompileId.parse("0/0"), max_nodes=2), id="truncated"),
        pytest.param(breaks_dot, id="breaks"),
    ],
)
def test_hostile_names_render(view, tmp_path: Path) -> None:  # noqa: ANN001
    with open_report(hostile_report(tmp_path / "h.inspectc")) as report:
        text = view(report)
    for ext in ("svg", "png", "pdf"):
        render(text, tmp_path / f"h.{ext}")  # raises unless dot exits 0
    tree = ET.parse(tmp_path / "h.svg")
    shown = "\n".join(t.text or "" for t in tree.iter("{http://www.w3.org/2000/svg}text"))
    assert clean(HOSTILE)[:30] in shown  # shown as written, not interpreted
    assert "\x1b" not in text and "\x00" not in text


def test_escaping_helpers() -> None:
    assert html('<a href="x">&\'') == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
    assert html("a\nb") == 'a<BR ALIGN="LEFT"/>b'
    assert quote('say "hi" \\') == '"say \\"hi\\" \\\\"'
    assert quote("a\nb") == '"a\\nb"'
    assert clean("x\x00\x1b\ud800y") == "x\ufffd\ufffd\ufffdy"


def test_graphviz_writes_report_text_as_quote_does() -> None:
    from inspectc.render.graph.style import ident, plain

    for text in (HOSTILE, "<lambda>", 'a\\"b', "end\\", "node", "two\nlines"):
        dot = graphviz.Digraph()
        dot.node(ident(f"fx/{text}"), tooltip=plain(text))
        dot.edge(ident(f"fx/{text}"), ident("a:b"))  # a colon is a port to graphviz: encoded away
        assert f"tooltip={quote(text)}" in dot.source
        data = layout(dot.source)
        assert {n for n in nodes(data)} == {ident(f"fx/{text}"), "a%3Ab"}


@needs_dot
def test_dot_errors_and_timeouts_are_one_line_render_errors(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    with pytest.raises(RenderError, match=r"dot failed \(exit 1\) writing x.svg: .*syntax error"):
        render("digraph { a -> }", tmp_path / "x.svg")
    with pytest.raises(RenderError, match=r"dot failed \(exit 1\) writing the SVG"):
        svg("digraph { a -> }", timeout_s=60)
    big = "digraph {" + " ".join(f"n{i} -> n{i + 1};" for i in range(3000)) + "}"
    with pytest.raises(RenderError, match="dot took more than 0 s for x.png: try --max-nodes"):
        render(big, tmp_path / "x.png", timeout_s=0.001)
    assert ET.fromstring(svg("digraph { a -> b }", timeout_s=60)).tag.endswith("svg")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    for timeout_s in (None, 60):
        with pytest.raises(GraphvizMissing, match="apt-get install graphviz"):
            svg("digraph { a }", timeout_s=timeout_s)


# --------------------------------------------------------------------------- CLI and API


def test_cli_dot_needs_no_graphviz_and_svg_says_how_to_install(golden: Path, tmp_path: Path) -> None:
    report = str(golden / "sin_sin.inspectc")
    no_dot = {"PATH": str(tmp_path / "empty-bin")}
    proc = run_cli("graph", report, "--frame", "0/0", "-o", str(tmp_path / "f.dot"), env=no_dot)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "f.dot").read_text().startswith('digraph "fusion 0/0"')
    proc = run_cli("graph", report, "--frame", "0/0", "-o", str(tmp_path / "f.svg"), env=no_dot)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "apt-get install graphviz" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "f.svg").exists()


@needs_dot
def test_cli_writes_pictures_and_reports_bad_input_in_one_line(golden: Path, tmp_path: Path) -> None:
    breaks = run_cli(
        "graph", str(golden / "graph_breaks.inspectc"), "--breaks", "-o", str(tmp_path / "b.svg")
    )
    assert breaks.returncode == 0, breaks.stderr
    assert ET.parse(tmp_path / "b.svg").getroot().tag.endswith("svg")
    frame = run_cli("graph", str(golden / "mlp_train.inspectc"), "--frame", "0/0", "--backward")
    assert frame.returncode == 0 and frame.stdout.startswith("digraph")
    for args in (("--frame", "7/7"), ("--frame", "0/0", "-o", str(tmp_path / "x.jpg"))):
        bad = run_cli("graph", str(golden / "sin_sin.inspectc"), *args)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


def test_break_view_of_many_frames_draws_a_bounded_number(golden: Path, tmp_path: Path) -> None:
    """A hostile report of 3,000 frames: the break view draws the first ones and says so
    (drawing all was quadratic: 300,000 frames ran for minutes)."""
    import sqlite3

    report = tmp_path / "many.inspectc"
    shutil.copyfile(golden / "sin_sin.inspectc", report)
    db = sqlite3.connect(report)
    db.execute("DELETE FROM frames")
    rows = ((f"{i}/0", i, json.dumps({"compile_id": f"{i}/0", "function": "f"})) for i in range(3000))
    db.executemany("INSERT INTO frames(rank, compile_id, ordinal, data) VALUES (-1, ?, ?, ?)", rows)
    db.commit()
    db.close()
    # 0.06: the graph draws 120 frames at most, a reader reads 3,000 of 50,000 (model/limits.py)
    proc = run_cli("graph", "--breaks", str(report), env={"INSPECTC_LIMITS": "0.06"})
    assert proc.returncode == 0, proc.stderr
    assert "the first 120 frames drawn" in proc.stdout
    drawn = set(re.findall(r'^\s*"frame/(\d+)/0" \[', proc.stdout, re.M))
    assert drawn == {str(i) for i in range(120)}  # the first 120 in execution order, not 3,000
