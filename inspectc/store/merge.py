"""``inspectc merge``: join the reports of several ranks into one; open a directory of them.

Under torchrun each rank writes its own report. Merging copies every row of each rank's
report (raw events, frames, graph slices, kernels with their timings) into one report file,
renumbering event sequence numbers and kernel ids; frames, graphs and kernels are already
keyed by rank. A report whose run has no rank (or a rank another input has) is numbered by
its position among the inputs. No torch.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError, UsageError
from inspectc.model import Run, to_plain
from inspectc.model.terminal import safe
from inspectc.store import origin
from inspectc.store.bundle import open_single
from inspectc.store.oneshot import OneShotWriter
from inspectc.store.reader import Report
from inspectc.store.schema import NO_RANK
from inspectc.version import __version__

REPORT_PATTERN = "*.inspectc"


@dataclass(frozen=True, slots=True)
class MergeInput:
    path: Path  # as given (a report or a share bundle)
    db_path: Path  # the SQLite file to copy rows from
    run: Run
    stored_ranks: tuple[int | None, ...]  # ranks its frames and events carry
    rank: int | None  # the rank its rows get in the merged report (None: keep stored ranks)


@dataclass(frozen=True, slots=True)
class MergeResult:
    output: Path
    inputs: tuple[MergeInput, ...]
    renumbered: bool  # ranks were given by position (inputs had none, or the same one)


def plan_inputs(reports: Sequence[Report], paths: Sequence[Path]) -> tuple[list[MergeInput], bool]:
    """Decide which rank each input's rows get in the merged report."""
    if not reports:
        raise UsageError("merge: give at least one report")
    found = [(path, r.file, r.run, _stored_ranks(r)) for path, r in zip(paths, reports, strict=True)]
    singles = [(run, ranks) for _, _, run, ranks in found if len(ranks) <= 1]
    multi_ranks = [r for _, _, _, ranks in found if len(ranks) > 1 for r in ranks]
    wanted = [_own_rank(run, ranks) for run, ranks in singles]
    clash = len(set(wanted)) != len(wanted) or None in wanted or bool(set(wanted) & set(multi_ranks))
    if clash and multi_ranks:
        raise UsageError(
            "merge: a multi-rank report and another input share a rank (or have none);"
            " merge the single-rank reports only"
        )
    inputs: list[MergeInput] = []
    position = 0
    for path, db_path, run, ranks in found:
        if len(ranks) > 1:
            inputs.append(MergeInput(path, db_path, run, ranks, None))
            continue
        rank = position if clash and len(wanted) > 1 else _own_rank(run, ranks)
        position += 1
        inputs.append(MergeInput(path, db_path, run, ranks, rank))
    return inputs, clash and len(wanted) > 1


def _rank_entry(entry: MergeInput, report: Report) -> dict[str, Any]:
    """One input of the merge as the ``ranks`` meta keeps it: who made it where, too
    (``share`` redacts every input's user, whoever merged them)."""
    made = {k: report.meta[k] for k in (origin.HOST, origin.USER) if isinstance(report.meta.get(k), str)}
    return {"rank": entry.rank, "path": str(entry.path), "run": to_plain(entry.run), **made}


def _stored_ranks(report: Report) -> tuple[int | None, ...]:
    ranks = sorted({f.rank if f.rank is not None else NO_RANK for f in report.frames})
    return tuple(None if r == NO_RANK else r for r in ranks)


def _own_rank(run: Run, stored: tuple[int | None, ...]) -> int | None:
    if run.rank is not None:
        return run.rank
    return stored[0] if stored else None


def merge_reports(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    argv: Sequence[str] | None = None,
) -> MergeResult:
    """Merge the reports at *paths* into a new report at *output*."""
    sources = [Path(p) for p in paths]
    out = Path(output)
    if any(p.resolve() == out.resolve() for p in sources):
        raise UsageError(f"merge: the output {out} is also an input")
    reports: list[Report] = []
    try:
        for path in sources:
            reports.append(open_single(path))
        return _merge(reports, sources, out, argv)
    finally:
        for report in reports:
            report.close()


def _merge(reports: list[Report], sources: list[Path], out: Path, argv: Sequence[str] | None) -> MergeResult:
    inputs, renumbered = plan_inputs(reports, sources)
    writer = OneShotWriter(out)  # out takes the merged report only once it is complete
    try:
        writer.set_meta("inspectc_version", __version__)
        writer.set_meta("source", "merge")
        writer.set_meta("run", merged_run(inputs, argv))
        origins = {(r.meta.get(origin.HOST), r.meta.get(origin.USER)) for r in reports}
        if len(origins) == 1 and None not in next(iter(origins)):  # all made by one user on one host
            host, user = next(iter(origins))
            for key, value in (
                (origin.HOST, host),
                (origin.USER, user),
                (origin.REPORT_ID, secrets.token_hex(16)),
            ):
                writer.set_meta(key, value)
        writer.set_meta(
            "ranks",
            json.dumps([_rank_entry(i, r) for i, r in zip(inputs, reports, strict=True)]),
        )
        offset = 0
        for item in inputs:  # verified when opened (open_single); copied under a budget still
            offset = writer.append_report(item.db_path, rank=item.rank, seq_offset=offset, name=item.path)
    except BaseException:
        writer.discard()  # the report it created, never a file that was there before
        raise
    writer.finish()
    return MergeResult(out, tuple(inputs), renumbered)


def merged_run(inputs: Sequence[MergeInput], argv: Sequence[str] | None) -> Run:
    """One run for the merged report: the first input's, widened to cover every rank."""
    runs = [i.run for i in inputs]
    ranks = {r for i in inputs for r in ((i.rank,) if i.rank is not None else i.stored_ranks)}
    known = sorted(r for r in ranks if r is not None)
    worlds = [r.world_size for r in runs if r.world_size]
    starts = [r.started for r in runs if r.started is not None]
    ends = [r.ended for r in runs if r.ended is not None]
    failed = next((r for r in runs if r.exit_code not in (None, 0) or r.exception), None)
    base = runs[0]
    return replace(
        base,
        argv=tuple(argv) if argv is not None else base.argv,
        started=min(starts) if starts else None,
        ended=max(ends) if ends else None,
        exit_code=failed.exit_code if failed else base.exit_code,
        exception=failed.exception if failed else base.exception,
        end_reason=failed.end_reason if failed else base.end_reason,
        rank=None,
        world_size=max([*worlds, (known[-1] + 1) if known else 0]) or None,
        capture_errors=tuple(e for r in runs for e in r.capture_errors),
    )


def reports_in(folder: Path) -> list[Path]:
    """The reports of a rank folder: regular files only. A link (``r.rank1.inspectc ->
    ../private/mine.inspectc``, planted in a stranger's folder) is never followed, or another
    report would be read, merged and shared as a rank's; one line on stderr says so."""
    found = sorted(folder.glob(REPORT_PATTERN))
    links = [p for p in found if p.is_symlink()]
    reports = [p for p in found if _regular(p)]
    if links:
        n = len(links)
        said = f"{n} symbolic link{'s' * (n != 1)} not followed"
        if not reports:  # the one line the caller would give, with why
            raise ReportError(f"{folder} is a directory with no reports (*.inspectc; {said})")
        names = ", ".join(_shown(p.name) for p in links[:3]) + (", …" if n > 3 else "")
        print(f"inspectc: {_shown(str(folder))}: {said} ({names})", file=sys.stderr)
    return reports


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _shown(text: str) -> str:
    """A file name for the terminal, through the one sanitizer."""
    return safe(text)


def per_rank_reports(paths: list[Path]) -> list[Path]:
    single: list[Path] = []
    multi: list[Path] = []
    for path in paths:
        with open_single(path) as report:
            (multi if len(_stored_ranks(report)) > 1 else single).append(path)
    return single or multi
