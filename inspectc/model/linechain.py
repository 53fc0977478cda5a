"""From one line of a Triton kernel's compiled stage to the user's line. Stdlib only.

    PTX/SASS/... line --(irmap: the stage's own locations)--> the kernel's Python line
      --(the kernel's dataflow against its post-grad FX nodes)--> FX node --(``# File:``)--> user line

Inductor keeps no FX node per kernel line, so the middle step is read from what it does keep:

- the kernel's pointers name the output code's buffers (``kernel.run(buf7, arg6_1, ...)`` in
  the order of its ``def``); a buffer that is a graph input is that FX node, another one is
  the input of the kernel's fused nodes left over, told apart by shape where several are;
- each ``tmpN = ...`` line takes the FX node of what it loads, or, for an operation, the fused
  node whose op it is (``libdevice.rsqrt`` is ``rsqrt``, ``a * b`` is ``mul``...) and whose
  inputs are the nodes of its operands ("op and inputs"); failing that, the op alone, then its
  operand's node ("operand": casts, broadcasts, a reduction's pieces);
- a store is the node of the value it stores.

The post-grad graph's ``# File: path:line in fn, code: ...`` comments give each node's user line
(``model/fxgraph``). Index arithmetic (``x0 = xindex % 64``, masks) maps to no node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspectc.model import pytext
from inspectc.model.fxgraph import PLACEHOLDER, FxGraph
from inspectc.model.irmap import line_map
from inspectc.model.kernel_detail import KernelDetail

_TMP = re.compile(r"\b(_?tmp\d+\w*)\b")
_TARGETS = re.compile(r"^\s*(_?tmp\d+\w*(?:\s*,\s*_?tmp\d+\w*)*)\s*=\s*(.+)$")
_LOAD = re.compile(r"tl\.load\(\s*(\w+)")
_STORE = re.compile(r"^\s*tl\.store\(")
_DEF = re.compile(r"^\s*def\s+(\w+)\((.*)\)\s*:")
# Triton expression -> the ATen ops it can be (function calls first, then operators)
_OPS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(p), frozenset(ops.split()))
    for p, ops in (
        (r"libdevice\.rsqrt\(", "rsqrt"),
        (r"libdevice\.sqrt\(", "sqrt"),
        (r"libdevice\.erf\(", "erf"),
        (r"libdevice\.tanh\(", "tanh"),
        (r"tl\.sigmoid\(", "sigmoid"),
        (r"(?:tl_math|libdevice)\.exp\(", "exp"),
        (r"(?:tl_math|libdevice)\.log\(", "log"),
        (r"(?:tl_math|libdevice)\.abs\(", "abs"),
        (r"libdevice\.pow\(", "pow"),
        (r"triton_helpers\.maximum\(", "relu maximum clamp_min clamp"),
        (r"triton_helpers\.minimum\(", "minimum clamp_max clamp"),
        (r"triton_helpers\.welford", "var_mean"),
        (r"triton_helpers\.max2\(", "amax max"),
        (r"triton_helpers\.min2\(", "amin min"),
        (r"tl\.sum\(", "sum mean var_mean"),
        (r"tl\.where\(", "where threshold_backward relu"),
        (r"(?<![<>=!])(?:<=|>=|<|>|==|!=)(?![<>=])", "le ge lt gt eq ne"),
        (r"\s/\s", "div mean reciprocal"),
        (r"\s\*\s", "mul"),
        (r"\s-\s|^\s*-", "sub rsub neg"),
        (r"\s\+\s", "add"),
    )
)


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeLine:
    """A post-grad FX node and the user line its ``# File:`` comment names."""

    node: str
    target: str
    filename: str | None = None
    line: int | None = None
    code: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LineChain:
    stage: str
    stage_line: int
    python_line: int | None = None
    python_text: str | None = None
    how: str = "no Python line"  # what joined the Python line to the node
    nodes: tuple[NodeLine, ...] = ()


def chain(
    stage: str, stage_line: int, detail: KernelDetail, fused: tuple[str, ...], graph: FxGraph, code: str
) -> LineChain:
    """The chain of line *stage_line* (1-based) of *stage*: its Python line, the FX node(s) and
    their user lines. *fused*: the kernel's fused post-grad nodes; *graph*: the post-grad graph;
    *code*: the output code (the kernel's call names its buffers)."""
    text = detail.stages.get(stage, "")
    py = next(
        (p for p, rows in line_map(stage, text, detail.python_file).items() if stage_line in rows), None
    )
    source = (detail.python_source or "").splitlines()
    if py is None or not 0 < py <= len(source):
        return LineChain(stage=stage, stage_line=stage_line)
    names, how = _DataFlow(detail, fused, graph, code).line(py)
    nodes = tuple(_node_line(graph, n) for n in names)
    return LineChain(
        stage=stage,
        stage_line=stage_line,
        python_line=py,
        python_text=source[py - 1].strip(),
        how=how,
        nodes=nodes,
    )


def _node_line(graph: FxGraph, name: str) -> NodeLine:
    node = graph.node(name)
    if node is None:
        return NodeLine(node=name, target="?")
    return NodeLine(node=name, target=node.target, filename=node.filename, line=node.line, code=node.code)


class _DataFlow:
    """The kernel's statements, each tmp's FX node, in source order."""

    def __init__(self, detail: KernelDetail, fused: tuple[str, ...], graph: FxGraph, code: str) -> None:
        self.graph = graph
        self.fused = [n for n in fused if n in graph]
        inside = set(self.fused)
        self.outside = list(
            dict.fromkeys(i for n in self.fused for i in _inputs_of(graph, n) if i not in inside)
        )
        self.claimed: set[str] = set()  # nodes an operation line matched
        self.seen: set[str] = set()  # nodes some tmp holds
        self.tmp: dict[str, tuple[str, str]] = {}  # tmp -> (FX node, how)
        self.by_line: dict[int, tuple[tuple[str, ...], str]] = {}
        self.ptr = self._pointers(detail, code)
        self._walk((detail.python_source or "").splitlines())

    def line(self, py: int) -> tuple[tuple[str, ...], str]:
        return self.by_line.get(py, ((), "index arithmetic or setup: no FX node"))

    def _pointers(self, detail: KernelDetail, code: str) -> dict[str, str]:
        """Pointer parameter -> FX node: the buffer the call passes, where it is a node; else an
        input of the fused nodes still unclaimed, of the launch's shape where several are."""
        params, args = _params(detail), _call_args(code, detail.name)
        shapes = {a.name: a.shape for a in (detail.launches[0].args if detail.launches else ()) if a.name}
        out: dict[str, str] = {}
        left = list(self.outside)
        pending = []
        for param, arg in zip(params, args, strict=False):
            if "ptr" not in param:
                continue
            name = re.match(r"(?:reinterpret_tensor\()?\s*(\w+)", arg)
            buf = name.group(1) if name else ""
            if buf in self.graph and buf not in self.fused:
                out[param] = buf
                left = [n for n in left if n != buf]
            elif not param.startswith("out_ptr"):
                pending.append(param)
        for param in pending:
            shape = shapes.get(param)
            fits = [n for n in left if _shape(self.graph, n) == shape] or left
            if fits:
                out[param] = fits[0]
                left.remove(fits[0])
        return out

    def _walk(self, lines: list[str]) -> None:
        body = next((i for i, line in enumerate(lines) if _DEF.match(line)), None)
        for index in range((body or 0) + 1, len(lines)):
            stmt = pytext.drop_comment(lines[index]).strip()
            if _STORE.match(stmt):
                parts = pytext.split_top_level(stmt[stmt.index("(") + 1 : stmt.rindex(")")], ",")
                value = parts[1].strip() if len(parts) > 1 else ""
                if value in self.tmp:
                    self.by_line[index + 1] = ((self.tmp[value][0],), "store of " + self.tmp[value][1])
                continue
            m = _TARGETS.match(stmt)
            if m is None:
                continue
            targets = [t.strip() for t in m.group(1).split(",")]
            found = self._expr(m.group(2), targets)
            if found is not None:
                self.seen.add(found[0])
                for t in targets:
                    self.tmp[t] = found
                self.by_line[index + 1] = ((found[0],), found[1])

    def _expr(self, expr: str, targets: list[str]) -> tuple[str, str] | None:
        load = _LOAD.search(expr)
        if load is not None:
            node = self.ptr.get(load.group(1))
            return (node, f"load of {load.group(1)}") if node else None
        operands = [self.tmp[t] for t in _TMP.findall(expr) if t in self.tmp and t not in targets]
        inputs = {n for n, _how in operands}
        ops = next((ops for pattern, ops in _OPS if pattern.search(expr)), None)
        if ops is not None:
            hit = self._match(ops, inputs)
            if hit is not None:
                return hit
        return (operands[0][0], "operand") if operands else None

    def _match(self, ops: frozenset[str], inputs: set[str]) -> tuple[str, str] | None:
        """The fused node of one of *ops* whose inputs are *inputs* (a node recomputed, as in a
        reduction's second loop, matches again); else one not matched yet whose inputs hold
        them, or of the op alone."""
        candidates = [n for n in self.fused if _op(self.graph, n) in ops]
        exact = [n for n in candidates if inputs and self._inputs(n) == inputs]
        if exact:
            pick = next((n for n in exact if n not in self.claimed), exact[0])
            self.claimed.add(pick)
            return pick, "op and inputs"
        # not yet matched, and computable here: every input already some tmp's (topological order)
        ready = [n for n in candidates if n not in self.claimed and self._inputs(n) <= self.seen]
        near = [n for n in ready if inputs and inputs <= self._inputs(n)]
        for group, how in ((near, "op and inputs"), (ready, "op")):
            if group:
                self.claimed.add(group[0])
                return group[0], how
        return None

    def _inputs(self, name: str) -> set[str]:
        """A node's inputs, a ``getitem`` of a tuple (``var_mean[1]``) read as the tuple's node."""
        out = set()
        for i in _inputs_of(self.graph, name):
            node = self.graph.node(i)
            out.add(node.inputs[0] if node is not None and node.target == "getitem" and node.inputs else i)
        return out


def _inputs_of(graph: FxGraph, name: str) -> tuple[str, ...]:
    node = graph.node(name)
    return node.inputs if node is not None else ()


def _op(graph: FxGraph, name: str) -> str:
    node = graph.node(name)
    return "" if node is None or node.op == PLACEHOLDER else node.op_name


def _shape(graph: FxGraph, name: str) -> tuple[int, ...] | None:
    node = graph.node(name)
    if node is None or node.meta is None or node.meta.shape is None:
        return None
    try:
        return tuple(int(s) for s in node.meta.shape)
    except ValueError:
        return None


def _params(detail: KernelDetail) -> list[str]:
    for line in (detail.python_source or "").splitlines():
        m = _DEF.match(line)
        if m:
            return [p.split(":")[0].strip() for p in m.group(2).split(",")]
    return []


def _call_args(code: str, name: str) -> list[str]:
    """The arguments of the kernel's first call in the output code (``name.run(...)``)."""
    start = code.find(f"{name}.run(")
    if start < 0:
        return []
    open_at = start + len(name) + len(".run")
    depth, end = 0, open_at
    for end in range(open_at, min(len(code), open_at + 20_000)):
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        if depth == 0:
            break
    return [a.strip() for a in pytext.split_top_level(code[open_at + 1 : end], ",")]
