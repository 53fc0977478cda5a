"""torch's ``chromium_event`` records (``dynamo_timed`` spans) -> complete compile spans.

Each record's payload is one Trace Event Format event (``{"name", "ph": "B"|"E"|"X"|"i",
"ts", "tid", "args"...}``). Begins and ends pair up per (rank, thread) by name, innermost
open begin first. They need not nest: Inductor's ``compile_file`` and
``async_compile.wait`` interleave on one thread (B compile_file, B async_compile.wait,
B compile_file, E compile_file, E compile_file, E async_compile.wait), so an end closes its
own begin and leaves the others open. Spans that overlap without nesting are laid on extra
lanes (:data:`OVERLAP_TID` on), so every lane nests as Perfetto needs. A begin without its
end (a run that died mid-compile) is closed at its rank's last timestamp with
``"unfinished": true``; an end without any begin is dropped and counted. No torch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

EVENT = "chromium_event"
COMPILE_TID = 0
OVERLAP_TID = 1_000_000  # first extra lane of a rank's compile thread
_PHASES = ("B", "E", "X", "i", "I")


@dataclass(slots=True)
class Spans:
    """Complete (``X``) and instant events, Trace Event Format, times in epoch microseconds."""

    events: list[dict[str, Any]] = field(default_factory=list)
    dropped_ends: int = 0
    lanes: dict[tuple[int, int], str] = field(default_factory=dict)  # extra lanes and their names


def parse(payload: str | None) -> dict[str, Any] | None:
    """One record's event, or None when it is not a well-formed begin/end/complete/instant."""
    try:
        event = json.loads(payload or "")
    except ValueError:
        return None
    if (
        isinstance(event, dict)
        and isinstance(event.get("name"), str)
        and isinstance(event.get("ts"), (int, float))
        and event.get("ph") in _PHASES
    ):
        return event
    return None


def compile_spans(records: Iterable[tuple[int, dict[str, Any]]]) -> Spans:
    """(pid, parsed event) pairs in log order -> paired spans, laid on nesting lanes."""
    out = Spans()
    open_: dict[tuple[int, int], list[dict[str, Any]]] = {}
    last: dict[int, float] = {}
    for pid, event in records:
        ts = event["ts"]
        last[pid] = max(last.get(pid, ts), ts)
        tid = event.get("tid", COMPILE_TID)
        key = (pid, tid if isinstance(tid, int) else COMPILE_TID)
        stack = open_.setdefault(key, [])
        if event["ph"] == "B":
            stack.append(event)
        elif event["ph"] == "E":
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i]["name"] == event["name"]), None)
            if at is None:
                out.dropped_ends += 1
                continue
            begin = stack.pop(at)
            args = {**(begin.get("args") or {}), **(event.get("args") or {})}
            out.events.append(_span(begin, key, ts, args))
        else:
            out.events.append({**event, "pid": key[0], "tid": key[1]})
    for key, stack in open_.items():
        for begin in stack:
            out.events.append(
                _span(begin, key, last[key[0]], {**(begin.get("args") or {}), "unfinished": True})
            )
    out.events.sort(key=lambda e: (e["pid"], e["tid"], e["ts"], -e.get("dur", 0)))
    _lay_out(out)
    out.events.sort(key=lambda e: (e["pid"], e["ts"], -e.get("dur", 0)))
    return out


def _span(begin: dict[str, Any], key: tuple[int, int], end: float, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": str(begin["name"]),
        "cat": str(begin.get("cat") or "compile"),
        "ph": "X",
        "ts": begin["ts"],
        "dur": max(end - begin["ts"], 0.0),
        "pid": key[0],
        "tid": key[1],
        "args": args,
    }


def _lay_out(spans: Spans) -> None:
    """Move each span that would cross an enclosing span's end to the first lane it nests in."""
    lanes: dict[tuple[int, int], list[list[float]]] = {}  # (pid, tid) -> per lane, open ends
    for event in spans.events:
        if event["ph"] != "X":
            continue
        start, end = event["ts"], event["ts"] + event["dur"]
        stacks = lanes.setdefault((event["pid"], event["tid"]), [])
        for n, ends in enumerate([*stacks, []]):
            while ends and ends[-1] <= start:
                ends.pop()
            if not ends or end <= ends[-1]:
                if n == len(stacks):
                    stacks.append(ends)
                ends.append(end)
                break
        if n:
            tid = OVERLAP_TID * (1 + event["tid"]) + n - 1
            spans.lanes[(event["pid"], tid)] = f"compile (overlapping spans {n})"
            event["tid"] = tid


def span_compile_id(event: dict[str, Any]) -> str | None:
    """The compile id torch put in a span's args ("0/0"; "None" outside a compile)."""
    args = event.get("args")
    found = args.get("compile_id") if isinstance(args, dict) else None
    return found if isinstance(found, str) and found != "None" else None
