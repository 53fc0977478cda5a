"""A kernel's launch arguments read from its output code's ``call()``. Stdlib only.

Where capture recorded no launch (C++ kernels, which Inductor calls as compiled functions;
reports captured before kernel detail was recorded), the output code says it all for static shapes: the call
(``cpp_fused_add_1(buf7, primals_3)``, ``triton_poi_x.run(buf0, arg0_1, 512, stream=s)``),
every buffer's ``empty_strided_*((shape), (stride), torch.dtype)``, each reuse
(``buf7 = buf6; del buf6  # reuse``), ``reinterpret_tensor(buf, (shape), (stride), offset)``
and the inputs' ``assert_size_stride(arg, (shape), (stride))``. The element type of an input
comes from the kernel's own signature (``*fp32``, ``const float*``).
"""

from __future__ import annotations

import ast
import re

from inspectc.model.kernel_detail import ArgRecord, Launch

_ALLOC = re.compile(r"^\s*(\w+)\s*=\s*empty_strided(?:_\w+)?\((.*)\)\s*$")
_REUSE = re.compile(r"^\s*(\w+)\s*=\s*(\w+)\s*;\s*del\s+\w+\s*#\s*reuse")
_REINTERP = re.compile(r"^\s*(\w+)\s*=\s*(reinterpret_tensor\(.*\))\s*(?:;.*)?$")
_ASSERT = re.compile(r"^\s*assert_size_stride\((\w+),\s*(\([^)]*\)),\s*(\([^)]*\))")

TRITON_DTYPES = {
    "fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64",
    "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "i1": "bool",
    "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2",
}  # fmt: skip
CPP_DTYPES = {
    "float": "float32", "double": "float64", "at::Half": "float16", "half": "float16",
    "at::BFloat16": "bfloat16", "bfloat16": "bfloat16", "int64_t": "int64", "int32_t": "int32",
    "int16_t": "int16", "int8_t": "int8", "uint8_t": "uint8", "bool": "bool", "long": "int64",
}  # fmt: skip


class LaunchArgsError(ValueError):
    """The call or a shape could not be read (symbolic sizes, an expression we do not know)."""


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as exc:
        raise LaunchArgsError(f"not a constant: {text.strip()[:60]}") from exc


def _tensor_table(code: str) -> dict[str, dict[str, object]]:
    table: dict[str, dict[str, object]] = {}
    body = code[code.find("def call(") :] if "def call(" in code else code
    for line in body.splitlines():
        if m := _ALLOC.match(line):
            parts = _split_args(m.group(2))
            if len(parts) >= 3:
                table[m.group(1)] = {
                    "shape": parts[0],
                    "stride": parts[1],
                    "dtype": parts[2].strip().removeprefix("torch."),
                }
        elif m := _REUSE.match(line):
            if m.group(2) in table:
                table[m.group(1)] = dict(table[m.group(2)])
        elif m := _REINTERP.match(line):
            spec = _reinterpret(m.group(2), table)
            if spec is not None:
                table[m.group(1)] = spec
        elif m := _ASSERT.match(line):
            table.setdefault(m.group(1), {"shape": m.group(2), "stride": m.group(3), "dtype": None})
    return table


def _reinterpret(expr: str, table: dict[str, dict[str, object]]) -> dict[str, object] | None:
    inner = expr[len("reinterpret_tensor(") : expr.rfind(")")]
    parts = _split_args(inner)
    if len(parts) < 3:
        return None
    base = table.get(parts[0].strip())
    return {"shape": parts[1], "stride": parts[2], "dtype": base.get("dtype") if base else None}


def _split_args(text: str) -> list[str]:
    """Top-level comma split (parentheses and brackets nest)."""
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    tail = text[start:]
    if tail.strip():
        out.append(tail)
    return [p.strip() for p in out]


def _ints(text: object, what: str) -> tuple[int, ...]:
    value = _literal(str(text)) if not isinstance(text, tuple) else text
    if isinstance(value, int):
        value = (value,)
    if not isinstance(value, tuple) or not all(isinstance(v, int) for v in value):
        raise LaunchArgsError(f"{what} is not constant: {text}")
    return tuple(value)


def element_types(kernel_meta: dict[str, object]) -> list[str | None]:
    """Per argument (no constexpr), the element dtype of a pointer, None for a scalar."""
    sig = kernel_meta.get("triton_meta")
    if isinstance(sig, dict) and isinstance(sig.get("signature"), dict):
        out: list[str | None] = []
        for name, t in sig["signature"].items():
            if _is_block(name, t):
                continue
            out.append(TRITON_DTYPES.get(str(t)[1:], "float32") if str(t).startswith("*") else None)
        return out
    types = kernel_meta.get("arg_types")
    if isinstance(types, list):
        out = []
        for t in types:
            t = str(t).replace("const ", "").strip()
            out.append(CPP_DTYPES.get(t[:-1].strip(), "float32") if t.endswith("*") else None)
        return out
    return []


def _is_block(name: str, kind: object) -> bool:
    """A block size the config supplies (XBLOCK, R0_BLOCK): not passed to ``run``. A numel
    Inductor specialised (``xnumel: constexpr``) is still passed."""
    return kind == "constexpr" and name.upper() == name


def arg_names(kernel_meta: dict[str, object]) -> list[str]:
    sig = kernel_meta.get("triton_meta")
    if isinstance(sig, dict) and isinstance(sig.get("signature"), dict):
        return [k for k, v in sig["signature"].items() if not _is_block(k, v)]
    return []


def launch_from_code(code: str, kernel_meta: dict[str, object], device: str) -> Launch:
    """The launch that the output code's call of this kernel makes (static shapes only)."""
    call = kernel_meta.get("call_args")
    if not isinstance(call, str) or "(" not in call:
        raise LaunchArgsError("the output code's call of this kernel was not recorded")
    inner = call[call.find("(") + 1 : call.rfind(")")]
    parts = [p for p in _split_args(inner) if not re.match(r"^\w+\s*=", p)]  # stream=..., kwargs
    table = _tensor_table(code)
    types = element_types(kernel_meta)
    names = arg_names(kernel_meta)
    args: list[ArgRecord] = []
    for i, part in enumerate(parts):
        name = names[i] if i < len(names) else part
        elem = types[i] if i < len(types) else None
        if part.startswith("reinterpret_tensor("):
            spec = _reinterpret(part, table)
        else:
            spec = table.get(part)
        if spec is None:
            if re.match(r"^-?\d+$", part) or re.match(r"^-?\d*\.\d+(e-?\d+)?$", part):
                args.append(ArgRecord(kind="scalar", name=name, value=_literal(part)))
                continue
            if part == "None":
                args.append(ArgRecord(kind="none", name=name))
                continue
            raise LaunchArgsError(
                f"argument {i} ({part}) is neither a buffer with a constant shape nor a number"
            )
        args.append(
            ArgRecord(
                kind="tensor",
                name=name,
                shape=_ints(spec["shape"], f"shape of {part}"),
                stride=_ints(spec["stride"], f"stride of {part}"),
                dtype=(str(spec["dtype"]) if spec.get("dtype") else None) or elem or "float32",
                device=device,
            )
        )
    return Launch(args=tuple(args), source="output_code")


_DEVICE_OP = re.compile(r"\.run\(|\bextern_kernels\.|\btorch\.ops\.|\baten\.")
_NAME = re.compile(r"(?<![.\w])([A-Za-z_]\w*)\b(?!\s*[(.\w])")
_NOT_A_BUFFER = frozenset({"None", "True", "False", "del", "stream", "out"})


def _buffers(text: str) -> set[str]:
    """Names a statement passes around (not called, not attributes, not keywords)."""
    return {n for n in _NAME.findall(text) if n not in _NOT_A_BUFFER and not n.startswith("stream")}


def recently_touched(code: str, kernel_name: str, window: int = 2) -> list[bool] | None:
    """Per positional argument of the kernel's first launch in the output code's ``call()``:
    whether one of the *window* device operations just before it (kernel launches, library
    calls) names the same buffer (``buf7 = buf6  # reuse`` is one buffer), so that its data is
    in the GPU's L2 when the kernel starts, as the producer left it (tensors of a few MB; an
    H200's L2 holds 60 MB). None when the launch is not in the code."""
    start = code.rfind("def call(")  # the module's: a kernel's own harness (in its source) comes before
    if start < 0:
        return None
    same: dict[str, str] = {}  # a reused buffer's new name -> the first name

    def names(text: str) -> set[str]:
        return {same.get(n, n) for n in _buffers(text)}

    recent: list[set[str]] = []
    for line in code[start:].splitlines():
        text = line.split("#", 1)[0].strip()
        if m := _REUSE.match(line):
            same[m.group(1)] = same.get(m.group(2), m.group(2))
        elif text.startswith(f"{kernel_name}.run("):
            inner = text[text.find("(") + 1 : text.rfind(")")]
            parts = [p for p in _split_args(inner) if not re.match(r"^\w+\s*=", p)]
            near = set().union(*recent[len(recent) - window :]) if window > 0 else set()
            return [bool(names(p) & near) for p in parts]
        elif _DEVICE_OP.search(text):
            recent.append(names(text))
    return None
