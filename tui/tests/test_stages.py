"""A Triton kernel's compiled stages in the Kernels tab: ``s`` cycles them, Enter maps a line.

The report is the recorded H200 block report with one ``inspectc_kernel_detail`` event added,
made of the real stages of an H200 kernel (tests/data/gpu/ir: TTIR, TTGIR, LLIR, PTX, SASS).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from inspectc_tui.frame.kernels import KernelsPane
from inspectc_tui.widgets.code_view import CodeView
from pilots import RecordingApp, loaded, open_frame, settle, sync, text_of

from inspectc.model.kernel_detail import DETAIL_EVENT
from inspectc.store.schema import compress

DATA = Path(__file__).parents[2] / "tests" / "data" / "gpu"
SIZE = (160, 48)


def _report_with_stages(tmp_path: Path) -> tuple[Path, str]:
    report = tmp_path / "block.inspectc"
    shutil.copy(DATA / "h200-block.inspectc", report)
    ir = DATA / "ir"
    meta = json.loads((ir / "meta.json").read_text())
    name = meta["name"]
    stages = {
        p.suffix[1:]: p.read_text()
        for p in ir.iterdir()
        if p.suffix[1:] in ("ttir", "ttgir", "llir", "ptx", "sass")
    }
    db = sqlite3.connect(report)
    kernel = db.execute("SELECT name FROM kernels WHERE language = 'triton' ORDER BY id LIMIT 1").fetchone()[
        0
    ]
    detail = {
        "name": kernel,  # the block's kernel, carrying the recorded stages of another
        "python_file": meta["python_file"],
        "python_source": (ir / f"{name}.py").read_text(),
        "num_warps": 1,
        "n_regs": 8,
        "stages": stages,
    }
    seq = db.execute("SELECT max(seq) + 1 FROM events").fetchone()[0]
    db.execute(
        "INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload) VALUES (?, 0, -1, NULL, ?, ?, ?)",
        (seq, DETAIL_EVENT, json.dumps({DETAIL_EVENT: {"name": kernel}}), compress(json.dumps(detail))),
    )
    db.commit()
    db.close()
    return report, kernel


@sync
async def test_stages_cycle_and_a_python_line_maps_into_each(tmp_path: Path) -> None:
    report, name = _report_with_stages(tmp_path)
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="kernels", kernel_id=None)
        kernel = next(k for k in screen.data.frame_kernels(screen.frame) if k.name == name)
        await screen.show_kernel(kernel.id)
        await settle(pilot)
        caption = text_of(app, "#kernel-caption")
        assert "[source] ttir ttgir llir ptx sass" in caption
        info = text_of(app, "#kernel-info")
        assert "registers/thread: 8" in info and "occupancy (estimate)" in info
        view = screen.query_one("#kernel-source", CodeView)
        load = next(i for i in range(view.line_count) if "tl.load(" in view.line(i))
        view.post_message(CodeView.LineChosen(view, load, view.line(load)))
        await settle(pilot)
        assert f"python line {load + 1}" in text_of(app, "#kernel-caption")
        pane = screen.query_one(KernelsPane)
        for stage, op in (
            ("ttir", "tt.load"),
            ("ttgir", "tt.load"),
            ("llir", "ld.global"),
            ("ptx", "ld.global"),
        ):
            pane.action_next_stage()
            await settle(pilot)
            caption = text_of(app, "#kernel-caption")
            assert f"[{stage}]" in caption, caption
            assert view.marks and any(op in view.line(i) for i in view.marks), stage
