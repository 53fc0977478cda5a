"""inspectc.model.fxgraph reads printed FX graphs back: real texts from torch 2.13 and golden reports.

The literal graphs below are copied from TORCH_TRACE output of torch 2.13 (CPU): a
sin(sin(x)), a dynamic-shape graph (``Sym(s17)`` inputs), a ``torch.cond`` whose branches
are nested classes, and Dynamo's own graph of it (method calls on nodes).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspectc.model import fxgraph as fxtext
from inspectc.store.open import open_report

SIN = """class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cpu"):
        # File: /tmp/g/sinsin.py:3 in fn, code: return torch.sin(torch.sin(x))
        sin: "f32[8][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
        sin_1: "f32[8][1]cpu" = torch.ops.aten.sin.default(sin);  sin = None
        return (sin_1,)
"""

DYNAMIC = """class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "Sym(s17)", arg1_1: "f32[s17][1]cpu", arg2_1: "Sym(s77)", arg3_1: "Sym(s27)", arg4_1: "f32[s77, s27][s27, 1]cpu"):
        # File: /tmp/g/dyn.py:3 in f, code: return (x * y.sum()).relu() + x.shape[0]
        sum_1: "f32[][]cpu" = torch.ops.aten.sum.default(arg1_1);  arg1_1 = None
        mul: "f32[s77, s27][s27, 1]cpu" = torch.ops.aten.mul.Tensor(arg4_1, sum_1);  arg4_1 = sum_1 = None
        relu: "f32[s77, s27][s27, 1]cpu" = torch.ops.aten.relu.default(mul);  mul = None
        add_6: "f32[s77, s27][s27, 1]cpu" = torch.ops.aten.add.Tensor(relu, arg2_1);  relu = arg2_1 = None
        return (add_6,)
"""

COND = """class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4][1]cpu"):
        # File: /tmp/g/dyn.py:6 in g, code: return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        sum_1: "f32[][]cpu" = torch.ops.aten.sum.default(arg0_1)
        gt: "b8[][]cpu" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (arg0_1,));  gt = true_graph_0 = false_graph_0 = arg0_1 = None
        getitem: "f32[4][1]cpu" = cond[0];  cond = None
        return (getitem,)

    class true_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4][1]cpu"):
            # File: /tmp/g/dyn.py:6 in <lambda>, code: return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
            sin: "f32[4][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
            return (sin,)

    class false_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4][1]cpu"):
            # File: /tmp/g/dyn.py:6 in <lambda>, code: return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
            cos: "f32[4][1]cpu" = torch.ops.aten.cos.default(arg0_1);  arg0_1 = None
            return (cos,)
"""

DYNAMO = """class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu"):
        l_x_ = L_x_

        # File: /tmp/g/dyn.py:6 in g, code: return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
        sum_1: "f32[][]cpu" = l_x_.sum()
        gt: "b8[][]cpu" = sum_1 > 0;  sum_1 = None
        return (gt,)
"""

# print_readable(expanded_def=True) puts one parameter per line, with comments.
EXPANDED = """class GraphModule(torch.nn.Module):
    def forward(
        self,
        arg0_1: "f32[8, 16][16, 1]cuda:0",  # L['x']
        arg1_1: "bf16[16][1]cuda:0",  # L['self'].weight
    ):
        mul: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.mul.Tensor(arg0_1, arg1_1)
        # No stacktrace found for following nodes
        var_mean = torch.ops.aten.var_mean.correction(
            mul, [1], correction = 0, keepdim = True
        )
        getitem: "f32[8, 1][1, 1]cuda:0" = var_mean[0]
        torch.ops.aten._assert_async.msg(getitem, "assert 'x' > 0; sin = None")
        return (getitem, mul)
"""


def test_sin_sin_nodes_edges_and_outputs() -> None:
    g = fxtext.parse(SIN)
    assert g.name == "<lambda>" and g.skipped == 0
    assert [n.name for n in g.nodes] == ["arg0_1", "sin", "sin_1"]
    assert [n.name for n in g.inputs] == ["arg0_1"]
    sin = g.node("sin_1")
    assert sin is not None
    assert (sin.op, sin.target, sin.op_name, sin.inputs) == (
        "call_function",
        "aten.sin.default",
        "sin",
        ("sin",),
    )
    assert sin.meta is not None and sin.meta.short() == "f32[8]" and sin.meta.device == "cpu"
    assert (sin.filename, sin.line, sin.function) == ("/tmp/g/sinsin.py", 3, "fn")
    assert sin.code == "return torch.sin(torch.sin(x))"
    assert g.edges() == [("arg0_1", "sin"), ("sin", "sin_1")]
    assert g.outputs == ("sin_1",)
    assert g.users() == {"arg0_1": ["sin"], "sin": ["sin_1"], "sin_1": []}


def test_annotations() -> None:
    meta = fxtext.parse_annotation("f32[16, 64][64, 1]cuda:0")
    assert (meta.dtype, meta.shape, meta.stride, meta.device) == ("f32", ("16", "64"), ("64", "1"), "cuda:0")
    assert fxtext.parse_annotation("f32[][]cpu").short() == "f32[]"
    assert fxtext.parse_annotation("bf16[Max(1, s0), 3*s1]").shape == ("Max(1, s0)", "3*s1")
    assert fxtext.parse_annotation("Sym(s17)").dtype == "sym"
    assert fxtext.parse_annotation("something else").short() == "something else"


def test_dynamic_shapes() -> None:
    g = fxtext.parse(DYNAMIC)
    assert [n.meta.raw for n in g.inputs if n.meta] == [
        "Sym(s17)", "f32[s17][1]cpu", "Sym(s77)", "Sym(s27)", "f32[s77, s27][s27, 1]cpu",
    ]  # fmt: skip
    add = g.node("add_6")
    assert add is not None and add.inputs == ("relu", "arg2_1")
    assert add.meta is not None and add.meta.shape == ("s77", "s27")


def test_higher_order_op_with_nested_graphs() -> None:
    g = fxtext.parse(COND)
    assert set(g.subgraphs) == {"true_graph_0", "false_graph_0"}
    assert [n.name for n in g.nodes] == [
        "arg0_1",
        "true_graph_0",
        "false_graph_0",
        "sum_1",
        "gt",
        "cond",
        "getitem",
    ]
    branch = g.node("true_graph_0")
    assert branch is not None and (branch.op, branch.target) == ("get_attr", "true_graph_0")
    cond = g.node("cond")
    assert cond is not None and cond.target == "higher_order.cond"
    assert cond.inputs == ("gt", "true_graph_0", "false_graph_0", "arg0_1")
    getitem = g.node("getitem")
    assert getitem is not None and (getitem.target, getitem.inputs) == ("getitem", ("cond",))
    true = g.subgraphs["true_graph_0"]
    assert [n.name for n in true.nodes] == ["arg0_1", "sin"] and true.outputs == ("sin",)
    assert true.node("sin") is not None and true.node("sin").function == "<lambda>"  # type: ignore[union-attr]


def test_dynamo_graph_method_calls_and_expressions() -> None:
    g = fxtext.parse(DYNAMO)
    alias, total, gt = (g.node(n) for n in ("l_x_", "sum_1", "gt"))
    assert alias is not None and alias.inputs == ("L_x_",) and alias.filename is None
    assert total is not None and (total.op, total.target, total.inputs) == ("call_method", "sum", ("l_x_",))
    assert gt is not None and gt.inputs == ("sum_1",) and gt.op_name == "sum_1 > 0"


def test_expanded_header_multiline_calls_and_unnamed_statements() -> None:
    g = fxtext.parse(EXPANDED)
    assert [n.name for n in g.inputs] == ["arg0_1", "arg1_1"]
    assert g.node("arg1_1").meta.dtype == "bf16"  # type: ignore[union-attr]
    var_mean = g.node("var_mean")
    assert var_mean is not None and var_mean.inputs == ("mul",) and var_mean.filename is None
    unnamed = [n for n in g.nodes if n.name.startswith("_stmt_")]
    assert len(unnamed) == 1 and unnamed[0].inputs == ("getitem",)  # not `sin` from the string
    assert g.outputs == ("getitem", "mul") and g.skipped == 0


def test_empty_and_garbage_text() -> None:
    assert len(fxtext.parse(None)) == 0
    assert len(fxtext.parse("")) == 0
    g = fxtext.parse("not a graph at all\n\x00\x1b[31m")
    assert len(g) == 0
    truncated = SIN[: SIN.index("sin_1:") + 20]
    assert [n.name for n in fxtext.parse(truncated).nodes] == ["arg0_1", "sin"]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=0, max_value=len(COND)))
def test_never_raises(noise: str, cut: int) -> None:
    for text in (noise, COND[:cut] + noise, COND[:cut] + noise + COND[cut:]):
        graph = fxtext.parse(text)
        for node in graph.nodes:
            assert all(i in graph for i in node.inputs)


def test_every_golden_post_grad_graph_reads_cleanly(golden: Path) -> None:
    read = 0
    for path in sorted(golden.glob("*.inspectc")):
        with open_report(path) as report:
            for frame in report.frames:
                for kind in ("post_grad", "post_grad_backward"):
                    text = report.graph(frame.compile_id, kind)
                    if text is None:
                        continue
                    g = fxtext.parse(text)
                    read += 1
                    assert g.skipped == 0 and g.outputs, (path.name, frame.compile_id, kind)
                    start = text.index("def forward(")
                    header = text[start : text.index("):", start)]
                    assert len(g.inputs) == header.count(": ")
                    order = {n.name: i for i, n in enumerate(g.nodes)}
                    for node in g.nodes:  # inputs are defined before use, and are real nodes
                        assert all(order[i] < order[node.name] for i in node.inputs)
                        if node.op != "placeholder":
                            line = text.split("\n")[node.text_line]
                            assert (node.meta is not None) == (f'{node.name}: "' in line), line
    if read == 0:
        pytest.skip("no golden report has a post-grad graph")
