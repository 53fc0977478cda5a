"""Run a script as ``python`` would, and write when each phase of it ended (bench_run.py --phases).

    python benchmarks/phase_probe.py OUT.json SCRIPT [ARGS ...]
    inspectc run -q benchmarks/phase_probe.py OUT.json SCRIPT [ARGS ...]

OUT.json gets wall-clock stamps (``time.time()``) and this process's CPU seconds at: the
probe's start (the interpreter, and under ``inspectc run`` its own start, are behind it),
``import torch`` done, with the modules ``torch.compile()`` imports (under ``inspectc run``
they are already imported: this part is ~0),
and the script's end; plus torch's own account of its compile seconds
(``torch._dynamo.utils.calculate_time_spent()``: Dynamo frame and lazy backward compiles),
which both runs keep alike. The caller, who knows when it started the process and when it
ended, splits a run into: start (to the script's first line, torch imported), compile
(torch's compile seconds), steady (the script's other seconds: its loop, the timing
window), exit (after the script: capture's stop, the interpreter's end).
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import time


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def main() -> None:
    out, script, *args = sys.argv[1:]
    stamps: dict[str, float] = {"probe": time.time(), "probe_cpu": _cpu()}
    # torch and what torch.compile() imports (capture imports them before the script starts;
    # plain python would import them at the script's torch.compile call, inside "steady")
    import torch  # noqa: F401 - the import is a phase of its own
    import torch._dynamo  # noqa: F401
    import torch._inductor.config  # noqa: F401

    stamps.update(torch=time.time(), torch_cpu=_cpu())
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        from torch._dynamo.utils import calculate_time_spent

        spent = calculate_time_spent()
        stamps.update(end=time.time(), end_cpu=_cpu(), compile=float(spent.get("total_wall_time", 0.0)))
        with open(out, "w") as fh:
            json.dump(stamps, fh)


if __name__ == "__main__":
    main()
