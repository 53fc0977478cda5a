"""The run's own record in the report: who ran what where, written when capture starts, and
how it ended, written when it stops (with the options the run used, read once, at the end)."""

from __future__ import annotations

import importlib.util
import os
import platform
import socket
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from inspectc.capture import notebook, settings, torch_api
from inspectc.capture.failures import Failures, why
from inspectc.model import Run, RunOptions, secrets
from inspectc.store import origin
from inspectc.store.origin import origin_meta
from inspectc.store.writer import ReportWriter, WriteError
from inspectc.version import __version__


def made(argv: Sequence[str], mode: str, options: RunOptions) -> Run:
    """The run as capture is made: its command, folder, process and options."""
    return Run(
        argv=tuple(argv),
        cwd=os.getcwd(),
        mode=mode,
        python_version=platform.python_version(),
        platform=platform.platform(),
        hostname=socket.gethostname(),
        pid=os.getpid(),
        options=options,
    )


def started(writer: ReportWriter, run: Run, torch_version: str | None) -> Run:
    """Write who made the report, the run as it starts, and its secrets' salted hashes."""
    writer.set_meta("inspectc_version", __version__)
    writer.set_meta("source", "capture")
    for key, value in origin_meta().items():  # who made it where: consent before re-running
        writer.set_meta(key, value)
    rank, world = torch_api.dist_rank()
    run = replace(
        run,
        started=time.time(),
        end_reason="running",
        torch_version=torch_version,
        triton_version=triton_version(),
        cuda_version=torch_api.cuda_version(),
        rank=rank,
        world_size=world,
    )
    writer.set_meta("run", run)
    # Salted hashes of the run's secrets (argv flags, environment), so share can remove them.
    writer.set_meta(secrets.META_KEY, secrets.hashed(secrets.secret_values(run.argv, os.environ)))
    return run


def ended(
    run: Run,
    config: dict[str, Any],
    failures: Failures,
    fullgraph: dict[int, bool],
    end_reason: str,
    exit_code: int | None,
    exception: str | None,
) -> Run:
    """The run as it ended: when and how, its devices, the options it used, capture's failures
    (read after torch's settings were put back, so capture's own switches are not in them)."""
    used = settings.options_used(config, failures.record, fullgraph)
    return replace(
        run,
        ended=time.time(),
        exit_code=exit_code,
        exception=exception,
        end_reason=end_reason,
        devices=settings.devices(failures.record),
        options=replace(run.options, **used),
        cells=notebook.cells(failures.record),  # a notebook's cell numbers (In [N])
        capture_errors=tuple(failures.messages),
    )


def write(writer: ReportWriter, run: Run) -> str | None:
    """Write *run*; why it could not be (a reader held the file past the timeout), else None."""
    try:
        writer.set_meta("run", run)
        origin.mark(writer)  # last: this user's mark over what the report could run
    except WriteError as exc:
        return f"writing its run details failed ({why(exc)})"
    return None


def triton_version() -> str | None:
    """The installed ``triton`` package's version. Its metadata is read (a scan of every
    installed distribution, ~0.1 s) only where Triton is there to find."""
    if importlib.util.find_spec("triton") is None:
        return None
    from importlib import metadata

    try:
        return metadata.version("triton")
    except metadata.PackageNotFoundError:
        return None
