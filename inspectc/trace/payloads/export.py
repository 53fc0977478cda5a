"""``torch.export``, ``draft_export`` and AOTInductor records -> report-model types.

Inputs, as torch 2.4-2.13 log them (no compile id: nothing here is a Dynamo frame):

- ``exported_program`` (payload: ``str(ExportedProgram)``: the graph module, ``Graph
  signature:`` with ``# inputs``/``# outputs`` lines, ``Range constraints: {...}``). Logged
  through ``dtrace_structured`` since torch 2.6, so only with ``TORCH_DTRACE`` (draft_export
  writes its own log there, or in ``/tmp/export_<user>``).
- the draft-export report's records (metadata only): ``propagate_real_tensors_provenance``
  (a data-dependent expression specialised to its real value: ``expr``, ``result``),
  ``guard_added`` (``expr``, ``prefix``, ``symbol_to_sources``), ``missing_fake_kernel`` and
  ``mismatched_fake_kernel`` (``op``, ``reason``); each with ``user_stack`` (string-table
  file indexes) and ``frame_locals`` (``loc``, ``locals``). ``create_unbacked_symbol`` names
  a data-dependent symbol.
- AOTInductor: ``graph_dump`` records named ``inductor_aot_wrapper_code``, ``..._kernel_code``,
  ``..._header_code`` (C++; the wrapper calls each kernel under a ``// [Provenance debug
  handles] <kernel>:<n>`` comment when provenance tracking is on).

Pure: stdlib only, tolerant of missing or odd fields (they stay None), never raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from inspectc.model import CompileId, Kernel, Origin, StackFrame, fxgraph
from inspectc.model.runrecords import AotCode, AotKernel, ExportedProgram, ExportIssue
from inspectc.trace.payloads import output_code, provenance

__all__ = ["ISSUE_EVENTS", "aot_code", "aot_kernels", "export_issue", "exported_program", "stack"]

Resolve = Callable[[Any], str | None]  # a stack entry's "filename" (string-table index) -> path

# Record name -> ExportIssue.kind
ISSUE_EVENTS = {
    "propagate_real_tensors_provenance": "data_dependent_error",
    "guard_added": "guard_added",
    "missing_fake_kernel": "missing_fake_kernel",
    "mismatched_fake_kernel": "mismatched_fake_kernel",
}

# graph_dump name -> graph kind of its row
AOT_CODE = {
    "inductor_aot_wrapper_code": "aot_wrapper_code",
    "inductor_aot_kernel_code": "aot_kernel_code",
    "inductor_aot_header_code": "aot_header_code",
}

_TORCH_DIRS = ("/torch/", "/site-packages/", "/dist-packages/", "<frozen ", "/lib/python3")


def stack(entries: Any, resolve: Resolve) -> tuple[StackFrame, ...]:
    """A structured-trace stack (``[{"line", "name", "filename", "loc"}]``) as model frames."""
    out = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        line = entry.get("line")
        out.append(
            StackFrame(
                filename=resolve(entry.get("filename")),
                line=line if isinstance(line, int) and not isinstance(line, bool) else None,
                function=_str(entry.get("name")),
                code=_str(entry.get("loc")),
            )
        )
    return tuple(out)


def call_site(frames: tuple[StackFrame, ...]) -> StackFrame | None:
    """The innermost frame outside torch and the Python library: the user's line."""
    for frame in reversed(frames):
        if frame.filename and not any(part in frame.filename for part in _TORCH_DIRS):
            return frame
    return None


def export_issue(name: str, body: Any, resolve: Resolve) -> ExportIssue | None:
    """One draft-export finding from a record's metadata (None: not an export issue)."""
    kind = ISSUE_EVENTS.get(name)
    if kind is None or not isinstance(body, dict):
        return None
    user = stack(body.get("user_stack"), resolve) or stack(body.get("stack"), resolve)
    where = call_site(user) or (user[-1] if user else None)
    found = body.get("frame_locals")
    frame_locals: dict[str, Any] = found if isinstance(found, dict) else {}
    return ExportIssue(
        kind=kind,
        expr=_str(body.get("expr")),
        result=_text(body.get("result")),
        op=_str(body.get("op")),
        reason=_str(body.get("reason")),
        prefix=_str(body.get("prefix")),
        code=_str(frame_locals.get("loc")) or (where.code if where else None),
        filename=where.filename if where else None,
        line=where.line if where else None,
        function=where.function if where else None,
        user_stack=tuple(f for f in user if f.filename and not _is_torch(f.filename)) or user,
        locals=_text_map(frame_locals.get("locals")),
        sources=_text_map(body.get("symbol_to_sources")),
    )


def exported_program(
    payload: str,
    *,
    index: int,
    rank: int | None,
    key: str,
    issues: tuple[ExportIssue, ...] = (),
    unbacked: tuple[str, ...] = (),
    site: StackFrame | None = None,
) -> ExportedProgram:
    """An ``exported_program`` record's printed program, read into its parts."""
    graph = fxgraph.parse(payload)
    calls = [n for n in graph.nodes if n.op in (fxgraph.CALL_FUNCTION, fxgraph.CALL_METHOD)]
    ops = [n.target for n in calls if _looks_like_op(n.target)]
    return ExportedProgram(
        index=index,
        rank=rank,
        key=key,
        size=len(payload),
        inputs=_section(payload, "# inputs") or _specs(payload, "Input"),
        outputs=_section(payload, "# outputs") or _specs(payload, "Output"),
        range_constraints=_after(payload, "Range constraints:"),
        op_count=len(calls),
        ops=tuple(dict.fromkeys(ops)),
        unbacked_symbols=unbacked,
        issues=merge_issues(issues),
        call_site=site,
    )


def merge_issues(issues: tuple[ExportIssue, ...]) -> tuple[ExportIssue, ...]:
    """One issue per (kind, expression, op, place), counting how often it was logged."""
    merged: dict[tuple[Any, ...], ExportIssue] = {}
    for issue in issues:
        key = (issue.kind, issue.expr, issue.op, issue.filename, issue.line)
        seen = merged.get(key)
        merged[key] = (
            issue if seen is None else replace(seen, occurrences=seen.occurrences + issue.occurrences)
        )
    return tuple(merged.values())


def aot_code(body: Any, payload: str | None) -> AotCode | None:
    """A ``graph_dump`` record's piece of AOT code (None: not AOT code)."""
    if not isinstance(body, dict) or payload is None:
        return None
    kind = AOT_CODE.get(str(body.get("name")))
    if kind is None:
        return None
    return AotCode(
        kind=kind, language=_str(body.get("type")), path=_str(body.get("filename")), size=len(payload)
    )


def aot_kernels(
    code: Mapping[str, str],
    *,
    mappings: str | None = None,
    stack_traces: str | None = None,
    pre_grad_graph: str | None = None,
) -> tuple[tuple[AotKernel, ...], bool]:
    """The kernels of one AOT compile (C++ functions of its kernel code, library calls of its
    wrapper) with fused nodes and user lines when provenance was logged; and whether it was."""
    found: list[AotKernel] = []
    kernel_code = code.get("aot_kernel_code") or ""
    # a bare C++ source: output_code splits its ``extern "C" void`` functions like cpp_wrapper's
    for span in output_code._cpp_wrapper_kernels(kernel_code, []):
        found.append(_aot_kernel(span, "aot_kernel_code"))
    wrapper = code.get("aot_wrapper_code") or ""
    # on CUDA, each Triton kernel's source sits in a /* async_compile.triton('<name>', ...) */
    # comment of the wrapper (of the kernel code in some versions), launched from its cubin
    named = {item.kernel.name for item in found}
    for where in ("aot_kernel_code", "aot_wrapper_code"):
        for span in output_code.commented_triton_kernels(code.get(where) or ""):
            if span.name not in named:
                named.add(span.name)
                found.append(_aot_kernel(span, where))
    for span in output_code.split_output_code(wrapper):
        if span.language == "extern":
            found.append(_aot_kernel(span, "aot_wrapper_code"))
    if not (mappings or stack_traces) or not found:
        return tuple(found), False
    try:
        return tuple(_with_provenance(found, wrapper, mappings, stack_traces, pre_grad_graph)), True
    except ValueError:  # provenance's own error (ProvenanceError) when groups cannot be built
        return tuple(found), False


def _aot_kernel(span: output_code.KernelSpan, where: str) -> AotKernel:
    kernel = Kernel(
        id=-1,
        compile_id=CompileId(),  # an AOT compile has none
        name=span.name,
        language=span.language,
        kind=span.kind,
        source_size=span.end - span.start,
        graph_kind=where,
        meta=dict(span.meta),
    )
    return AotKernel(kernel=kernel, code=where, start=span.start, stop=span.end)


def _with_provenance(
    found: list[AotKernel], wrapper: str, mappings: str | None, traces: str | None, pre_grad: str | None
) -> list[AotKernel]:
    # Provenance keys are call sites "<kernel>:<n>", in the wrapper's comments in call order;
    # the n-th call of a library op is its n-th handle (as for JIT output code).
    by_base: dict[str, list[str]] = {}
    for handle in provenance.kernel_handles(wrapper.replace("// [Provenance", "# [Provenance")):
        by_base.setdefault(provenance.base_name(handle), []).append(handle)
    keys: list[str] = []
    seen: dict[str, int] = {}
    for item in found:
        k = item.kernel
        base = str(k.meta.get("op") or provenance.base_name(k.name)) if k.language == "extern" else k.name
        n = seen[base] = seen.get(base, -1) + 1
        handles = by_base.get(base, [])
        keys.append(handles[n] if k.language == "extern" and n < len(handles) else base)
    groups = provenance.fusion_groups(
        provenance.parse_node_mappings(mappings),
        provenance.parse_kernel_stack_traces(traces),
        list(dict.fromkeys(keys)),
        pre_grad_graph=pre_grad,
    )
    out = []
    for item, key in zip(found, keys, strict=True):
        info = groups.get(key)
        if info is not None:
            origins = tuple(
                Origin(op=o.op, filename=o.filename, line=o.line, module=o.module) for o in info.origins
            )
            item = replace(
                item, kernel=replace(item.kernel, fused_nodes=tuple(info.fused_nodes), origins=origins)
            )
        out.append(item)
    return out


# ---------------------------------------------------------------------------- helpers


def _section(text: str, header: str) -> tuple[str, ...]:
    """The lines under ``# inputs`` (or ``# outputs``) of a graph signature."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == header)
    except StopIteration:
        return ()
    out = []
    for line in lines[start + 1 :]:
        item = line.strip()
        if not item or item.startswith("#") or not line.startswith(" "):
            break
        out.append(item)
    return tuple(out)


_SPEC = re.compile(
    r"(?P<io>Input|Output)Spec\(kind=<(?:Input|Output)Kind\.(?P<kind>\w+): \d+>,"
    r" arg=\w+\(name='(?P<name>[^']*)'[^)]*\), target=(?:'(?P<target>[^']*)'|None)"
)


def _specs(text: str, which: str) -> tuple[str, ...]:
    """Older torch prints ``Graph signature: ExportGraphSignature(input_specs=[InputSpec(...)])``."""
    out = []
    for m in _SPEC.finditer(text):
        if m.group("io") == which:
            target = f" target='{m.group('target')}'" if m.group("target") else ""
            out.append(f"{m.group('name')}: {m.group('kind')}{target}")
    return tuple(out)


def _after(text: str, label: str) -> str | None:
    at = text.rfind(label)
    if at < 0:
        return None
    rest = text[at + len(label) :].strip().splitlines()
    return rest[0].strip() if rest else None


def _looks_like_op(target: str) -> bool:
    return bool(target) and " " not in target and "." in target


def _is_torch(filename: str) -> bool:
    return any(part in filename for part in _TORCH_DIRS)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def _text_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {
        str(k): v if isinstance(v, str) else ", ".join(map(str, v)) if isinstance(v, list) else str(v)
        for k, v in value.items()
    }
