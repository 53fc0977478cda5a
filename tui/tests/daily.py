"""A report of daily use, built from real torch outputs (tui/tests/data, see its README).

The frames of an MLP that prints, calls ``.item()``, branches on data and changes its batch
size, and of a function whose ``if`` ran down both sides: graph-break texts, a resume
function's original bytecode and Dynamo graph as torch 2.13 wrote them, arranged by the
real ``ReportWriter`` (through ``inspectc.store.factory``) the way capture arranges them. The user's sources are copied beside
the report, so source views and carets are tested against the lines torch pointed at.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from inspectc.model import (
    STATUS_GRAPH_BREAK,
    STATUS_OK,
    CompileBackend,
    CompileId,
    CompileMetrics,
    Frame,
    Guard,
    Kernel,
    Recompile,
    Run,
    RunOptions,
    StackFrame,
)
from inspectc.store.factory import ReportFactory
from inspectc.trace.payloads.breaks import parse_break

DATA = Path(__file__).parent / "data"
TENSOR_GUARD = (
    "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU),"
    " torch.float32, device=None, requires_grad=False, size=[8, 64], stride=[64, 1])"
)
STACK_GUARD = "L['___stack0'] == 0.8622047901153564"
RECOMPILE = (
    "2/0: ___stack0 == 0.8622047901153564                          # if h.mean() > 0:  # mine.py:18 in"
    ' torch_dynamo_resume_in_forward_at_17\nUser stack trace:\n  File "mine.py", line 18, in'
    " torch_dynamo_resume_in_forward_at_17\n    if h.mean() > 0:"
)


def daily_run(cwd: Path, *, end_reason: str = "exit", exit_code: int | None = 0) -> Run:
    return Run(
        argv=("inspectc", "run", "mine.py"),
        cwd=str(cwd),
        mode="script",
        started=1_700_000_000.0,
        ended=1_700_000_076.0 if exit_code is not None else None,
        exit_code=exit_code,
        end_reason=end_reason,
        python_version="3.11.7",
        torch_version="2.13.0+cpu",
        hostname="elsewhere",
        options=RunOptions(
            fresh=False,
            provenance=True,
            timings=True,
            profile_window=(1, 10),
            compile_backends=(CompileBackend(name="inductor", options={"mode": "default"}),),
        ),
    )


def daily_frames() -> list[tuple[Frame, dict[str, str]]]:
    """The frames, each with the events (name -> payload) capture would have written."""
    item = parse_break((DATA / "break_item.txt").read_text())
    frames: list[tuple[Frame, dict[str, str]]] = []

    def add(cid: str, function: str, filename: str, line: int, **kw: object) -> None:
        events = kw.pop("events", {})
        frame = Frame(
            compile_id=CompileId.parse(cid),
            ordinal=len(frames),
            function=function,
            filename=filename,
            line=line,
            metrics=CompileMetrics(entire_frame_s=1.0 + len(frames) / 10, op_count=kw.pop("ops", 3)),
            **kw,
        )
        frames.append((frame, events))

    dynamo = (
        "def forward(self, L_x_):\n    # File: mine.py:14 in forward, code: h = torch.relu(self.fc1(x))\n"
    )
    add(
        "0/0",
        "forward",
        "mine.py",
        13,
        status=STATUS_GRAPH_BREAK,
        graph_breaks=(parse_break((DATA / "break_print.txt").read_text()),),
        graph_kinds=("dynamo", "guards"),
        guards=(
            Guard(
                kind="TENSOR_MATCH",
                source="L['x']",
                code=TENSOR_GUARD,
                user_code="h = torch.relu(self.fc1(x))",
            ),
            Guard(kind="TYPE_MATCH", source="L['self']", code="___check_type_id(L['self'], 94)"),
        ),
        kernel_count=1,
        events={"dynamo_output_graph": dynamo},
    )
    add(
        "1/0",
        "torch_dynamo_resume_in_forward_at_15",
        "mine.py",
        15,
        status=STATUS_GRAPH_BREAK,
        graph_breaks=(item,),
    )
    stack = (
        Guard(kind="EQUALS_MATCH", source="L['___stack0']", code=STACK_GUARD, user_code="if h.mean() > 0:"),
    )
    branch = parse_break((DATA / "break_branch.txt").read_text())
    add(
        "2/0",
        "torch_dynamo_resume_in_forward_at_17",
        "mine.py",
        17,
        status=STATUS_GRAPH_BREAK,
        graph_breaks=(branch, branch),  # a restarted analysis records the break twice
        guards=stack,
    )
    add(
        "2/1",
        "torch_dynamo_resume_in_forward_at_17",
        "mine.py",
        17,
        status=STATUS_GRAPH_BREAK,
        graph_breaks=(branch,),
        recompiles=(Recompile(text=RECOMPILE, earlier_compile_id=CompileId.parse("2/0"), guard=STACK_GUARD),),
        guards=stack,
    )
    for cid, side in (("3/0", "resume_if"), ("4/0", "resume_else")):
        events = {
            "artifact:torch_dynamo_resume_in_f_at_6_ORIGINAL_BYTECODE": (
                DATA / f"{side}.bytecode.txt"
            ).read_text(),
            "dynamo_output_graph": (DATA / f"{side}.dynamo.txt").read_text(),
        }
        add(
            cid,
            "torch_dynamo_resume_in_f_at_6",
            "branches.py",
            6,
            status=STATUS_OK,
            graph_kinds=("dynamo",),
            events=events,
        )
    add(
        "5/0",
        "torch_dynamo_resume_in_forward_at_22",
        "mine.py",
        22,
        status=STATUS_OK,
        graph_kinds=("guards",),
        ops=0,
    )
    return frames


def write_daily_report(path: Path, *, frames: int | None = None, run: Run | None = None) -> Path:
    """The whole report (or its first *frames* frames), beside copies of the user's sources."""
    for name in ("mine.py", "branches.py"):
        shutil.copy(DATA / name, path.parent / name)
    made = ReportFactory(path, run or daily_run(path.parent), inspectc_version=None)
    for frame, events in daily_frames()[:frames]:
        put_frame(made, frame, events)
    return made.close()


def put_frame(made: ReportFactory, frame: Frame, events: dict[str, str]) -> None:
    text = str(frame.compile_id)  # the events' column, as capture writes it
    for name, payload in events.items():
        if name == "dynamo_output_graph":
            made.graph(text, "dynamo", payload)
        else:
            made.event(name, payload, compile_id=text)
    for n in range(frame.kernel_count):
        name = f"cpp_fused_add_mul_relu_sum_threshold_backward_{n}_of_frame_{text.replace('/', '_')}"
        kernel = Kernel(
            id=-1, compile_id=frame.compile_id, name=name, language="cpp", kind="pointwise", source_size=6
        )
        made.output_code(text, [(kernel, "x = 1\n")], ts=2.0, graph=False)
    made.frame(frame)


class LiveRun(threading.Thread):
    """``inspectc run`` in miniature: a writer committing every 0.2 s (as capture does) that
    appends the daily frames one by one from another thread, then ends the run."""

    def __init__(self, path: Path, *, every_s: float = 0.15) -> None:
        super().__init__(name="live-run", daemon=True)
        for name in ("mine.py", "branches.py"):
            shutil.copy(DATA / name, path.parent / name)
        running = daily_run(path.parent, end_reason="running", exit_code=None)
        self.made = ReportFactory(path, running, inspectc_version=None, flush_s=0.2)  # capture's
        self.made.writer.flush()
        self.every_s = every_s
        self.go = threading.Event()  # the test says when
        self.written = 0

    def run(self) -> None:
        self.go.wait()
        for frame, events in daily_frames():
            time.sleep(self.every_s)
            put_frame(self.made, frame, events)
            self.written += 1
        time.sleep(self.every_s)
        self.made.run(daily_run(self.made.path.parent, end_reason="exit", exit_code=3))
        self.made.close()


def user_stack() -> tuple[StackFrame, ...]:
    """A frame's stack as capture records it under `inspectc run` (runner frames first)."""
    return parse_break((DATA / "break_item.txt").read_text()).user_stack
