"""The records beside the frames, gathered while events arrive: exported programs and the
draft-export report, AOTInductor compiles, links, artifacts, per-graph collectives.

The builder hands every event to :meth:`RunRecordsBuilder.feed` (it ignores what is not
its own) and calls :meth:`finish` at the end, which writes one ``inspectc_records`` event
(JSON of :class:`~inspectc.model.runrecords.RunRecords`). The parsing is in
``payloads/export.py`` and ``payloads/artifacts.py``; this module only keeps the order:

- an export's findings (``propagate_real_tensors_provenance``, ``guard_added``...; records
  without a compile id) and unbacked symbols belong to the next ``exported_program``; those
  of an export that logged no program (it failed) are kept as ``export_issues``;
- AOTInductor logs its graphs (``aot_inference_graph``, ``after_pre_grad_graph``...), then its
  code (``graph_dump``), then provenance, then a ``compilation_metrics`` whose compile id is
  null: graphs without a compile id since the last AOT compile belong to the next one, and the
  metrics (or the end of the log) close it. Its text is named by graph rows under the key
  ``aoti/N``; an exported program's under ``export/N``.
No torch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from inspectc.model import CompileId, to_plain
from inspectc.model.runrecords import (
    RECORDS_EVENT,
    AotCode,
    AotCompile,
    Artifact,
    CacheKey,
    ExecutionOrder,
    ExportedProgram,
    ExportIssue,
    GraphCollectives,
    Link,
    RunRecords,
)
from inspectc.trace.payloads import artifacts, export
from inspectc.trace.records import as_num
from inspectc.trace.sink import Sink

Resolve = Callable[[Any], str | None]

# Graphs an AOT compile logs without a compile id: record name -> graph kind.
_AOT_GRAPHS = {
    "aot_inference_graph": "aot_inference",
    "aot_forward_graph": "aot_forward",
    "aot_joint_graph": "aot_joint",
    "artifact:after_pre_grad_graph": "pre_grad",
    "inductor_pre_grad_graph": "pre_grad",
    "artifact:inductor_post_grad_graph": "post_grad",
    "artifact:after_post_grad_graph": "post_grad",  # 2.5-2.8 name (AOTInductor on CUDA logs it)
    "inductor_post_grad_graph": "post_grad",
    "artifact:fx_graph_runnable": "fx_graph_runnable",
}
_PROVENANCE = (
    "artifact:inductor_provenance_tracking_node_mappings",
    "artifact:inductor_provenance_tracking_kernel_stack_traces",
)
# Artifacts the frames (or this module) read: every other artifact name is catalogued.
READ_ELSEWHERE = frozenset(
    {
        *_AOT_GRAPHS,
        *_PROVENANCE,
        "artifact:torch_version",
        "artifact:recompile_reasons",
        "artifact:dynamo_graph_break_reason",
        "artifact:fx_graph_cache_miss",
        "artifact:fx_graph_cache_hit",
        "artifact:fx_graph_cache_bypass",
        "artifact:aotautograd_cache_miss",
        "artifact:aotautograd_cache_hit",
        "artifact:aotautograd_cache_bypass",
        artifacts.CACHE_HASH,
        artifacts.COLLECTIVE_SCHEDULE,
        artifacts.RUNTIME_ESTIMATES,
        artifacts.EXECUTION_ORDER,
    }
)


@dataclass(slots=True)
class _Aot:
    """An AOT compile while its records arrive."""

    graphs: dict[str, int] = field(default_factory=dict)  # graph kind -> event seq
    code: dict[str, tuple[AotCode, str, int]] = field(default_factory=dict)  # kind -> (code, text, seq)
    pre_grad: str | None = None
    mappings: str | None = None
    traces: str | None = None
    compile_s: float | None = None
    site: Any = None


class RunRecordsBuilder:
    def __init__(self, writer: Sink, resolve: Resolve) -> None:
        self.writer = writer
        self.resolve = resolve
        self.programs: list[ExportedProgram] = []
        self.failed_issues: list[ExportIssue] = []
        self.aot_compiles: list[AotCompile] = []
        self.links: list[Link] = []
        self.artifacts: dict[tuple[int | None, CompileId | None, str], Artifact] = {}
        self.cache_keys: list[CacheKey] = []
        self.collectives: dict[tuple[int | None, str], GraphCollectives] = {}
        self.orders: list[ExecutionOrder] = []
        self._coded: set[tuple[int | None, str]] = set()  # graphs whose output code was read
        self._issues: list[ExportIssue] = []
        self._unbacked: list[str] = []
        self._export_started = False
        self._pending = _Aot()  # graphs seen since the last AOT compile
        self._aot: _Aot | None = None  # the AOT compile whose code arrived, until its metrics
        self._aot_rank: int | None = None
        self._written = False
        self._export_traced = False
        self._last_program: str | None = None

    def feed(
        self,
        name: str,
        metadata: dict[str, Any],
        payload: str | None,
        cid: str | None,
        rank: int | None,
        seq: int,
    ) -> bool:
        """Take what is this module's; True when the record was used."""
        if cid is None and self._unframed(name, metadata, payload, rank, seq):
            return True
        typed = CompileId.parse(cid) if cid is not None else None
        if name == "link":
            found = artifacts.link(metadata.get("link"), rank=rank, compile_id=typed)
            if found is not None:
                self.links.append(found)
            return found is not None
        if name == artifacts.CACHE_HASH:
            key = artifacts.cache_key(payload, rank=rank, compile_id=typed)
            if key is not None:
                self.cache_keys.append(key)
            return key is not None
        if cid is not None and name in (artifacts.COLLECTIVE_SCHEDULE, artifacts.RUNTIME_ESTIMATES):
            return self._collectives(name, payload, cid, rank)
        if cid is not None and name == "inductor_output_code":
            self._code_calls(payload, cid, rank)
            return False  # the frame's kernels are read by the builder
        if name == "dump_file" or (name.startswith("artifact:") and name not in READ_ELSEWHERE):
            # dump_file: the source of an FX <eval_with_key> file Dynamo traced (text kept)
            self._catalogue(name, metadata, payload, typed, rank)
            return True
        return False

    def finish(self, rank: int | None) -> RunRecords:
        """Close what is open and write the ``inspectc_records`` event (when there is anything)."""
        self._close_aot()
        if self._issues and (self._export_started or any(i.kind != "guard_added" for i in self._issues)):
            self.failed_issues.extend(export.merge_issues(tuple(self._issues)))
        self._issues = []
        records = RunRecords(
            exported_programs=tuple(self.programs),
            export_issues=tuple(self.failed_issues),
            aot_compiles=tuple(self.aot_compiles),
            links=tuple(self.links),
            artifacts=tuple(self.artifacts.values()),
            cache_keys=tuple(self.cache_keys),
            collectives=tuple(
                g if g.code_calls is not None or key not in self._coded else replace(g, code_calls=())
                for key, g in self.collectives.items()
            ),
            execution_orders=tuple(self.orders),
            export_traced=self._export_traced or bool(self.programs),
        )
        if records and not self._written:
            self._written = True  # once: the records of a process are one event
            self.writer.add_event(
                name=RECORDS_EVENT,
                metadata={RECORDS_EVENT: {"version": 1}},
                payload=json.dumps(to_plain(records)),
                compile_id=None,
                rank=rank,
                ts=None,
            )
        return records

    # -- records without a compile id: export and AOTInductor ---------------------------
    def _unframed(
        self, name: str, md: dict[str, Any], payload: str | None, rank: int | None, seq: int
    ) -> bool:
        if not self._export_traced and isinstance(md.get("stack"), list):
            files = (f.filename or "" for f in export.stack(md["stack"], self.resolve))
            self._export_traced = any("/torch/export/" in f for f in files)
        if name == "export":
            self._export_traced = True
            self._start_export()
            return True
        if name in export.ISSUE_EVENTS:
            body = md.get(name)
            if name == "guard_added" and not (isinstance(body, dict) and body.get("prefix")):
                # ShapeEnv's own log of every guard (older torch, any export): draft export's
                # report writes its guards with a "prefix"; these are read and are no issue
                return True
            issue = export.export_issue(name, body, self.resolve)
            # a runtime assert repeats a data-dependent error torch logged just before it
            if issue is not None and issue.prefix != "runtime_assert":
                self._issues.append(issue)
            return issue is not None
        if name == "create_unbacked_symbol":
            body = md.get(name)
            symbol = body.get("symbol") if isinstance(body, dict) else None
            if isinstance(symbol, str) and symbol not in self._unbacked:
                self._unbacked.append(symbol)
            return isinstance(symbol, str)  # (symbolic shapes read it too)
        if name == "exported_program" and payload is not None:
            self._program(md, payload, rank, seq)
            return True
        if name in _AOT_GRAPHS:
            self._pending.graphs[_AOT_GRAPHS[name]] = seq
            if _AOT_GRAPHS[name] == "pre_grad":
                self._pending.pre_grad = payload
            return True
        if name == "graph_dump":
            return self._aot_code(md, payload, rank, seq)
        if name in _PROVENANCE and self._aot is not None:
            if name.endswith("node_mappings"):
                self._aot.mappings = payload
            else:
                self._aot.traces = payload
            return True
        if name == "compilation_metrics" and self._aot is not None:
            self._aot.compile_s = _duration(md.get(name))
            self._close_aot()
            return True  # its compile time (no frame: its compile id is null)
        if name == artifacts.EXECUTION_ORDER:
            order = artifacts.execution_order(payload, rank=rank)
            if order is not None:
                self.orders.append(order)
            return order is not None
        return False

    def _start_export(self) -> None:
        if self._issues:  # an earlier export that logged no program
            self.failed_issues.extend(export.merge_issues(tuple(self._issues)))
        self._issues, self._unbacked = [], []
        self._export_started = True

    def _program(self, md: dict[str, Any], payload: str, rank: int | None, seq: int) -> None:
        if self.programs and payload == self._last_program and rank == self.programs[-1].rank:
            # draft_export logs the program its _export logged once more: one program
            last = self.programs[-1]
            issues = export.merge_issues(last.issues + tuple(self._issues))
            self.programs[-1] = replace(last, issues=issues)
            self._issues, self._unbacked, self._export_started = [], [], False
            return
        self._last_program = payload
        index = len(self.programs)
        key = f"export/{index}"
        self.writer.put_graph(rank=rank, compile_id=key, kind="exported_program", seq=seq)
        program = export.exported_program(
            payload,
            index=index,
            rank=rank,
            key=key,
            issues=tuple(self._issues),
            unbacked=tuple(self._unbacked),
            site=export.call_site(export.stack(md.get("stack"), self.resolve)),
        )
        self.programs.append(program)
        self._issues, self._unbacked = [], []
        self._export_started = False

    def _aot_code(self, md: dict[str, Any], payload: str | None, rank: int | None, seq: int) -> bool:
        code = export.aot_code(md.get("graph_dump"), payload)
        if code is None or payload is None:
            return False
        if self._aot is None or code.kind in self._aot.code:
            self._close_aot()
            self._aot, self._pending = self._pending, _Aot()
            self._aot_rank = rank
            self._aot.site = export.call_site(export.stack(md.get("stack"), self.resolve))
        self._aot.code[code.kind] = (code, payload, seq)
        return True

    def _close_aot(self) -> None:
        aot, self._aot = self._aot, None
        if aot is None:
            return
        index = len(self.aot_compiles)
        key = f"aoti/{index}"
        rank = self._aot_rank
        rows = {**aot.graphs, **{kind: seq for kind, (_, _, seq) in aot.code.items()}}
        for kind, seq in rows.items():
            self.writer.put_graph(rank=rank, compile_id=key, kind=kind, seq=seq)
        kernels, traced = export.aot_kernels(
            {kind: text for kind, (_, text, _) in aot.code.items()},
            mappings=aot.mappings,
            stack_traces=aot.traces,
            pre_grad_graph=aot.pre_grad,
        )
        self.aot_compiles.append(
            AotCompile(
                index=index,
                rank=rank,
                key=key,
                graph_kinds=tuple(rows),
                code=tuple(code for code, _, _ in aot.code.values()),
                kernels=kernels,
                provenance=traced,
                compile_s=aot.compile_s,
                call_site=aot.site,
            )
        )

    # -- records of a compile id ---------------------------------------------------------
    def _collectives(self, name: str, payload: str | None, cid: str, rank: int | None) -> bool:
        entry = self.collectives.get((rank, cid)) or GraphCollectives(
            rank=rank, compile_id=CompileId.parse(cid)
        )
        if name == artifacts.COLLECTIVE_SCHEDULE:
            schedule = artifacts.collective_schedule(payload)
            if schedule is None:
                return False
            entry = replace(entry, schedule=(entry.schedule or ()) + schedule)
        else:
            estimates = artifacts.runtime_estimates(payload)
            if estimates is None:
                return False
            entry = replace(entry, estimates=(entry.estimates or ()) + estimates)
        self.collectives[(rank, cid)] = entry
        return True

    def _code_calls(self, payload: str | None, cid: str, rank: int | None) -> None:
        """The collectives a graph's code calls (forward and backward code add up); a graph
        whose code calls none is kept only when it scheduled some (see :meth:`finish`)."""
        calls = artifacts.code_collective_calls(payload)
        self._coded.add((rank, cid))
        entry = self.collectives.get((rank, cid))
        if entry is None and not calls:
            return
        entry = entry or GraphCollectives(rank=rank, compile_id=CompileId.parse(cid))
        self.collectives[(rank, cid)] = replace(entry, code_calls=(entry.code_calls or ()) + calls)

    def _catalogue(
        self, name: str, md: dict[str, Any], payload: str | None, cid: CompileId | None, rank: int | None
    ) -> None:
        artifact_name = name.removeprefix("artifact:")
        key = (rank, cid, artifact_name)
        seen = self.artifacts.get(key)
        size = len(payload or "")
        if seen is None:
            body = md.get("artifact")
            encoding = body.get("encoding") if isinstance(body, dict) else None
            self.artifacts[key] = Artifact(
                name=artifact_name,
                rank=rank,
                compile_id=cid,
                encoding=encoding if isinstance(encoding, str) else None,
                size=size,
            )
        else:
            self.artifacts[key] = replace(seen, count=seen.count + 1, size=seen.size + size)


def _duration(metrics: Any) -> float | None:
    if not isinstance(metrics, dict):
        return None
    start, end = as_num(metrics.get("start_time_us")), as_num(metrics.get("end_time_us"))
    if start is not None and end is not None and end >= start:
        return (end - start) / 1e6
    duration = as_num(metrics.get("duration_us"))  # a 400-digit integer is no duration
    return duration / 1e6 if duration is not None else None
