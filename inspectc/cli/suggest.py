"""``inspectc suggest REPORT``: try each known config remedy on the user's own script.

For every remedy that needs no code edit (see :mod:`inspectc.analysis.remedies`), the
recorded command is re-run once under ``inspectc run --config KEY=VALUE`` into its own
report beside the original, so ``inspectc diff`` works on any pair; the baseline is re-run
too (same command, no change), twice, so the script's output can be compared and its own
run-to-run noise told apart from what a change did. Candidates run one
at a time inside ``--budget`` seconds. Code remedies are shown, never applied, with the
resume function the break created.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from inspectc.analysis.remedies import Remedy, remedies
from inspectc.analysis.text import printable
from inspectc.analysis.views import Totals, break_groups, totals
from inspectc.analysis.volatile import normalised
from inspectc.cli import tty
from inspectc.errors import UsageError
from inspectc.model import Frame, KernelTime, Run
from inspectc.model.costs import RegionGaps
from inspectc.model.stats import MIN_SAMPLES, mann_whitney_p
from inspectc.render.sections.suggestions import target_text
from inspectc.store.origin import consent
from inspectc.store.reader import Report

# run options that must not be passed on (we choose output, quietness, TUI ourselves)
_DROP_WITH_VALUE = {"-o", "--output"}
_DROP_FLAGS = {"-q", "--quiet", "--tui"}


@dataclass(slots=True)
class Trial:
    """One re-run: its report, exit code, stdout, and what it compiled."""

    label: str
    report: Path
    exit_code: int | None
    stdout: str
    seconds: float
    totals: Totals | None = None
    breaks: frozenset[tuple[str, int | None, str]] = frozenset()
    recompiles: int = 0
    error: str | None = None
    noisy: bool = False  # a second run without any change printed something else
    calls: dict[str, KernelTime] = field(default_factory=dict)  # "file.py:fn" -> its whole call, timed


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("suggest", help="re-run the recorded script once per known fix and compare")
    p.add_argument("report")
    p.add_argument("--only", action="append", default=[], help="a GB id (GB0124) or config key to try")
    p.add_argument("--budget", type=float, default=900.0, help="seconds for all re-runs (default 900)")
    p.add_argument("--list", action="store_true", help="list the remedies without running anything")
    p.add_argument(
        "--yes", action="store_true", help="run a report's recorded command even when it was made elsewhere"
    )
    p.set_defaults(func=cmd_suggest)


def cmd_suggest(args: argparse.Namespace) -> int:
    if args.report.endswith(".py") and Path(args.report).is_file():  # the script, not its report
        raise UsageError(
            f"suggest reads a report, not a script: record it first with `inspectc run -o run.inspectc "
            f"{shlex.quote(args.report)}`, then `inspectc suggest run.inspectc`"
        )
    with tty.read(args.report) as report:  # a bundle's folder lives as long as the command
        return _suggest(args, report)


def _suggest(args: argparse.Namespace, report: Report) -> int:
    from inspectc.store import bundle

    frames, run = list(report.frames), report.run
    named = Path(args.report)
    # new reports go beside what the user named (a bundle's or a folder's report is temporary)
    source = (
        named / "merged.inspectc" if named.is_dir() else named if bundle.is_bundle(named) else report.path
    )
    found = [r for r in remedies(frames) if _wanted(r, args.only)]
    tries = [r for r in found if r.change is not None]
    tty.out(
        f"inspectc suggest: {len(tries)} config remed{'y' if len(tries) == 1 else 'ies'} to try,"
        f" {len(found) - len(tries)} code change{'s' * (len(found) - len(tries) != 1)}"
    )
    if not found:
        tty.out("  no known remedy for this report's graph breaks and recompiles")
    for remedy in found:
        if remedy.change is None:
            _print_code_remedy(remedy, frames, run)
    if args.list or not tries:
        for remedy in tries:
            tty.out(f"  would try: --config {remedy.change.option if remedy.change else ''}  ({remedy.why})")
        return 0
    command, cwd = _recorded_command(run)
    consent(report.rows, report.meta, "suggest", ["inspectc", "run", *command], yes=args.yes)
    deadline = time.monotonic() + args.budget
    base = _trial("baseline", [], command, cwd, _free_path(source, "baseline"), deadline)
    with tempfile.TemporaryDirectory(prefix="inspectc-suggest-") as scratch:
        # The baseline again, to know the script's own noise (unseeded randomness, timings).
        again = _trial("baseline again", [], command, cwd, Path(scratch) / "again.inspectc", deadline)
    base.noisy = again.error is None and again.stdout != base.stdout
    if base.noisy:
        tty.out(f"  baseline output varies run to run ({_first_difference(base.stdout, again.stdout)})")
    tried: list[tuple[Remedy, Trial]] = []
    for remedy in tries:
        assert remedy.change is not None
        if time.monotonic() >= deadline:
            tty.out(f"\n--config {remedy.change.option}: not tried (budget of {args.budget:.0f}s spent)")
            continue
        label = remedy.change.option
        trial = _trial(label, ["--config", label], command, cwd, _free_path(source, "suggest"), deadline)
        _print_trial(remedy, base, trial)
        tried.append((remedy, trial))
    _print_ranking(base, tried)
    return 0


def _print_ranking(base: Trial, tried: list[tuple[Remedy, Trial]]) -> None:
    """The fixes tried, ranked by the time they save per call (beyond noise first)."""
    ranked = []
    for remedy, trial in tried:
        best = next(iter(savings(base, trial)), None)
        if best is not None and remedy.change is not None:
            ranked.append((best.noise is None and best.saved_us > 0, best.saved_us, remedy, best))
    if len(ranked) < 2:
        return
    tty.out("\nRanked by time saved per call:")
    for real, saved, remedy, best in sorted(ranked, key=lambda r: (not r[0], -r[1])):
        assert remedy.change is not None
        note = "" if real else f"  ({best.noise or 'no saving'})"
        tty.out(
            f"  {_ms(saved):>10}  {printable(remedy.change.python)}  on {printable(best.function)}(){note}"
        )


def _wanted(remedy: Remedy, only: list[str]) -> bool:
    if not only:
        return True
    keys = {remedy.key, *(remedy.gb_ids), remedy.change.key if remedy.change else ""}
    return any(o in keys or o.upper() in keys for o in only)


def _recorded_command(run: Run) -> tuple[list[str], str]:
    from inspectc.cli.run import split_run_argv

    argv = list(run.argv)
    if run.mode not in ("script", "module") or argv[:2] != ["inspectc", "run"]:
        made = "inspectc.capture()" if run.mode == "api" else f"a {run.mode} run"
        raise UsageError(
            f"suggest re-runs a script, and this report was made by {made}: `inspectc suggest REPORT --list`"
            " shows the remedies to set yourself before torch.compile runs; or record the script with"
            " `inspectc run -o R.inspectc SCRIPT` and run `inspectc suggest R.inspectc`"
        )
    own, rest = split_run_argv(argv[2:])
    kept: list[str] = []
    skip = False
    for arg in own:
        if skip:
            skip = False
        elif arg in _DROP_WITH_VALUE:
            skip = True
        elif arg not in _DROP_FLAGS and not arg.startswith(("--output=",)):
            kept.append(arg)
    if run.cwd is None or not Path(run.cwd).is_dir():
        raise UsageError(f"the recorded working directory {run.cwd} is not here: cannot re-run")
    return kept + (rest if "-m" in kept else ["--", *rest]), run.cwd


def _free_path(source: Path, word: str) -> Path:
    stem = source.name.removesuffix(".inspectc")
    for n in range(1, 10_000):
        candidate = source.with_name(f"{stem}.{word}-{n}.inspectc")
        if not candidate.exists() and not candidate.is_symlink():
            return candidate
    raise UsageError(f"no free report name beside {source}")


def _trial(label: str, extra: list[str], command: list[str], cwd: str, out: Path, deadline: float) -> Trial:
    left = max(1.0, deadline - time.monotonic())
    argv = [sys.executable, "-m", "inspectc", "run", "-q", "-o", str(out.resolve()), *extra, *command]
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=left, check=False)
    except subprocess.TimeoutExpired:
        return Trial(label, out, None, "", time.monotonic() - started, error="budget ran out mid-run")
    trial = Trial(label, out, proc.returncode, proc.stdout, time.monotonic() - started)
    if not out.exists():
        trial.error = (proc.stderr.strip().splitlines() or ["no report written"])[-1]
        return trial
    with tty.read(out) as report:
        frames = list(report.frames)
        gaps = report.region_gaps()
    trial.totals = totals(frames)
    trial.breaks = _break_keys(frames)
    trial.recompiles = sum(len(f.recompiles) for f in frames)
    trial.calls = _calls(frames, gaps)
    return trial


def _calls(frames: list[Frame], gaps: list[RegionGaps]) -> dict[str, KernelTime]:
    """Each top-level compiled function's whole call (its breaks' resumes inside), by name."""
    by_id = {(f.rank, str(f.compile_id.without_rank())): f for f in frames}
    found: dict[str, list[KernelTime]] = {}
    for process in gaps:
        for call in process.calls:
            frame = by_id.get((process.rank, call.compile_id))
            if frame is not None and frame.function:
                found.setdefault(f"{Path(frame.filename or '?').name}:{frame.function}", []).append(call.host)
    return {key: max(times, key=lambda t: t.calls) for key, times in found.items()}


@dataclass(frozen=True, slots=True)
class Saving:
    """The time per call one fix saves on one compiled function, with whether it is noise."""

    function: str
    before: KernelTime
    after: KernelTime

    @property
    def saved_us(self) -> float:
        return self.before.typical_us - self.after.typical_us

    @property
    def noise(self) -> str | None:
        if min(len(self.before.samples), len(self.after.samples)) < MIN_SAMPLES:
            return f"n={min(self.before.calls, self.after.calls)} < {MIN_SAMPLES}"
        p = mann_whitney_p(list(self.before.samples), list(self.after.samples))
        return f"within noise, p={p:.2f}" if p >= 0.01 else None


def savings(base: Trial, trial: Trial) -> list[Saving]:
    """The functions timed in both runs, the most saved first."""
    found = [
        Saving(name, base.calls[name], trial.calls[name]) for name in base.calls.keys() & trial.calls.keys()
    ]
    return sorted(found, key=lambda s: -s.saved_us)


def _break_keys(frames: list[Frame]) -> frozenset[tuple[str, int | None, str]]:
    # a reason naming an object's address (<function f at 0x7f...>) is the same break in every run
    return frozenset(
        (Path(g.filename or "?").name, g.line, normalised(g.reason)) for g in break_groups(frames)
    )


def _print_trial(remedy: Remedy, base: Trial, trial: Trial) -> None:
    assert remedy.change is not None
    tty.out(
        f"\n--config {printable(remedy.change.option)}   ({printable(remedy.why)}; for {', '.join(remedy.targets)})"
    )
    tty.out(f"  report: {trial.report}  ({trial.seconds:.0f}s)")
    if trial.error or trial.totals is None or base.totals is None:
        tty.out(f"  failed: {printable(trial.error or base.error or 'no report')}")
        return
    gone, new = base.breaks - trial.breaks, trial.breaks - base.breaks
    for what, items in (("gone", gone), ("new", new)):
        for name, line, reason in sorted(items, key=str):
            tty.out(f"  break {what}: {printable(name)}:{line} {printable(reason)[:90]}")
    b, t = base.totals, trial.totals
    tty.out(
        f"  breaks {b.graph_breaks} -> {t.graph_breaks}, recompiles {base.recompiles} -> {trial.recompiles},"
        f" frames {b.frames} -> {t.frames}, kernels {b.kernels} -> {t.kernels},"
        f" compile {b.compile_time_s:.1f}s -> {t.compile_time_s:.1f}s"
    )
    for s in savings(base, trial):
        saved = (
            f"saves {_ms(s.saved_us)} per call"
            if s.saved_us >= 0
            else f"costs {_ms(-s.saved_us)} more per call"
        )
        note = f" ({s.noise})" if s.noise else ""
        tty.out(
            f"  time per call of {printable(s.function)}(): {_ms(s.before.typical_us)} -> {_ms(s.after.typical_us)}"
            f" (n={s.before.calls}/{s.after.calls}): {saved}{note}"
        )
    if not base.calls or not trial.calls:
        tty.out("  time per call: not measured (a run without timings, or no compiled call in its window)")
    if trial.exit_code != base.exit_code:
        tty.out(f"  exit code changed: {base.exit_code} -> {trial.exit_code}")
    tty.out("  output: " + _output_verdict(base, trial))
    better = len(gone) > len(new) or trial.recompiles < base.recompiles
    tty.out("  verdict: " + _verdict(base, trial, better, remedy.change.python))
    tty.out(f"  compare: inspectc diff {base.report} {trial.report}")


def _verdict(base: Trial, trial: Trial, better: bool, python: str) -> str:
    """Helps (fewer breaks or recompiles, the same exit), said with a warning when the change
    also changed what the script printed (and the script does not vary by itself)."""
    if not better or trial.exit_code != base.exit_code:
        return "does not help here (no break or recompile fewer): leave it out"
    keep = f"to keep it, add before torch.compile runs:\n    {python}"
    if base.stdout != trial.stdout and not base.noisy:
        return f"helps, but the script's output changed (above): check it before keeping it; {keep}"
    return f"helps; {keep}"


def _ms(us: float) -> str:
    return f"{us / 1000.0:.3f} ms" if us < 10_000 else f"{us / 1000.0:.1f} ms"


def _output_verdict(base: Trial, trial: Trial) -> str:
    if not base.stdout and not trial.stdout:
        return "the script prints nothing (not compared)"
    if base.stdout == trial.stdout:
        return "same as without the change"
    if base.noisy:
        return "differs, but it varies run to run without the change too (not the change's doing)"
    return f"DIFFERS ({_first_difference(base.stdout, trial.stdout)})"


def _first_difference(before: str, after: str) -> str:
    """Where two outputs part: the first differing line, both sides, cut to fit a line."""
    old, new = before.splitlines(), after.splitlines()
    for index in range(max(len(old), len(new))):
        a = old[index] if index < len(old) else "<no line>"
        b = new[index] if index < len(new) else "<no line>"
        if a != b:
            return f"first at line {index + 1}: {printable(a)[:60]!r} -> {printable(b)[:60]!r}"
    return "only in line endings"


def _print_code_remedy(remedy: Remedy, frames: list[Frame], run: Run) -> None:
    tty.out(f"\ncode change: {printable(remedy.code or '')}   ({printable(remedy.why)[:80]})")
    for target in remedy.targets:
        tty.out(f"  at {printable(target_text(target, run))}")  # as the summary says it
        resume = _resume_frame(target, frames)
        if resume is not None:
            tty.out(
                f"  the break made {printable(resume.function or '?')} (frame {resume.compile_id}),"
                " which compiles the rest of the function after the break"
            )


def _resume_frame(target: str, frames: list[Frame]) -> Frame | None:
    """The frame of the resume function a break at FILE:LINE created, if it was compiled."""
    _, _, where = target.partition(" ")
    filename, _, line = where.rpartition(":")
    for frame in frames:
        fn = frame.function or ""
        if (
            fn.startswith("torch_dynamo_resume_in_")
            and fn.endswith(f"_at_{line}")
            and frame.filename == filename
        ):
            return frame
    return None
