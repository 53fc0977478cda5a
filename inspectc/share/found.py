"""What a report itself records that is private, gathered for one :class:`~.redact.Redactor`:
every rank's host name, user (capture's origin meta), working directory, argv and sources,
every path of every frame and event, and the run's secrets (values of secret-named argv
flags, and text whose salted hash capture recorded). A report captured elsewhere, or by
someone else, is cleaned as well as one made here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from inspectc.model import secrets as run_secrets
from inspectc.model import to_plain
from inspectc.share.redact import Redactor
from inspectc.share.rules import Rule
from inspectc.store import origin


def rank_runs(report: Any) -> list[dict[str, Any]]:
    """The run records of a merged report's inputs (its ``ranks`` meta), as plain dicts."""
    try:
        ranks = json.loads(report.meta.get("ranks") or "[]")
    except (ValueError, RecursionError):
        return []
    return [r for r in ranks if isinstance(r, dict)] if isinstance(ranks, list) else []


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def redactor_for(report: Any, *, this_machine: bool = True, extra_rules: tuple[Rule, ...] = ()) -> Redactor:
    """A :class:`Redactor` for an open :class:`~inspectc.store.reader.Report`: every rank's
    host, directory, argv and sources, every path of every frame, and the run's secrets
    (values of secret-named argv flags, and text whose salted hash capture recorded)."""
    run = report.run
    # who made the report (capture's origin meta): its user and host, whoever shares it
    hostnames: list[str | None] = [run.hostname, _text(report.meta.get(origin.HOST))]
    users: list[str | None] = [_text(report.meta.get(origin.USER))]
    paths: list[str | None] = [run.cwd, *run.argv, *run.options.sources, str(report.path)]
    for entry in rank_runs(report):
        found = entry.get("run")
        other: dict[str, Any] = found if isinstance(found, dict) else {}
        hostnames.append(_text(other.get("hostname")))
        hostnames.append(_text(entry.get(origin.HOST)))
        users.append(_text(entry.get(origin.USER)))
        paths += list(_strings(other)) + list(_strings(entry.get("path")))
    for frame in report.frames:
        paths.append(frame.filename)
        paths += [s.filename for s in frame.user_stack]
        for gb in frame.graph_breaks:
            paths.append(gb.filename)
            paths += [s.filename for s in gb.user_stack]
    for event in report.events(limit=100_000):  # file names torch logged (cache folders)
        paths += [s for s in _strings(event.metadata) if "/" in s or "\\" in s]
    argvs = [list(run.argv)] + [
        list(r["run"]["argv"])
        for r in rank_runs(report)
        if isinstance(r.get("run"), dict) and isinstance(r["run"].get("argv"), list)
    ]
    found = {v for argv in argvs for v in run_secrets.secret_values([str(a) for a in argv], {})}
    found = {v for v in found if not v.startswith("<")}  # a redacted report's placeholders
    found |= hashed_secrets(report)
    return Redactor.for_report(
        hostnames=hostnames,
        paths=paths,
        users=users,
        secrets=found,
        extra_rules=extra_rules,
        this_machine=this_machine,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def hashed_secrets(report: Any) -> set[str]:
    """Text of *report* whose salted hash its ``run_secrets`` meta records (each rank's too)."""
    metas = [report.meta.get(run_secrets.META_KEY)]
    metas += [str(r.get(run_secrets.META_KEY)) for r in rank_runs(report) if r.get(run_secrets.META_KEY)]
    parsed = [p for p in (run_secrets.parse_meta(m) for m in metas) if p is not None]
    if not parsed:
        return set()
    found: set[str] = set()
    for text in _report_texts(report):
        for salt, by_len in parsed:
            found |= run_secrets.matches(text, salt, by_len)
    return found


def _report_texts(report: Any) -> Iterable[str]:
    for key, value in report.meta.items():
        if key != run_secrets.META_KEY:
            yield str(value)
    for event in report.events(limit=1_000_000):
        yield from _strings(event.metadata)  # as strings: a value is found in its own quotes
        yield report.event_payload(event.seq) or ""
    for frame in report.frames:
        yield from _strings(to_plain(frame))
    for kernel in report.kernels:
        yield kernel.name
