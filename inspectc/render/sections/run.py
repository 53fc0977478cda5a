"""The run: the headline's counts, the facts under it, the environment, accuracy's verdict.

Counts come from :func:`inspectc.analysis.views.totals` (AOTInductor's kernels, which no
Dynamo frame holds, added once here), so every output's headline says the same numbers.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
from itertools import chain

from inspectc.analysis.views import Totals, totals
from inspectc.model import Kernel, Run, RunOptions
from inspectc.model.accuracy import DIVERGES, AccuracyRun, GraphAccuracy
from inspectc.render import programs
from inspectc.render.sections import (
    CODE,
    ERROR,
    STRONG,
    Column,
    Fold,
    Item,
    Line,
    Section,
    Span,
    Table,
    line,
    plural,
)
from inspectc.store.reader import Report
from inspectc.version import __version__

COMMAND_WIDTH = 80  # characters of the command on the terminal's facts line


def headline_counts(report: Report) -> tuple[Totals, dict[str, int], float, list[Kernel]]:
    """The run's totals, the headline's numbers, seconds compiling and every kernel."""
    frames = report.frames
    t = totals(frames)
    aot = report.run_records.aot_compiles
    every = list(chain(report.kernels, (k.kernel for a in aot for k in a.kernels)))
    kernels = t.kernels + sum(len(a.kernels) for a in aot)
    library = sum(1 for k in every if k.language == "extern")
    compiling = t.compile_time_s + sum(a.compile_s or 0.0 for a in aot)
    counts = {
        "frames": t.frames,
        "graph_breaks": t.graph_breaks,
        "unique_breaks": t.unique_breaks,
        "recompiles": t.recompiles,
        "failed": t.failed,
        "kernels": kernels,
        "library_calls": library if library < kernels else 0,
    }
    return t, counts, compiling, every


def headline(counts: dict[str, int], compiling: float) -> str:
    """``12 frames compiled, 6 graph breaks (4 unique), 4 recompiles, 0 failed, ...``."""
    kernels, library = counts["kernels"], counts["library_calls"]
    kernel_text = plural(kernels, "kernel")
    if library:
        kernel_text += f" ({kernels - library} generated, {plural(library, 'library call')})"
    return (
        f"{plural(counts['frames'], 'frame')} compiled, "
        f"{plural(counts['graph_breaks'], 'graph break')} ({counts['unique_breaks']} unique), "
        f"{plural(counts['recompiles'], 'recompile')}, {counts['failed']} failed, "
        f"{kernel_text}, {compiling:.1f}s compiling"
    )


def end_text(run: Run) -> str:
    """How the run ended: its exit code, or what a run that never finished its report means."""
    if run.exit_code is not None:
        return f"exit {run.exit_code}"
    if run.end_reason not in (None, "running"):
        return f"ended: {run.end_reason}"
    # "running" is what the report says from the start: killed (SIGKILL, os._exit, a crash),
    # unless its process is still alive on this machine.
    if run.pid and run.pid > 0 and run.hostname == socket.gethostname() and _alive(run.pid):
        return f"still running (pid {run.pid})"
    return "ended without finishing (killed?)"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


def facts(report: Report) -> list[Line]:
    """The lines under the headline: versions, command and ending, exception, options."""
    run = report.run
    versions = f"torch {run.torch_version or 'not recorded'}"
    if run.python_version:  # an imported log does not say which python ran it
        versions += f" · python {run.python_version}"
    command = run.command_text  # a notebook's argv is its kernel's: said as a notebook
    if command:
        versions += " · " + (command if len(command) <= COMMAND_WIDTH else command[:COMMAND_WIDTH] + "…")
    out = [line(f"{versions} · {end_text(run)}")]
    beside_frames = not_frames(totals(report.frames))  # compiled-autograd graphs, export traces
    if beside_frames:
        out.insert(0, line(beside_frames))
    if run.exception:
        out.append(line(f"ended with {_first_line(run.exception)}"))
    backends = backend_text(run.options)
    if backends:
        out.append(line(backends if len(backends) <= 160 else backends[:159] + "…"))
    config = config_text(run.options)
    if config:
        out.append(line(config))
    beside = programs.headline(report.run_records)  # torch.export, AOTInductor: no frames
    if beside:
        out.append(line(beside))
    return out


def not_frames(t: Totals) -> str | None:
    """``not frames: 2 compiled-autograd graphs, 1 recompile limit hit``, or None."""
    parts = [f"{n} {what}{'s' * (n != 1)}" for n, what in t.beside()]
    return "not frames: " + ", ".join(parts) if parts else None


def _first_line(text: str, width: int = 100) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"


def backend_text(options: RunOptions) -> str | None:
    """``torch.compile: aot_eager (fullgraph) · registered backends: ...`` when a run used another
    backend than plain Inductor, a mode, dynamic or fullgraph; None otherwise."""
    used = options.compile_backends
    plain = all(
        b.name == "inductor"
        and not b.options
        and b.dynamic is None
        and not b.fullgraph
        and b.mode in (None, "default")
        for b in used
    )
    if not used or plain:
        return None
    parts = []
    for b in used:
        flags = [f"mode={b.mode}"] if b.mode not in (None, "default") else []
        flags += [k if v is True else f"{k}={v}" for k, v in b.options.items() if v is not False]
        if b.dynamic is not None:
            flags.append(f"dynamic={b.dynamic}")
        if b.fullgraph:
            flags.append("fullgraph")
        parts.append(b.name + (f" ({', '.join(flags)})" if flags else ""))
    text = "torch.compile: " + "; ".join(parts)
    if any(b.name != "inductor" for b in used) and options.registered_backends:
        # torch's list leaves out debug backends (eager, aot_eager...): the ones used are there
        names = dict.fromkeys([*options.registered_backends, *(b.name for b in used)])
        text += " · registered backends: " + ", ".join(names)
    return text


def config_text(options: RunOptions) -> str | None:
    """``torch config not at defaults: dynamo.capture_scalar_outputs=True (--config), ...``."""
    if not options.config:
        return None
    parts = [
        f"{c.key}{'' if c.value.startswith('+=') else '='}{c.value}"
        + (" (--config)" if c.origin == "--config" else "")
        for c in options.config[:6]
    ]
    more = len(options.config) - 6
    return (
        "torch config not at defaults: "
        + ", ".join(parts)
        + (f", +{more} more (inspectc export)" if more > 0 else "")
    )


def environment(report: Report) -> Section:
    """The environment and the run, as a bug report lists them (not in the terminal summary,
    whose facts line says the same briefly)."""
    run = report.run
    gpus = [d for d in run.devices if not d.startswith("cpu:")]
    cpus = [d.removeprefix("cpu: ") for d in run.devices if d.startswith("cpu:")]
    rows = [
        ("torch", run.torch_version or "not recorded"),
        ("triton", run.triton_version or "not installed"),
        ("CUDA", run.cuda_version or "none (CPU build or not recorded)"),
        ("GPU", ", ".join(gpus) or "none recorded"),
        ("CPU", ", ".join(cpus) or "not recorded"),
        ("Python", run.python_version or "not recorded"),
        ("OS", run.platform or "not recorded"),
        ("inspectc", f"{report.inspectc_version or __version__} (report schema {report.schema_version})"),
        ("command", shlex.join(run.argv) if run.argv else "not recorded"),
        ("ended", end_text(run)),
    ]
    if run.world_size:
        rows.append(("ranks", f"rank {run.rank} of {run.world_size}"))
    if run.exception:
        rows.append(("exception", _first_line(run.exception, 300)))
    for label, text in (("torch.compile", backend_text(run.options)), ("config", config_text(run.options))):
        if text:
            rows.append((label, text.split(": ", 1)[1]))
    return Section(key="versions", title="Environment", fields=tuple(rows), brief=False)


# -- inspectc accuracy --------------------------------------------------------------------------


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def accuracy(run: AccuracyRun | None) -> Section | None:
    """``inspectc accuracy``'s verdict, each diverging graph traced to its pass, node, kernel and
    line (None when accuracy was not checked)."""
    if run is None:
        return None
    bad = run.diverging
    s = run.settings
    title = (
        f"Accuracy: {len(bad)} of {len(run.graphs)} graphs diverge from eager beyond fp64 noise"
        f" (atol {s.get('atol')}, rtol {s.get('rtol')}, tol {s.get('tol')})"
    )
    items = [
        Item(
            line(f"graph {g.compile_id} ({g.graph}): ", Span("DIVERGES", STRONG)),
            _graph_notes(g),
            severity=ERROR,
            note_indent=2,
        )
        for g in bad
    ]
    for g in run.graphs:
        if g.verdict not in (DIVERGES, "ok"):
            items.append(Item(line(f"graph {g.compile_id} ({g.graph}): {g.verdict}: {'; '.join(g.reasons)}")))
    if not bad:
        items.append(
            Item(line(f"worst rel. error vs fp64: {_num(run.max_rel_error)} (float noise: no alarm)"))
        )
    items += [Item(line(f"error: {e}"), severity=ERROR) for e in run.errors]
    return Section(
        key="accuracy",
        title=title,
        severity=ERROR if bad or run.errors else "",
        items=tuple(items),
        counts={"graphs": len(run.graphs), "diverging": len(bad)},
    )


def _graph_notes(g: GraphAccuracy) -> tuple[Line, ...]:
    """One diverging graph: the worst output, then stage, pass, node, kernel, user line."""
    worst = max(
        (o for o in g.outputs if o.verdict == DIVERGES), key=lambda o: o.max_rel_error or 0.0, default=None
    )
    out: list[Line] = []
    if worst is not None:
        out.append(
            line(
                f"worst output {worst.name}: rel. error {_num(worst.max_rel_error)} vs fp64"
                f" (eager {_num(worst.eager_rel_error)}), max |compiled-eager| {_num(worst.max_abs_error)}"
            )
        )
    if g.stages:
        chain_text = ", ".join(f"{s.backend} {s.verdict}" for s in g.stages)
        out.append(line(f"stage: {g.first_stage or 'none diverges alone'}  ({chain_text})"))
    b = g.bisection
    if b is not None:
        if b.backend:
            what = f"{b.backend}" + (f" / {b.subsystem}" if b.subsystem else "")
            what += f" #{b.bisect_number}" if b.bisect_number else ""
            info = f": {b.debug_info}" if b.debug_info and b.debug_info != b.subsystem else ""
            out.append(line(f"pass (CompilerBisector): {what}{info}"))
        else:
            out.append(line(f"pass (CompilerBisector): {b.note or 'not found'}"))
    loc = g.location
    if loc is not None and loc.node:
        out.append(
            line(
                f"first diverging node: {loc.node} = {loc.target} (rel. error {_num(loc.max_rel_error)},"
                f" eager {_num(loc.eager_rel_error)}; {loc.nodes_compared} nodes compared)"
            )
        )
        for k in loc.kernels[:3]:
            fused = ", ".join(k.fused_nodes[:8]) + (" ..." if len(k.fused_nodes) > 8 else "")
            out.append(line("kernel: ", Span(k.name, CODE), f" [{k.graph_kind}] fuses {fused}"))
        if not loc.kernels:
            out.append(line("kernel: not recorded (no provenance for this node)"))
        if loc.filename:
            code = f": {loc.code}" if loc.code else ""
            out.append(line("user line: ", Span(f"{loc.filename}:{loc.line}", CODE), code))
    elif loc is not None and loc.note:
        out.append(line(f"node: {loc.note}"))
    return tuple(out)


def capture_errors(report: Report) -> Section | None:
    """What went wrong inside inspectc while it captured (the run itself went on)."""
    errors = list(report.run.capture_errors) or _meta_list(report, "capture_errors")
    if not errors:
        return None
    shown = 8
    return Section(
        key="capture_errors",
        title=f"Capture errors ({plural(len(errors), 'error')} inspectc met while capturing; the run went on)",
        severity=ERROR,
        items=tuple(
            Item(line(_first_line(e, 200)), folds=(Fold("whole error", e),) if "\n" in e else ())
            for e in errors[:shown]
        ),
        notes=(line(f"… {len(errors) - shown} more (inspectc export --json: run.capture_errors)"),)
        if len(errors) > shown
        else (),
        counts={"errors": len(errors)},
    )


def _meta_list(report: Report, key: str) -> list[str]:
    try:
        value = json.loads(report.meta.get(key) or "[]")
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def accuracy_outputs(run: AccuracyRun | None) -> Section | None:
    """Every output ``inspectc accuracy`` compared, graph by graph (the TUI's accuracy rows)."""
    if run is None or not any(g.outputs for g in run.graphs):
        return None
    columns = tuple(
        Column(name, numeric)
        for name, numeric in (
            ("graph", False),
            ("output", False),
            ("verdict", False),
            ("rel. error vs fp64", True),
            ("eager's", True),
            ("max |compiled-eager|", True),
            ("shape", False),
        )
    )
    rows = tuple(
        (
            line(f"{g.compile_id} ({g.graph})"),
            line(Span(o.name, CODE)),
            line(Span(o.verdict, STRONG) if o.verdict == DIVERGES else o.verdict),
            line(_num(o.max_rel_error)),
            line(_num(o.eager_rel_error)),
            line(_num(o.max_abs_error)),
            line(f"{o.dtype or '?'}{list(o.shape)}"),
        )
        for g in run.graphs
        for o in g.outputs
    )
    return Section(
        key="accuracy_outputs",
        title=f"Accuracy, every output ({len(rows)})",
        table=Table(columns, rows),
        counts={"compared": len(rows)},
        brief=False,
    )
