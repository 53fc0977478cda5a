"""Only trace/ knows torch's raw record shapes: capture, readers, the CLI, the TUI, share and the
store name none.

The raw keys are read off trace/'s own code and the decoders it shares with the readers in
model/decode/ (every ``x.get("key")`` and ``x["key"]`` there, and the record names the builder
dispatches on); none of them may appear as a string literal in inspectc/analysis,
inspectc/render, inspectc/cli, the TUI, inspectc/share, inspectc/store or inspectc/capture
(capture asks ``trace.live`` what a record is as it arrives, and has ``trace.own_records`` shape
the records it adds itself). Words that are inspectc's own
vocabulary too are not raw keys: the report model's field names, the Trace Event Format's
fields (the Perfetto export writes that format) and a few plain labels, listed below.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

from inspectc import model
from inspectc.model import extras as model_extras
from inspectc.model.decode import chromium, ddp
from inspectc.trace import builder
from inspectc.trace.payloads import extras as compile_extras

ROOT = Path(__file__).resolve().parent.parent
READERS = [
    ROOT / "inspectc" / "analysis",
    ROOT / "inspectc" / "render",
    ROOT / "inspectc" / "cli",
    ROOT / "tui" / "inspectc_tui",
]
# Issue 40: the report's store and the share engine read no raw key either (store/factory.py
# takes the graph events' names, share the keys it drops from model/decode/record_keys.py).
STORE_AND_SHARE = [ROOT / "inspectc" / "store", ROOT / "inspectc" / "share"]
# Capture, but its modules that read no torch record: Triton's compiled-kernel metadata and
# launch arguments (its words "device", "dtype", "stride", "type" are trace/'s too), nvdisasm's
# output, the user's tensors compared by accuracy.
CAPTURE = ROOT / "inspectc" / "capture"
NOT_RECORDS = {"triton_detail.py", "sass.py", "accuracy.py", "accuracy_bisect.py", "accuracy_compare.py"}
# Where the raw keys are read: trace/ and the decoders it shares with the readers.
KEY_READERS = [ROOT / "inspectc" / "trace", ROOT / "inspectc" / "model" / "decode"]
TRACE_EVENT_FORMAT = {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"}
LABELS = {"str", "backend", "errors", "graph", "graphs", "inputs", "kernels", "method", "ops", "phase", "runtime", "shape", "size", "version"}  # fmt: skip


def _trees(folder: Path) -> list[tuple[Path, ast.Module]]:
    paths = [p for p in sorted(folder.rglob("*.py")) if not (p.parent == CAPTURE and p.name in NOT_RECORDS)]
    return [(p, ast.parse(p.read_text(), str(p))) for p in paths]


def keys_read(folder: Path) -> set[str]:
    found: set[str] = set()
    for _, tree in _trees(folder):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
            ):
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                if isinstance(node.slice.value, str):
                    found.add(node.slice.value)
    return found


def literals(folder: Path) -> dict[str, list[str]]:
    """String literals (docstrings left out) -> where they are."""
    out: dict[str, list[str]] = {}
    for path, tree in _trees(folder):
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                out.setdefault(node.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def model_fields() -> set[str]:
    """The field names of the report model's core (model/__init__.py and extras.py, which the
    frame nests: autotuning, CUDA graphs, symbolic shapes)."""
    return {
        f.name
        for module in (model, model_extras)
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if dataclasses.is_dataclass(cls)
        for f in dataclasses.fields(cls)
    }


def raw_keys() -> set[str]:
    keys = set().union(*map(keys_read, KEY_READERS)) - model_fields() - TRACE_EVENT_FORMAT - LABELS
    events = {*builder._HANDLERS, *builder._GRAPH_EVENTS, *compile_extras.EVENTS, *ddp.EVENTS, chromium.EVENT}
    return keys | events


def test_the_raw_keys_are_found() -> None:
    found = raw_keys()
    assert {"dynamo_start", "frame_compile_id", "has_payload", "co_filename", "loc"} <= found
    assert {"optimize_ddp_split_child", "chromium_event", "inductor_output_code"} <= found
    assert len(found) > 80


def test_readers_cli_tui_store_share_and_capture_name_no_raw_key() -> None:
    raw = raw_keys()
    named = {
        key: where
        for folder in [*READERS, *STORE_AND_SHARE, CAPTURE]
        for key, where in literals(folder).items()
        if key in raw
    }
    assert named == {}, "raw torch keys outside trace/ (parse them in trace/):\n" + "\n".join(
        f"  {key!r}: {', '.join(where)}" for key, where in sorted(named.items())
    )
