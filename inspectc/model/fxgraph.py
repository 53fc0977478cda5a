"""Read the printed form of an FX graph (``GraphModule.print_readable``) back into nodes.

Reports store graphs as the text torch printed (``report.graph(cid, "post_grad")``)::

    class GraphModule(torch.nn.Module):
        def forward(self, arg0_1: "f32[8][1]cpu"):
            # File: /tmp/t.py:3 in fn, code: return torch.sin(torch.sin(x))
            sin: "f32[8][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
            sin_1: "f32[8][1]cpu" = torch.ops.aten.sin.default(sin);  sin = None
            return (sin_1,)

:func:`parse` turns that into an :class:`FxGraph`: placeholders (the graph's inputs), one
:class:`FxNode` per statement (name, op target, shape and dtype from the annotation, the
nodes it reads), and the returned names (its outputs). Nested graphs of higher-order ops
(``class true_graph_0(torch.nn.Module)`` after the forward) are parsed into
``FxGraph.subgraphs``.

Pure and tolerant: stdlib only, never raises on odd text; a line it cannot read is skipped
and counted in ``FxGraph.skipped``. Readers (graphviz export, TUI, diff) share it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from inspectc.model import pytext

__all__ = ["FxGraph", "FxNode", "TensorMeta", "parse", "parse_annotation"]

PLACEHOLDER = "placeholder"
CALL_FUNCTION = "call_function"
CALL_METHOD = "call_method"
GET_ATTR = "get_attr"

_DOTTED = re.compile(r"[A-Za-z_][\w.]*")


@dataclass(frozen=True, slots=True)
class TensorMeta:
    """What a type annotation says: ``"f32[16, 64][64, 1]cuda:0"`` or ``"Sym(s0)"``."""

    raw: str
    dtype: str | None = None  # f32, bf16, i64, b8 ... or "sym" for a symbolic scalar
    shape: tuple[str, ...] | None = None  # sizes as printed (ints or symbolic expressions)
    stride: tuple[str, ...] | None = None
    device: str | None = None

    def short(self) -> str:
        """``f32[16, 64]``: dtype and shape, without strides and device."""
        if self.shape is None:
            return self.raw
        return f"{self.dtype or '?'}[{', '.join(self.shape)}]"


@dataclass(frozen=True, slots=True)
class FxNode:
    name: str
    op: str  # placeholder | call_function | call_method | get_attr
    target: str  # "aten.sin.default", "getitem", "prims.iota.default", "self.true_graph_0"
    inputs: tuple[str, ...] = ()  # names of the nodes this one reads, in order of first use
    meta: TensorMeta | None = None
    filename: str | None = None  # from the `# File:` comment above the statement
    line: int | None = None
    function: str | None = None
    code: str | None = None
    text_line: int = 0  # 0-based line of the graph text that defines the node

    @property
    def op_name(self) -> str:
        """The short operator name: ``aten.mul.Tensor`` -> ``mul``, ``getitem`` stays."""
        if not _DOTTED.fullmatch(self.target):
            return self.target  # an expression such as `sum_1 > 0`
        parts = self.target.split(".")
        return parts[1] if len(parts) == 3 else parts[-1]


@dataclass(slots=True)
class FxGraph:
    name: str  # the printed class name (GraphModule, <lambda>, true_graph_0 ...)
    nodes: list[FxNode] = field(default_factory=list)  # placeholders first, then statements
    outputs: tuple[str, ...] = ()  # names the graph returns, in order (repeats kept)
    subgraphs: dict[str, FxGraph] = field(default_factory=dict)
    skipped: int = 0  # lines that looked like code but could not be read
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def node(self, name: str) -> FxNode | None:
        index = self._index.get(name)
        return self.nodes[index] if index is not None else None

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def inputs(self) -> list[FxNode]:
        return [n for n in self.nodes if n.op == PLACEHOLDER]

    def edges(self) -> list[tuple[str, str]]:
        """(producer, consumer) for every data dependency between nodes."""
        return [(src, node.name) for node in self.nodes for src in node.inputs]

    def users(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {n.name: [] for n in self.nodes}
        for src, dst in self.edges():
            found[src].append(dst)
        return found

    def _add(self, node: FxNode) -> None:
        if node.name in self._index:  # a redefinition: keep the first, never crash
            self.skipped += 1
            return
        self._index[node.name] = len(self.nodes)
        self.nodes.append(node)


# --------------------------------------------------------------------------- annotations

_TENSOR_ANNOTATION = re.compile(
    r"^(?P<dtype>[A-Za-z][A-Za-z0-9_]*)\[(?P<shape>[^\]]*)\](?:\[(?P<stride>[^\]]*)\])?(?P<device>.*)$"
)
_SYM_ANNOTATION = re.compile(r"^Sym\((?P<expr>.*)\)$")


def parse_annotation(text: str) -> TensorMeta:
    """``"f32[16, 64][64, 1]cpu"`` -> dtype f32, shape (16, 64), stride (64, 1), device cpu."""
    raw = text.strip()
    sym = _SYM_ANNOTATION.match(raw)
    if sym:
        return TensorMeta(raw=raw, dtype="sym", shape=None)
    match = _TENSOR_ANNOTATION.match(raw)
    if not match:
        return TensorMeta(raw=raw)
    stride = match.group("stride")
    return TensorMeta(
        raw=raw,
        dtype=match.group("dtype"),
        shape=_split_sizes(match.group("shape")),
        stride=_split_sizes(stride) if stride is not None else None,
        device=match.group("device").strip() or None,
    )


def _split_sizes(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in pytext.split_top_level(text, ",") if part.strip())


# --------------------------------------------------------------------------- statements

_CLEANUP = re.compile(r";\s*(?:[A-Za-z_]\w*\s*=\s*)+None\s*$")
_CLASS = re.compile(r"^(?P<indent>\s*)class\s+(?P<name>[^\s(:]+)\s*(?:\([^)]*\))?\s*:\s*$")
_DEF = re.compile(r"^(?P<indent>\s*)def\s+forward\s*\(")
_ASSIGN = re.compile(r'^(?P<name>[A-Za-z_]\w*)\s*(?::\s*"(?P<annot>[^"]*)")?\s*=(?!=)\s*(?P<rhs>.+)$')
_FILE = re.compile(
    r"^#\s*File:\s*(?P<file>.+?):(?P<line>\d{1,18})(?:\s+in\s+(?P<fn>[^,]*))?(?:,\s*code:\s?(?P<code>.*))?$"
)
_CALL = re.compile(r"^(?P<target>[A-Za-z_][\w.]*)\s*\((?P<args>.*)\)\s*$", re.DOTALL)
_SUBSCRIPT = re.compile(r"^(?P<source>[A-Za-z_]\w*)\s*\[(?P<index>[^\]]*)\]\s*$")
_ATTR = re.compile(r"^self\.(?P<attr>[\w.]+)\s*$")
_PREFIXES = ("torch.ops.", "torch._ops.ops.")


def _strip_target(target: str) -> str:
    for prefix in _PREFIXES:
        if target.startswith(prefix):
            return target[len(prefix) :]
    return target


@dataclass(slots=True)
class _Where:
    filename: str | None = None
    line: int | None = None
    function: str | None = None
    code: str | None = None


def parse(text: str | None) -> FxGraph:
    """Parse printed FX graph *text*; an empty or unreadable text gives an empty graph."""
    lines = (text or "").split("\n")
    graphs = _parse_classes(lines, 0, len(lines))
    if not graphs:
        return FxGraph(name="?")
    main, *rest = graphs
    for sub in rest:  # nested classes printed after the forward, or siblings
        main.subgraphs.setdefault(sub.name, sub)
    return main


def _parse_classes(lines: list[str], start: int, stop: int) -> list[FxGraph]:
    """Every ``class X(torch.nn.Module)`` between *start* and *stop*, each with its forward."""
    graphs: list[FxGraph] = []
    i = start
    while i < stop:
        match = _CLASS.match(lines[i])
        if not match:
            # A bare forward with no class line (some dumps) still reads.
            if _DEF.match(lines[i]) and not graphs:
                graph = FxGraph(name="forward")
                i = _parse_forward(lines, i, stop, graph)
                graphs.append(graph)
                continue
            i += 1
            continue
        indent = len(match.group("indent"))
        end = i + 1
        while end < stop and (not lines[end].strip() or pytext.indent(lines[end]) > indent):
            end += 1
        graph = FxGraph(name=match.group("name"))
        j = i + 1
        while j < end:
            if _DEF.match(lines[j]):
                j = _parse_forward(lines, j, end, graph)
                nested = _parse_classes(lines, j, end)
                for sub in nested:
                    graph.subgraphs.setdefault(sub.name, sub)
                break
            j += 1
        graphs.append(graph)
        i = end
    return graphs


def _parse_forward(lines: list[str], i: int, stop: int, graph: FxGraph) -> int:
    """Read the ``def forward`` at *i* into *graph*; return the index after its body."""
    def_indent = pytext.indent(lines[i])
    header, i = _join_header(lines, i, stop)
    for param in _parameters(header):
        graph._add(param)
    where = _Where()
    while i < stop:
        raw = lines[i]
        stripped = raw.strip()
        if stripped and pytext.indent(raw) <= def_indent:
            break  # the next class or def at the forward's level
        i += 1
        if not stripped:
            continue
        if stripped.startswith("#"):
            _read_comment(stripped, where)
            continue
        # Statements may continue on following lines while brackets are open.
        while pytext.open_brackets(stripped) > 0 and i < stop and pytext.indent(lines[i]) > def_indent:
            stripped += " " + lines[i].strip()
            i += 1
        _read_statement(stripped, i - 1, where, graph)
    return i


def _join_header(lines: list[str], i: int, stop: int) -> tuple[str, int]:
    header = lines[i].strip()
    i += 1
    while pytext.open_brackets(header) > 0 and i < stop:
        header += " " + pytext.drop_comment(lines[i].strip())
        i += 1
    return header, i


def _parameters(header: str) -> list[FxNode]:
    start = header.find("(")
    end = header.rfind(")")
    if start < 0 or end <= start:
        return []
    params: list[FxNode] = []
    for part in pytext.split_top_level(header[start + 1 : end], ","):
        part = part.strip()
        if not part or part.startswith("*") and part.strip("*") == "":
            continue
        name_part, _, annot = part.partition(":")
        name = name_part.split("=")[0].strip().lstrip("*")
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name == "self":
            continue
        annot = annot.split("=")[0].strip() if annot else ""
        meta = parse_annotation(annot.strip("\"'")) if annot else None
        params.append(FxNode(name=name, op=PLACEHOLDER, target=name, meta=meta))
    return params


def _read_comment(comment: str, where: _Where) -> None:
    match = _FILE.match(comment)
    if match:
        where.filename = match.group("file").strip()
        where.line = int(match.group("line"))
        where.function = (match.group("fn") or "").strip() or None
        where.code = match.group("code")
    elif "No stacktrace found" in comment:
        where.filename = where.function = where.code = None
        where.line = None


def _read_statement(stmt: str, text_line: int, where: _Where, graph: FxGraph) -> None:
    first = _CLEANUP.sub("", stmt).strip()  # drop the `;  x = y = None` cleanup
    if first.startswith("return"):
        body = first[len("return") :].strip()
        graph.outputs = _outputs(body, graph)
        return
    known = graph._index
    match = _ASSIGN.match(first)
    if match:
        name, annot, rhs = match.group("name"), match.group("annot"), match.group("rhs").strip()
    elif _CALL.match(first):  # a call whose result is unused and unnamed
        name, annot, rhs = f"_stmt_{text_line}", None, first
    else:
        graph.skipped += 1
        return
    if rhs == "None":
        return
    op, target, inputs = _classify(rhs, known)
    graph._add(
        FxNode(
            name=name,
            op=op,
            target=target,
            inputs=inputs,
            meta=parse_annotation(annot) if annot is not None else None,
            filename=where.filename,
            line=where.line,
            function=where.function,
            code=where.code,
            text_line=text_line,
        )
    )


def _classify(rhs: str, known: dict[str, int]) -> tuple[str, str, tuple[str, ...]]:
    call = _CALL.match(rhs)
    if call and pytext.balanced_call(rhs):
        target = call.group("target")
        args = pytext.references(call.group("args"), known)
        owner, _, method = target.partition(".")
        if method and owner in known:  # `l_x_.sum()`: a method call on a node (Dynamo graphs)
            return CALL_METHOD, method, (owner, *(a for a in args if a != owner))
        return CALL_FUNCTION, _strip_target(target), args
    sub = _SUBSCRIPT.match(rhs)
    if sub:
        return CALL_FUNCTION, "getitem", pytext.references(sub.group("source"), known)
    attr = _ATTR.match(rhs)
    if attr:
        return GET_ATTR, attr.group("attr"), ()
    expr = " ".join(rhs.split())
    return CALL_FUNCTION, expr if len(expr) <= 40 else expr[:39] + "…", pytext.references(rhs, known)


def _outputs(body: str, graph: FxGraph) -> tuple[str, ...]:
    clean = pytext.STRING.sub('""', body)
    names = []
    for match in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)\b(?!\s*\()", clean):
        if match.group(1) in graph._index:
            names.append(match.group(1))
    return tuple(names)
