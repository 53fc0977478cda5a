"""Suggestions: the config changes ``inspectc suggest`` would try, and the code changes a break
needs, each with the breaks and recompiles it is for (:mod:`inspectc.analysis.remedies`)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from inspectc.analysis.paths import comparable_path
from inspectc.analysis.remedies import Remedy, can_suggest, remedies
from inspectc.analysis.text import Base, cwd_of, location
from inspectc.model import Frame, Run
from inspectc.model.limits import small_int
from inspectc.render.sections import CODE, Item, Line, Section, Span, line

SHOWN = 8


def how_to_prove(run: Run, report: str) -> str:
    """How the user proves a config remedy on their own code, for this report's kind of run."""
    if can_suggest(run):
        return f"prove the config ones on this script: inspectc suggest {report}"
    return (
        "made with inspectc.capture(): set one before torch.compile runs and capture again,"
        " or record the script with inspectc run and use inspectc suggest"
    )


def target_text(target: str, base: Base) -> str:
    """``break samples/x.py:24`` with the path relative to the run's folder, as every other
    section shows paths (remedies keep the recorded, absolute one); ``break cell [3], line 7``
    in a notebook."""
    kind, _, where = target.partition(" ")
    if kind not in ("break", "failure") or ":" not in where:
        return target
    path, _, line_no = where.rpartition(":")
    if isinstance(base, Run) and base.cell(path) is not None:
        return f"{kind} {location(path, small_int(line_no), base)}"
    return f"{kind} {comparable_path(path, cwd_of(base))}:{line_no}"


def remedy_item(r: Remedy, base: Base) -> Item:
    targets = [target_text(t, base) for t in r.targets]
    where = ", ".join(targets[:2]) + (f" (+{len(targets) - 2})" if len(targets) > 2 else "")
    if r.change:
        first: Line = line("try   ", Span(r.change.python, CODE), f"   ({r.why}; {where})")
    else:
        first = line("code  ", r.code or "", f"   ({where})")
    return Item(first)


def suggestions(frames: Sequence[Frame], run: Run, report: str) -> Section | None:
    found = remedies(list(frames))
    if not found:
        return None
    quoted = shlex.quote(report)
    notes = []
    if len(found) > SHOWN:
        more = f"inspectc suggest {quoted} --list" if can_suggest(run) else f"inspectc export {quoted} --json"
        notes.append(line(f"… {len(found) - SHOWN} more ({more})"))
    tries = sum(1 for r in found if r.change)
    if not tries:
        notes.append(line("no config change is known to remove these: each needs a code change"))
    return Section(
        key="suggestions",
        title=f"Suggestions ({len(found)}; {how_to_prove(run, quoted)})",
        items=tuple(remedy_item(r, run) for r in found[:SHOWN]),
        notes=tuple(notes),
        counts={"total": len(found), "config": tries},
    )
