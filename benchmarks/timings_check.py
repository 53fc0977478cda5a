"""What a report's timings show against what capture measured (no torch): for the GPU check.

    python benchmarks/timings_check.py r1.inspectc [r2.inspectc ...]

Per frame: the profiler's graph-call time, the time measured inside the calls, the part that
reached a kernel, the ranges that are not a kernel, CUDA-graph replay time and why kernels are
untimed. Per report: extern/fallback kernels timed or not (the naming rule's joins), kernels
launched several times per call, noisy ones.
"""

from __future__ import annotations

import sys

from inspectc.render.timefmt import environment_line, shown_vs_measured
from inspectc.store.open import open_report


def check(path: str) -> None:
    with open_report(path) as r:
        print(f"== {path}: {len(r.frames)} frames, {len(r.kernels)} kernels")
        env = environment_line(f.timing for f in r.frames)
        print(f"  {env}")
        for f in r.frames:
            t = f.timing
            if t is None:
                print(f"  frame {f.compile_id}: no timing payload")
                continue
            ks = r.frame_kernels(f.compile_id)
            shown = sum(k.time.total_us for k in ks if k.time)
            print(
                f"  frame {f.compile_id}: graph calls {t.graph_calls}, graph {t.graph_us} µs, inside {t.kernels_us} µs,"
                f" shown {shown:.1f} µs; {shown_vs_measured(t)}"
            )
            if t.unattributed:
                print(f"    not a kernel: {dict(list(t.unattributed.items())[:6])}")
            if t.replay_us is not None:
                print(f"    CUDA-graph replay: {t.replay_us} µs over {t.replay_calls} calls")
            if t.absent:
                print(f"    absent: {t.absent}")
        externs = [k for k in r.kernels if k.language == "extern"]
        timed = [k for k in externs if k.time]
        print(f"  extern/fallback kernels: {len(timed)} of {len(externs)} timed")
        for k in externs:
            if k.time is None:
                print(f"    untimed: {k.compile_id} {k.graph_kind} {k.name}")
        fallbacks = [k for k in externs if k.name.startswith("torch.ops.")]
        for k in fallbacks[:8]:
            t = k.time
            said = f"{t.typical_us:.1f} µs median, n={t.calls}" if t else "untimed"
            print(f"    fallback {k.name}: {said}")
        multi = [k for k in r.kernels if k.time and k.time.launches and k.time.launches > 1]
        print(f"  kernels launched more than once per call: {len(multi)}")
        for k in multi[:5]:
            assert k.time is not None
            print(f"    {k.name}: {k.time.launches} launches/call, median {k.time.typical_us:.1f} µs")
        noisy = [k for k in r.kernels if k.time and k.time.noise]
        untimed = [k for k in r.kernels if k.time is None]
        print(f"  timed {len(r.kernels) - len(untimed)}, untimed {len(untimed)}, noisy {len(noisy)}")
        for k in untimed[:8]:
            print(f"    untimed: {k.language} {k.graph_kind} {k.name}")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        try:
            check(p)
        except Exception as exc:  # noqa: BLE001 - a check script: print and go on to the next
            print(f"== {p}: {type(exc).__name__}: {exc}")
