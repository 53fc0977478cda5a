"""An independent counter for raw TORCH_TRACE logs (stdlib only; never imports inspectc).

The tests use it as a second opinion: whatever inspectc reports about a log in
``tests/data/logs/`` should agree with what this small, separately written reader counts.

Log format (torch 2.13, ``torch/_logging/_internal.py``): every record is one line

    V1203 12:00:00.123456 1234 torch/_dynamo/convert_frame.py:123] {"dynamo_start": {...}, ...}

a glog prefix (level letter, ``MMDD HH:MM:SS.micro``, pid, ``path:line]``; the trace handler
never writes the ``[rankN]:`` or ``[trace id]`` parts of the console format, but both are
accepted) followed by one JSON object. If the record has a payload, the object carries
``"has_payload": "<md5>"`` and the payload follows on the next lines, each prefixed by a tab.
The event name is the object's first key (``trace_structured`` inserts it first); the other
keys are context: ``rank`` (only when torch.distributed is initialised), ``frame_id``,
``frame_compile_id``, ``attempt``, ``compiled_autograd_id``, ``subgraph_name``, ``has_payload``
and ``stack`` (the call stack, added when a record has no compile id).

Counts, as ``summary()`` returns them:

    records              records whose JSON parsed
    malformed            lines that are neither a payload line nor a prefix + JSON object
                         (including a prefix whose JSON does not parse), plus payload lines
                         with no record before them
    frames               distinct (frame_id, frame_compile_id) of ``dynamo_start`` records,
                         i.e. Dynamo compiles "0/0", "0/1", ... (a compile id that restarts, or
                         that appears again after ``torch._dynamo.reset()``, counts once)
    attempts             distinct (frame_id, frame_compile_id, attempt) over all records that
                         have a frame_id and frame_compile_id ("0/0", "0/0_1", ...); compiled-
                         autograd ids are not part of the key
    dynamo_starts        number of ``dynamo_start`` records (> frames when an id repeats)
    graph_breaks         ``artifact`` records named ``dynamo_graph_break_reason``
    recompiles           ``artifact`` records named ``recompile_reasons`` (one per recompile;
                         its payload lists the failed guards, one per earlier cache entry)
    compilation_metrics  ``compilation_metrics`` records (one per finished frame compile)
    output_code          ``inductor_output_code`` records (Inductor's generated wrapper, also
                         the AOTInductor C++ wrapper)
    kernels              sum over ``inductor_output_code`` payloads of the number of distinct
                         kernel names defined in that payload: Triton
                         ``async_compile.triton('<name>', ...)``, C++
                         ``async_compile.cpp_pybinding(['<signature with name>'], ...)`` and
                         ``async_compile.cpp('<source>')`` bound to ``<name> = ...``, and
                         (AOTInductor / cpp_wrapper) ``extern "C" void cpp_fused_...(`` or
                         ``triton_...`` kernel definitions. AOTInductor does not emit
                         ``inductor_output_code``: see aot_code / aot_kernels
    aot_code             ``graph_dump`` records named ``inductor_aot_wrapper_code`` or
                         ``inductor_aot_kernel_code`` (AOTInductor's generated C++)
    aot_kernels          distinct kernel names (same patterns as ``kernels``: here the
                         ``extern "C" void cpp_fused_...(`` definitions) over the
                         ``inductor_aot_kernel_code`` payloads, per payload, summed
    aot_triton_kernels   distinct ``async_compile.triton('<name>'`` names over the AOTInductor
                         wrapper and kernel code payloads (on CUDA each Triton kernel's source
                         sits in a ``/* */`` comment of the C++ wrapper)
    export_issues        draft-export findings: ``propagate_real_tensors_provenance``,
                         ``missing_fake_kernel``, ``mismatched_fake_kernel`` records, and
                         ``guard_added`` records that carry draft export's ``prefix`` (without
                         one it is ShapeEnv's log of an ordinary guard, as tlparse reads it)
    restart_breaks       strings in ``compilation_metrics``' ``restart_reasons`` that are not an
                         exception class (``<class ...``): older torch's only graph-break record
    resume_sites         sorted "file:line" of every ``torch_dynamo_resume_in_<fn>_at_<line>``
                         ``co_name`` of ``compilation_metrics`` (where Dynamo resumed after a break)
    ranks                sorted distinct ``rank`` values (empty list: not a distributed run)
    compile_time_s       sum over ``compilation_metrics`` of ``entire_frame_compile_time_s``,
                         or where that is null (late-2024 torch) ``dynamo_cumulative_compile_time_us``
                         / 1e6
"""

from __future__ import annotations

import collections
import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: keys that are context, not the event name
METADATA_KEYS = frozenset(
    {
        "rank",
        "compiled_autograd_id",
        "frame_id",
        "frame_compile_id",
        "attempt",
        "severity",
        "timestamp",
        "pathname",
        "thread",
        "subgraph_name",
        "has_payload",
        "stack",
    }
)

#: count_by_type key for malformed lines
MALFORMED = "<malformed>"

_PREFIX = re.compile(
    r"^(?:\[rank\d+\]:)?"  # console-format rank prefix (not written by the trace handler)
    r"[VIWEC]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [^\]]*:\d+\]"  # glog prefix
    r"(?: \[[^\]]*\])*"  # optional " [trace id]" / " [__artifact]"
    r" (?=\{)"
)


def read(path: str | Path) -> tuple[list[tuple[dict[str, Any], str | None]], int]:
    """All records of a log as (metadata, payload or None), and the malformed-line count."""
    out: list[tuple[dict[str, Any], list[str] | None]] = []
    malformed = 0
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = raw.rstrip("\n")
            if line.startswith("\t"):
                if not out:
                    malformed += 1
                    continue
                meta, payload = out[-1]
                if payload is None:
                    payload = []
                    out[-1] = (meta, payload)
                payload.append(line[1:])
                continue
            if not line.strip():
                continue
            m = _PREFIX.match(line)
            if not m:
                malformed += 1
                continue
            try:
                meta = json.loads(line[m.end() :])
            except ValueError:
                malformed += 1
                continue
            if not isinstance(meta, dict):
                malformed += 1
                continue
            out.append((meta, None))
    return [(meta, None if p is None else "\n".join(p)) for meta, p in out], malformed


def iter_payloads(path: str | Path) -> Iterator[tuple[dict[str, Any], str | None]]:
    yield from read(path)[0]


def records(path: str | Path) -> list[dict[str, Any]]:
    """The JSON metadata object of every well-formed record, in file order."""
    return [meta for meta, _ in read(path)[0]]


def event_name(meta: dict[str, Any]) -> str:
    """First non-context key; ``artifact:<name>`` / ``graph_dump:<name>`` for those two."""
    for key, value in meta.items():
        if key in METADATA_KEYS:
            continue
        if key in ("artifact", "graph_dump") and isinstance(value, dict) and "name" in value:
            return f"{key}:{value['name']}"
        return key
    return "<none>"


def count_by_type(path: str | Path) -> collections.Counter[str]:
    """Records per event name; malformed lines under ``MALFORMED`` (only if there are any)."""
    recs, malformed = read(path)
    counter = collections.Counter(event_name(meta) for meta, _ in recs)
    if malformed:
        counter[MALFORMED] = malformed
    return counter


_TRITON = re.compile(r"""async_compile\.triton\(\s*['"]([A-Za-z_][\w]*)['"]""")
_CPP_PYBINDING = re.compile(r"""^\s*([A-Za-z_]\w*)\s*=\s*async_compile\.cpp_pybinding\(\s*\[""", re.M)
_CPP = re.compile(r"""^\s*([A-Za-z_]\w*)\s*=\s*async_compile\.cpp\(""", re.M)
_EXTERN_C = re.compile(r"""extern\s+"C"\s+(?:__global__\s+)?void\s+((?:cpp|triton)_\w+)\s*\(""")
_CPP_DEF = re.compile(r"""^\s*(?:extern\s+"C"\s+)?void\s+(cpp_fused_\w+)\s*\(""", re.M)


def kernel_names(code: str) -> set[str]:
    """Distinct kernel names defined in one ``inductor_output_code`` payload."""
    names: set[str] = set()
    names.update(_TRITON.findall(code))
    names.update(_CPP_PYBINDING.findall(code))
    names.update(_CPP.findall(code))
    names.update(_EXTERN_C.findall(code))
    names.update(_CPP_DEF.findall(code))
    return names


def summary(path: str | Path) -> dict[str, Any]:
    """The counts described in the module docstring."""
    recs, malformed = read(path)
    frames: set[tuple[Any, Any]] = set()
    attempts: set[tuple[Any, Any, Any]] = set()
    ranks: set[int] = set()
    s: collections.Counter[str] = collections.Counter()
    compile_time = 0.0
    aot_triton: set[str] = set()
    sites: set[str] = set()
    for meta, payload in recs:
        name = event_name(meta)
        fid, fcid = meta.get("frame_id"), meta.get("frame_compile_id")
        if fid is not None and fcid is not None:
            attempts.add((fid, fcid, meta.get("attempt", 0)))
        if name == "dynamo_start":
            s["dynamo_starts"] += 1
            if fid is not None and fcid is not None:
                frames.add((fid, fcid))
        elif name == "artifact:dynamo_graph_break_reason":
            s["graph_breaks"] += 1
        elif name == "artifact:recompile_reasons":
            s["recompiles"] += 1
        elif name == "compilation_metrics":
            s["compilation_metrics"] += 1
            body = meta["compilation_metrics"]
            if isinstance(body, dict):
                for why in body.get("restart_reasons") or []:
                    if isinstance(why, str) and not why.startswith("<class "):
                        s["restart_breaks"] += 1
                resumed = re.search(r"_at_(\d+)$", str(body.get("co_name") or ""))
                if str(body.get("co_name")).startswith("torch_dynamo_resume_in_") and resumed:
                    sites.add(f"{body.get('co_filename')}:{resumed.group(1)}")
                secs = body.get("entire_frame_compile_time_s")
                if not isinstance(secs, (int, float)):
                    micros = body.get("dynamo_cumulative_compile_time_us")
                    secs = micros / 1e6 if isinstance(micros, (int, float)) else 0.0
                compile_time += secs
        elif name == "inductor_output_code":
            s["output_code"] += 1
            s["kernels"] += len(kernel_names(payload or ""))
        elif name in ("graph_dump:inductor_aot_wrapper_code", "graph_dump:inductor_aot_kernel_code"):
            s["aot_code"] += 1
            aot_triton.update(_TRITON.findall(payload or ""))
            if name.endswith("kernel_code"):
                s["aot_kernels"] += len(kernel_names(payload or ""))
        if name in ("propagate_real_tensors_provenance", "missing_fake_kernel", "mismatched_fake_kernel"):
            s["export_issues"] += 1
        elif name == "guard_added" and isinstance(meta[name], dict) and meta[name].get("prefix"):
            s["export_issues"] += 1
        if isinstance(meta.get("rank"), int):
            ranks.add(meta["rank"])
    return {
        "records": len(recs),
        "malformed": malformed,
        "frames": len(frames),
        "attempts": len(attempts),
        "dynamo_starts": s["dynamo_starts"],
        "graph_breaks": s["graph_breaks"],
        "recompiles": s["recompiles"],
        "compilation_metrics": s["compilation_metrics"],
        "output_code": s["output_code"],
        "kernels": s["kernels"],
        "aot_code": s["aot_code"],
        "aot_kernels": s["aot_kernels"],
        "aot_triton_kernels": len(aot_triton),
        "export_issues": s["export_issues"],
        "restart_breaks": s["restart_breaks"],
        "resume_sites": sorted(sites),
        "ranks": sorted(ranks),
        "compile_time_s": round(compile_time, 6),
    }


def compile_key(meta: dict[str, Any]) -> str | None:
    """A record's compile as text: ``F/C`` for Dynamo frame F's compile C, ``!A/F/C`` under
    compiled autograd A, ``!A`` for compiled autograd's own graph; restarts (``attempt``)
    belong to their compile. None for a record outside any compile."""
    fid, fcid, autograd = meta.get("frame_id"), meta.get("frame_compile_id"), meta.get("compiled_autograd_id")
    head = f"!{autograd}" if isinstance(autograd, int) else None
    if fid is None or fcid is None:
        return head
    return f"{head}/{fid}/{fcid}" if head else f"{fid}/{fcid}"


def kernels_by_compile(path: str | Path) -> dict[str, int]:
    """Per compile (:func:`compile_key`): distinct kernel names defined in its
    ``inductor_output_code`` payloads, per payload, summed (forward and backward code)."""
    out: collections.Counter[str] = collections.Counter()
    for meta, payload in iter_payloads(path):
        if event_name(meta) == "inductor_output_code":
            out[compile_key(meta) or "?"] += len(kernel_names(payload or ""))
    return dict(out)


if __name__ == "__main__":  # python tests/rawcount.py LOG...
    import sys

    for arg in sys.argv[1:]:
        print(arg, json.dumps(summary(arg)), json.dumps(count_by_type(arg).most_common()))
