"""``inspectc export REPORT --perfetto OUT.json``: the report as a Chrome trace."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from inspectc.cli import tty


def export_perfetto(args: argparse.Namespace) -> int:
    from inspectc.cli.output import check_output, write_output
    from inspectc.render.perfetto import chrome_trace

    what = "Chrome trace"
    check_output(args.perfetto, what=what, ours=_is_trace, inputs=[args.report], devices=True)
    with tty.read(args.report) as report:
        data = chrome_trace(report)
    write_output(args.perfetto, json.dumps(data, ensure_ascii=False).encode("utf-8"), what=what)
    slices = sum(1 for e in data["traceEvents"] if e.get("ph") == "X")
    tty.err(f"{args.perfetto}: {slices} slices; open it in ui.perfetto.dev or chrome://tracing")
    return 0


_TRACE_HEAD = re.compile(rb'\A\s*\{\s*"otherData"\s*:\s*\{\s*"source"\s*:\s*"inspectc"')


def _is_trace(path: Path) -> bool:
    """True when *path* starts like a Chrome trace inspectc wrote (safe to replace)."""
    try:
        with open(path, "rb") as fh:
            return bool(_TRACE_HEAD.match(fh.read(200)))
    except OSError:
        return False
