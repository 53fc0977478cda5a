"""Timings of real H200 runs (tests/data/gpu), rebuilt from their raw events: no GPU needed.

The events hold capture's ``inspectc_kernel_times`` payloads as measured on the GPU; feeding
them through today's builder checks the joins (fallback SDPA ops, extern mm/addmm), every
launch counted, and what CUDA graphs leave untimed and why.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from inspectc.store.open import open_report
from inspectc.store.schema import decompress
from inspectc.store.writer import ReportWriter
from inspectc.trace.builder import Builder
from inspectc.trace.timings import CUDA_GRAPHS_UNNAMED

DATA = Path(__file__).parent / "data" / "gpu"


def rebuilt(name: str, tmp_path: Path) -> Path:
    out = tmp_path / name
    writer = ReportWriter(out)
    builder = Builder(writer)
    db = sqlite3.connect(DATA / name)
    for metadata, payload in db.execute("SELECT metadata, payload FROM events ORDER BY seq"):
        builder.feed(json.loads(metadata), decompress(payload))
    db.close()
    builder.finish()
    writer.close()
    return out


def test_default_mode_every_kernel_timed_fallbacks_joined_launches_counted(tmp_path: Path) -> None:
    with open_report(rebuilt("h200-block.inspectc", tmp_path)) as r:
        (frame,) = r.frames
        assert frame.timing is not None and frame.timing.time_base == "device"
        kernels = r.frame_kernels(frame.compile_id)
        assert kernels and all(k.time is not None for k in kernels)
        fallbacks = [k for k in kernels if k.name.startswith("torch.ops.aten._scaled_dot_product")]
        assert len(fallbacks) == 2 and all(k.time for k in fallbacks)  # forward and backward
        assert any(k.time and k.time.launches and k.time.launches > 1 for k in kernels)
        shown = sum(k.time.total_us for k in kernels if k.time)
        assert frame.timing.kernels_us is not None
        assert shown == pytest.approx(frame.timing.kernels_us, rel=1e-6)  # 100% reached a kernel
        assert frame.timing.unattributed == {}


def test_cuda_graphs_replay_timed_triton_by_name_externs_said_why(tmp_path: Path) -> None:
    with open_report(rebuilt("h200-block-cg.inspectc", tmp_path)) as r:
        (frame,) = r.frames
        t = frame.timing
        assert t is not None and t.replay_us and t.replay_calls
        assert t.absent == CUDA_GRAPHS_UNNAMED
        kernels = r.frame_kernels(frame.compile_id)
        assert all(k.time is not None for k in kernels if k.language == "triton")
        assert all(k.time is None for k in kernels if k.language == "extern")
        # the replay is nearly all that was measured (the cudagraph-trees warm-up and recording
        # calls in the window launch their kernels outside a replay)
        assert t.kernels_us is not None and t.replay_us <= t.kernels_us <= 1.05 * t.replay_us
        assert (t.attributed_us or 0) + sum(t.unattributed.values()) == pytest.approx(t.kernels_us, rel=1e-6)
