"""Split an Inductor output-code module (the ``inductor_output_code`` payload) into kernels.

The output code is a Python module written by Inductor's wrapper codegen. Generated kernels
are module-level statements ``name = async_compile.<backend>(...)`` (``triton``,
``cpp_pybinding``, ``cpp`` in older torch, ``cuda``, ``halide``...); work handed to
libraries is a call inside the launcher function (``call``, a graph partition or a subgraph):
``extern_kernels.mm(...)``, ``torch.ops.mkldnn._linear_pointwise.default(...)``,
``aten.randint.low_out(...)``. With ``cpp_wrapper`` the launcher and the CPU kernels are C++
inside one string (``extern "C" void cpp_fused_..._0(...) {...}``, ``aoti_torch_cpu_mm_out(...)``).

Stdlib only, never raises on odd input: what cannot be read is left out or marked "unknown".
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KernelSpan", "split_output_code"]


@dataclass(frozen=True, slots=True, kw_only=True)
class KernelSpan:
    """One kernel of an output code, located by character offsets into that code."""

    name: str
    language: str  # "triton" | "cpp" | "extern" | another async_compile backend ("cuda"...)
    kind: str  # pointwise | reduction | persistent_reduction | template | foreach | extern ...
    start: int  # offset of the definition (or of the extern call site)
    end: int  # offset just past it
    meta: dict[str, Any] = field(default_factory=dict)


def split_output_code(code: str) -> list[KernelSpan]:
    """Every kernel defined or called in *code*, in order of appearance."""
    spans = _defined_kernels(code)
    if "cpp_wrapper_src" in code:
        spans += _cpp_wrapper_kernels(code, spans)
    _add_launch_lines(code, spans)
    spans += _extern_calls(code, spans)
    spans.sort(key=lambda span: span.start)
    return spans


# ---------------------------------------------------------------- async_compile definitions

_DEFINITION = re.compile(r"^([A-Za-z_]\w*) = async_compile\.(\w+)\(", re.MULTILINE)
_LANGUAGES = {"triton": "triton", "cpp_pybinding": "cpp", "cpp": "cpp", "multi_kernel": "triton"}
_TEMPLATE_BACKENDS = frozenset({"cuda", "rocm", "cutedsl", "nv_universal_gemm"})


_COMMENTED_TRITON = re.compile(r"^[ \t]*async_compile\.triton\(\s*['\"]([A-Za-z_]\w*)['\"]", re.MULTILINE)


def commented_triton_kernels(code: str) -> list[KernelSpan]:
    """Triton kernels of AOTInductor's CUDA C++ code: ``async_compile.triton('<name>', ...)``
    with no ``name =`` before it, inside the ``/* */`` comment of the kernel's launcher."""
    spans = []
    for match in _COMMENTED_TRITON.finditer(code):
        start = match.start()
        end = _call_end(code, code.index("(", start))
        spans.append(_definition_span(code, match.group(1), "triton", start, end))
    return spans


def _defined_kernels(code: str) -> list[KernelSpan]:
    spans = []
    for match in _DEFINITION.finditer(code):
        name, backend = match.groups()
        end = _call_end(code, match.end() - 1)
        spans.append(_definition_span(code, name, backend, match.start(), end))
    return spans


def _definition_span(code: str, name: str, backend: str, start: int, end: int) -> KernelSpan:
    source = _first_long_string(code, start, end)
    language = _LANGUAGES.get(backend, backend)
    if backend == "triton":
        kind, meta = _triton_details(name, source or "")
        if device := _keyword_string(code[start:end], "device_str"):
            meta["device"] = device
    elif language == "cpp":
        kind, meta = _cpp_kind(name, source or ""), {"device": "cpu"}
        if arg_types := _cpp_arg_types(code, start, end):
            meta["arg_types"] = arg_types
    elif backend == "multi_kernel":
        kind, meta = "multi_kernel", {"kernels": re.findall(r"\b(\w+)\b(?=\s*[,\]])", code[start:end])}
    else:
        kind, meta = ("template" if backend in _TEMPLATE_BACKENDS else "unknown"), {}
    meta["backend"] = backend
    return KernelSpan(name=name, language=language, kind=kind, start=start, end=end, meta=meta)


# ------------------------------------------------------------------------------- triton

_TRITON_PREFIXES = {
    "poi": "pointwise",
    "red": "reduction",
    "per": "persistent_reduction",
    "tem": "template",
    "for": "foreach",
    "spl": "split_scan",
    "coo": "cooperative_reduction",
}
_HEURISTIC_KINDS: dict[str, str | None] = {"user_autotune": "user", "fixed_config": None}
_TRITON_DECORATOR = re.compile(r"@triton_heuristics\.(\w+)\(")
_DECORATOR_FIELDS = ("size_hints", "num_warps", "num_stages", "triton_meta", "inductor_meta")


def _triton_details(name: str, source: str) -> tuple[str, dict[str, Any]]:
    meta = _triton_decorator_meta(source)
    prefix = name.split("_")[1] if name.startswith("triton_") and name.count("_") > 1 else ""
    kind = _HEURISTIC_KINDS.get(meta.get("heuristic", ""), meta.get("heuristic"))
    kind = kind or _TRITON_PREFIXES.get(prefix, "unknown")
    triton_meta = meta.get("triton_meta")
    device = triton_meta.get("device") if isinstance(triton_meta, dict) else None
    if isinstance(device, dict) and isinstance(device.get("type"), str):
        meta["device"] = device["type"]
    return kind, meta


def _triton_decorator_meta(source: str) -> dict[str, Any]:
    """The ``@triton_heuristics.<kind>(...)`` arguments, read without running anything."""
    found = _TRITON_DECORATOR.search(source)
    if found is None:
        return {}
    meta: dict[str, Any] = {"heuristic": found.group(1)}
    call_text = source[found.start() + 1 : _call_end(source, found.end() - 1)]
    try:
        call = ast.parse(call_text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return meta  # a truncated or unusual decorator: its kind is still known
    for keyword in call.keywords if isinstance(call, ast.Call) else []:
        if keyword.arg in _DECORATOR_FIELDS:
            meta[keyword.arg] = _literal(keyword.value)
    return meta


def _literal(node: ast.expr) -> Any:
    """A JSON-safe value for a decorator argument; source text where it is not a literal."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, str | int | float | bool | None) else repr(value)
    if isinstance(node, ast.Dict):
        return {_key(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand)
        return -value if isinstance(value, int | float) and not isinstance(value, bool) else ast.unparse(node)
    if isinstance(node, ast.Call) and not node.args:
        if isinstance(node.func, ast.Name) and node.func.id == "set":
            return []
        return {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg is not None}
    return ast.unparse(node)


def _key(node: ast.expr | None) -> str:
    value = _literal(node) if node is not None else "**"
    return value if isinstance(value, str) else str(value)


# ---------------------------------------------------------------------------------- cpp


def _cpp_kind(name: str, body: str) -> str:
    if "micro_gemm" in body or re.search(r"\btemplate\s*<", body):
        return "template"
    if "tmp_acc" in body:
        return "reduction"
    if "_foreach_" in name:
        return "foreach"
    if re.search(r"\bfor\s*\(", body):
        return "pointwise"
    return "unknown"


def _cpp_arg_types(code: str, start: int, end: int) -> list[str] | None:
    opening = code.find("[", start, end)
    source = code.find("'''", start, end)
    if opening < 0 or (0 <= source < opening):
        return None
    try:
        value = ast.literal_eval(code[opening : _call_end(code, opening)])
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    return [str(item) for item in value] if isinstance(value, list) else None


_CPP_DEFINITION = re.compile(r'extern "C"\s+void\s+(\w+)\s*\(')
_AOTI_CALL = re.compile(r"\b(aoti_torch_(?:cpu|cuda|xpu|mps)_\w+|aoti_torch_proxy_executor_call_function)\(")


def _cpp_wrapper_kernels(code: str, defined: list[KernelSpan]) -> list[KernelSpan]:
    """Kernels defined as C++ functions inside the ``cpp_wrapper_src`` string."""
    taken = {span.name for span in defined}
    spans = []
    for match in _CPP_DEFINITION.finditer(code):
        name = match.group(1)
        params_end = _call_end(code, match.end() - 1)
        brace = params_end + len(code[params_end:]) - len(code[params_end:].lstrip())
        if name in taken or not code.startswith("{", brace):
            continue  # a declaration, or the same kernel twice
        end = _brace_end(code, brace)
        kind = _cpp_kind(name, code[brace:end])
        meta = {"device": "cpu", "backend": "cpp_wrapper"}
        spans.append(
            KernelSpan(name=name, language="cpp", kind=kind, start=match.start(), end=end, meta=meta)
        )
        taken.add(name)
    return spans


_BRACE = re.compile(r"[{}]")


def _brace_end(code: str, opening: int) -> int:
    depth = 0
    for found in _BRACE.finditer(code, opening):
        depth += 1 if found.group() == "{" else -1
        if depth == 0:
            return found.end()
    return len(code)


# ------------------------------------------------------------------------ launch lines

_LAUNCH = re.compile(r"^[ \t]+(\w+)(?:\.run)?\(.*$", re.MULTILINE)


def _add_launch_lines(code: str, spans: list[KernelSpan]) -> None:
    """Record in meta["call_args"] the first line that launches each kernel."""
    by_name = {span.name: span for span in spans}
    for begin, end in _gaps(code, spans):
        for match in _LAUNCH.finditer(code, begin, end):
            span = by_name.get(match.group(1))
            if span is not None and "call_args" not in span.meta:
                span.meta["call_args"] = match.group().strip()


# ------------------------------------------------------------------------ extern calls

_EXTERN_CALL = re.compile(
    r"(?<![\w.])(extern_kernels\.\w+|torch\.ops\.\w+\.\w+(?:\.\w+)?|aten\.\w+(?:\.\w+)?)\("
)
_OUT_KEYWORD = re.compile(r"\bout=(\w+)")
_ASSIGNED = re.compile(r"^\s*([\w, ()]+?)\s*=[^=]")


def _extern_calls(code: str, kernels: list[KernelSpan]) -> list[KernelSpan]:
    sites = []
    for begin, stop in _gaps(code, kernels):  # kernel sources are most of the code: skip them
        for pattern in (_EXTERN_CALL, _AOTI_CALL):
            for match in pattern.finditer(code, begin, stop):
                line_start = code.rfind("\n", 0, match.start()) + 1
                if _in_comment_or_string(code[line_start : match.start()], pattern is _AOTI_CALL):
                    continue
                end = _call_end(code, match.end() - 1)
                line_end = code.find("\n", match.start())
                line = code[line_start : line_end if line_end >= 0 else len(code)]
                sites.append((match.start(), end, match.group(1), line))
    sites.sort()
    totals = Counter(op for _, _, op, _ in sites)
    seen: Counter[str] = Counter()
    spans = []
    for start, end, op, line in sites:
        seen[op] += 1
        name = f"{op}:{seen[op]}" if totals[op] > 1 else op
        meta = {"op": op, "out": _written_buffer(op, line), "call": line.strip()}
        spans.append(KernelSpan(name=name, language="extern", kind="extern", start=start, end=end, meta=meta))
    return spans


def _in_comment_or_string(before: str, cpp: bool) -> bool:
    if (cpp and "//" in before) or (not cpp and "#" in before):
        return True
    return before.count("'") % 2 == 1 or before.count('"') % 2 == 1


def _written_buffer(op: str, line: str) -> str | None:
    if found := _OUT_KEYWORD.search(line):
        return found.group(1)
    if op.startswith("aoti_torch_") and op.endswith("_out"):  # C shim: the output comes first
        found = re.search(rf"{op}\((\w+)", line)
        return found.group(1) if found else None
    if (found := _ASSIGNED.match(line)) and "(" not in found.group(1):
        return found.group(1).strip()
    return None


# ------------------------------------------------------------------------- scanning

_INTERESTING = re.compile(r"""[()\[\]{}#'"]""")
_SHORT_STRING = {
    "'": re.compile(r"'(?:[^'\\\n]|\\.)*'"),
    '"': re.compile(r'"(?:[^"\\\n]|\\.)*"'),
}


def _call_end(code: str, opening: int) -> int:
    """Offset just past the bracket matching the one at *opening*, skipping strings."""
    depth = 0
    position = opening
    while (found := _INTERESTING.search(code, position)) is not None:
        char, index = found.group(), found.start()
        if char in "([{":
            depth, position = depth + 1, index + 1
        elif char in ")]}":
            depth, position = depth - 1, index + 1
            if depth <= 0:
                return position
        elif char == "#":
            newline = code.find("\n", index)
            position = newline if newline >= 0 else len(code)
        else:
            position = _string_end(code, index)
    return len(code)


def _string_end(code: str, index: int) -> int:
    quote = code[index]
    if code.startswith(quote * 3, index):
        position = index + 3
        while (close := code.find(quote * 3, position)) >= 0:
            escape = close
            while escape > position and code[escape - 1] == "\\":
                escape -= 1
            if (close - escape) % 2 == 0:  # not an escaped quote
                return close + 3
            position = close + 1
        return len(code)
    found = _SHORT_STRING[quote].match(code, index)
    if found is not None:
        return found.end()
    newline = code.find("\n", index)
    return newline if newline >= 0 else len(code)


def _first_long_string(code: str, start: int, end: int) -> str | None:
    """The text of the first triple-quoted string in code[start:end] (a kernel's source)."""
    candidates = [i for i in (code.find("'''", start, end), code.find('"""', start, end)) if i >= 0]
    if not candidates:
        return None
    opening = min(candidates)
    closing = _string_end(code, opening)
    return code[opening + 3 : max(opening + 3, closing - 3)]


def _keyword_string(text: str, keyword: str) -> str | None:
    found = re.search(rf"\b{keyword}\s*=\s*['\"]([^'\"]*)['\"]", text[-400:])
    return found.group(1) if found else None


def _gaps(code: str, spans: list[KernelSpan]) -> list[tuple[int, int]]:
    """The stretches of *code* outside every span, in order."""
    gaps, position = [], 0
    for start, end in sorted((span.start, span.end) for span in spans):
        if start > position:
            gaps.append((position, start))
        position = max(position, end)
    if position < len(code):
        gaps.append((position, len(code)))
    return gaps
