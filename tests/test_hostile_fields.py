"""Hostile values in a report's fields: a reader says one line and exits 2, or reads the value as
not recorded; never a traceback.

Each case copies a committed report and plants one value, as a hostile author would: a wrong
type, a number no capture writes (400 digits, which JSON reads as an int and ``float()`` cannot
hold; a zero or negative hardware limit), in a frame, a kernel, a Triton kernel's detail event,
the ``accuracy`` and ``bench`` meta entries and the ``bench`` table. The installed CLI reads
it as a subprocess. No torch. Each family's first case runs in the quick lane, the others are
marked slow (``conftest.quick_first``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REPORTS, ROOT, plant_detail, quick_first, run_cli

GPU = ROOT / "tests" / "data" / "gpu" / "h200-block.inspectc"  # Triton kernels, no detail event
BENCH = ROOT / "tests" / "data" / "bench" / "resnet18-h200.inspectc"  # inspectc bench figures
SIN = REPORTS / "sin_sin.inspectc"
GB = REPORTS / "graph_breaks.inspectc"
ACC = REPORTS / "accuracy_fault.inspectc"
KERNEL = "triton_per_fused_clone_native_layer_norm_transpose_0"  # a Triton kernel of GPU

HUGE = "9" * 400  # a JSON int that float() cannot hold
_RAW = {"<HUGE>": HUGE, "<NaN>": "NaN", "<Infinity>": "Infinity"}  # planted as JSON literals


@pytest.fixture(autouse=True)
def _sources() -> None:
    for path in (GPU, BENCH, SIN, GB, ACC):
        if not path.exists():
            pytest.skip(f"{path.name} is missing")


def dumps(doc: Any) -> str:
    """JSON of *doc* with the ``<HUGE>``/``<NaN>``/``<Infinity>`` markers written as literals."""
    text = json.dumps(doc)
    for marker, raw in _RAW.items():
        text = text.replace(json.dumps(marker), raw)
    return text


def planted(doc: Any, path: tuple[str | int, ...], value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    cur = doc
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return doc


def copy_with(tmp_path: Path, source: Path, change: Callable[[sqlite3.Connection], None]) -> Path:
    target = tmp_path / f"hostile-{source.name}"
    shutil.copyfile(source, target)
    db = sqlite3.connect(target)
    try:
        change(db)
        db.commit()
    finally:
        db.close()
    return target


def clean(proc: subprocess.CompletedProcess[str], what: str) -> None:
    """Success, or one clear line on stderr and exit 2: never a traceback."""
    assert "Traceback" not in proc.stderr, f"{what}: {proc.stderr[-2000:]}"
    assert proc.returncode in (0, 2), (what, proc.returncode, proc.stderr[-500:])
    if proc.returncode == 2:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("inspectc: "), (what, proc.stderr)


# -- a Triton kernel's detail event (``inspectc ir``, export, kernels) ------------------------------

DETAIL = {
    "name": KERNEL,
    "language": "triton",
    "python_file": "/tmp/k.py",
    "python_source": "def f():\n    pass\n",
    "config": {"kwargs": {"XBLOCK": 128}},
    "num_warps": 4,
    "num_stages": 1,
    "n_regs": 32,
    "n_spills": 0,
    "shared": 0,
    "stages": {"ptx": "line 1\nline 2\n"},
    "launches": [
        {
            "args": [
                {"kind": "scalar", "name": "xnumel", "value": 1024},
                {"kind": "tensor", "name": "in_ptr0", "shape": [4, 8], "stride": [8, 1], "dtype": "float32"},
            ],
            "grid": None,
            "count": 1,
        }
    ],
    "grid_type": "Grid1D",
    "device": {"regs_per_multiprocessor": 65536, "max_threads_per_multi_processor": 2048},
}


def with_detail(tmp_path: Path, detail: dict[str, Any]) -> Path:
    def change(db: sqlite3.Connection) -> None:
        plant_detail(db, KERNEL, dumps(detail))

    return copy_with(tmp_path, GPU, change)


DETAIL_CASES = {
    "device threads 0": (("device", "max_threads_per_multi_processor"), 0),
    "device regs text": (("device", "regs_per_multiprocessor"), "abc"),
    "device regs NaN": (("device", "regs_per_multiprocessor"), "<NaN>"),
    "device regs Infinity": (("device", "regs_per_multiprocessor"), "<Infinity>"),
    "device a list": (("device",), [1]),
    "shared -1024": (("shared",), -1024),
    "num_warps text": (("num_warps",), "4"),
    "config a list": (("config",), [1]),
    "config kwargs a list": (("config", "kwargs"), [1]),
    "stage not text": (("stages", "ptx"), 5),
    "stages a list": (("stages",), ["ptx"]),
    "tensor shape an int": (("launches", 0, "args", 1, "shape"), 5),
    "tensor dim text": (("launches", 0, "args", 1, "shape"), ["4", 8]),
    "launches a dict": (("launches",), {"a": 1}),
}


@pytest.mark.parametrize("case", quick_first(DETAIL_CASES))
def test_hostile_kernel_detail(tmp_path: Path, case: str) -> None:
    path, value = DETAIL_CASES[case]
    report = with_detail(tmp_path, planted(DETAIL, path, value))
    for args in (
        ["ir", str(report), KERNEL],
        ["ir", str(report), KERNEL, "--stage", "ptx", "--line", "1"],
        ["export", str(report)],
    ):
        proc = run_cli(*args)
        clean(proc, f"{case}: {' '.join(args[:1] + args[2:])}")
        if args[0] == "export":
            assert proc.returncode == 0, (case, args[0], proc.stderr)


def test_kernel_detail_values_read_or_not_recorded(tmp_path: Path) -> None:
    """A good detail reads whole (metadata, occupancy, the launch's grid and bytes). A zero
    thread limit is the device's not recorded (the H200's are used); a negative register count
    is no occupancy, a negative or 2**124-element shape no bytes read; a wrongly typed field is
    no detail at all."""
    proc = run_cli("ir", str(with_detail(tmp_path, DETAIL)), KERNEL, check=True)
    assert "num_warps=4" in proc.stdout and "grid=(8, 1, 1)" in proc.stdout
    assert "occupancy (estimate): 16 blocks/SM, 64 warps/SM" in proc.stdout
    assert "reads: 0.00 MB" in proc.stdout
    zero = planted(DETAIL, ("device", "max_threads_per_multi_processor"), 0)
    proc = run_cli("ir", str(with_detail(tmp_path, zero)), KERNEL)
    assert proc.returncode == 0, proc.stderr
    assert "occupancy (estimate): 16 blocks/SM, 64 warps/SM" in proc.stdout
    proc = run_cli("ir", str(with_detail(tmp_path, planted(DETAIL, ("n_regs",), -5))), KERNEL)
    assert proc.returncode == 0, proc.stderr
    assert "occupancy" not in proc.stdout
    for shape in ([-4, 8], [2**62, 2**62]):  # no tensor's: its bytes are not recorded either
        launch = planted(DETAIL, ("launches", 0, "args", 1, "shape"), shape)
        proc = run_cli("ir", str(with_detail(tmp_path, launch)), KERNEL)
        assert proc.returncode == 0, proc.stderr
        assert "occupancy (estimate)" in proc.stdout and "reads:" not in proc.stdout, proc.stdout
    proc = run_cli("ir", str(with_detail(tmp_path, planted(DETAIL, ("num_warps",), "4"))), KERNEL)
    clean(proc, "num_warps text")
    assert proc.returncode == 2 and "no compiled stages recorded" in proc.stderr


# -- numbers out of range in frames and kernels ---------------------------------------------------


def _planting(select: str, update: str, path: tuple[str | int, ...]) -> Callable[[sqlite3.Connection], None]:
    def change(db: sqlite3.Connection) -> None:
        key, data = db.execute(select).fetchone()
        db.execute(update, (dumps(planted(json.loads(data), path, "<HUGE>")), key))

    return change


def in_frame(path: tuple[str | int, ...]) -> Callable[[sqlite3.Connection], None]:
    return _planting(
        "SELECT rowid, data FROM frames ORDER BY ordinal LIMIT 1",
        "UPDATE frames SET data = ? WHERE rowid = ?",
        path,
    )


def in_kernel(path: tuple[str | int, ...]) -> Callable[[sqlite3.Connection], None]:
    return _planting(
        "SELECT id, data FROM kernels ORDER BY id LIMIT 1", "UPDATE kernels SET data = ? WHERE id = ?", path
    )


HUGE_CASES = {
    "frame entire_frame_s": (SIN, in_frame(("metrics", "entire_frame_s"))),
    "frame timing.cpus": (GB, in_frame(("timing", "cpus"))),
    "frame timing.load_avg": (GB, in_frame(("timing", "load_avg", 0))),
    "frame timing.graph_us": (GB, in_frame(("timing", "graph_us"))),
    "frame timing.kernels_us": (GB, in_frame(("timing", "kernels_us"))),
    "kernel time.cv": (SIN, in_kernel(("time", "cv"))),
    "kernel time.total_us": (SIN, in_kernel(("time", "total_us"))),
    "kernel time.median_us": (SIN, in_kernel(("time", "median_us"))),
    "kernel time.share": (SIN, in_kernel(("time", "share"))),
    "kernel time.calls": (SIN, in_kernel(("time", "calls"))),
}


# one frame field and one kernel field in the quick lane
HUGE_QUICK_FIRST = sorted(HUGE_CASES, key=lambda case: case not in ("frame entire_frame_s", "kernel time.cv"))


@pytest.mark.parametrize("case", quick_first(HUGE_QUICK_FIRST, quick=2))
def test_number_out_of_range_is_corrupt(tmp_path: Path, case: str) -> None:
    source, change = HUGE_CASES[case]
    report = copy_with(tmp_path, source, change)
    out = tmp_path / "out"
    out.mkdir()
    for args in (
        ["summary", str(report)],
        ["export", str(report)],
        ["kernels", str(report)],
        ["graph", str(report), "--frame", "0/0"],
        ["share", str(report), "-o", str(out)],
        ["diff", str(source), str(report)],
    ):
        proc = run_cli(*args)
        clean(proc, f"{case}: {args[0]}")
        assert proc.returncode == 2 and "an int out of range" in proc.stderr, (case, args[0], proc.stderr)
        assert "inspectc-share-" not in proc.stderr  # the user's report is named, not share's copy


# -- the ``accuracy`` meta entry ------------------------------------------------------------------


def in_meta(key: str, path: tuple[str | int, ...], value: Any) -> Callable[[sqlite3.Connection], None]:
    def change(db: sqlite3.Connection) -> None:
        (text,) = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        db.execute(
            "UPDATE meta SET value = ? WHERE key = ?", (dumps(planted(json.loads(text), path, value)), key)
        )

    return change


OUTPUT = ("graphs", 0, "outputs", 0)
LOCATION = ("graphs", 0, "location")
ACCURACY_CASES = {
    "settings text": (("settings",), "x"),
    "graphs null": (("graphs",), None),
    "errors an int": (("errors",), 7),
    "outputs null": (("graphs", 0, "outputs"), None),
    "output name an int": ((*OUTPUT, "name"), 7),
    "max_abs_error huge": ((*OUTPUT, "max_abs_error"), "<HUGE>"),
    "max_abs_error text": ((*OUTPUT, "max_abs_error"), "x"),
    "max_rel_error text": ((*OUTPUT, "max_rel_error"), "x"),
    "max_rel_error huge": ((*OUTPUT, "max_rel_error"), "<HUGE>"),
    "eager_rel_error text": ((*OUTPUT, "eager_rel_error"), "x"),
    "bisection a list": (("graphs", 0, "bisection"), []),
    "location a list": (LOCATION, []),
    "location kernels null": ((*LOCATION, "kernels"), None),
    "fused_nodes an int": ((*LOCATION, "kernels", 0, "fused_nodes"), 7),
    "fused node an int": ((*LOCATION, "kernels", 0, "fused_nodes", 0), 7),
}


@pytest.mark.parametrize("case", quick_first(ACCURACY_CASES))
def test_hostile_accuracy_entry(tmp_path: Path, case: str) -> None:
    """A wrongly typed ``accuracy`` entry reads as a run with one error that says so (like an
    entry that is not JSON): the rest of the report still reads."""
    path, value = ACCURACY_CASES[case]
    report = copy_with(tmp_path, ACC, in_meta("accuracy", path, value))
    proc = run_cli("summary", str(report))
    clean(proc, f"{case}: summary")
    assert proc.returncode == 0 and "corrupt 'accuracy' entry in the report" in proc.stdout, proc.stdout[
        -800:
    ]
    proc = run_cli("check", str(report), "--max-rel-error", "0.1", "--fail-on-error")
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1 and "accuracy not read" in proc.stdout, proc.stdout  # never a pass
    proc = run_cli("export", str(report))
    clean(proc, f"{case}: export")
    errors = json.loads(proc.stdout)["accuracy"]["errors"]
    assert any("corrupt 'accuracy' entry" in e for e in errors), errors


# -- the ``bench`` meta entry and table -----------------------------------------------------------

BENCH_META_CASES = {
    "bandwidth text": (("bandwidth_gbps",), "x"),
    "bandwidth huge": (("bandwidth_gbps",), "<HUGE>"),
    "bandwidth a list": (("bandwidth_gbps",), [1]),
    "errors an int": (("errors",), 7),
    "started null": (("started",), None),
}


@pytest.mark.parametrize("case", quick_first(BENCH_META_CASES))
def test_hostile_bench_entry(tmp_path: Path, case: str) -> None:
    path, value = BENCH_META_CASES[case]
    report = copy_with(tmp_path, BENCH, in_meta("bench", path, value))
    for args in (["kernels", str(report)], ["graph", str(report), "--frame", "0/0"]):
        proc = run_cli(*args)
        clean(proc, f"{case}: {args[0]}")
        assert proc.returncode == 0, (case, args[0], proc.stderr)
    proc = run_cli("export", str(report))
    clean(proc, f"{case}: export")
    assert proc.returncode == 0, proc.stderr
    errors = json.loads(proc.stdout)["bench"]["errors"]
    assert any("corrupt 'bench' entry" in e for e in errors), errors


BENCH_ROW_CASES = {
    "method a dict": ("method", {}),
    "n null": ("n", None),
    "n text": ("n", "x"),
    "median_us null": ("median_us", None),
    "median_us text": ("median_us", "x"),
    "median_us huge": ("median_us", "<HUGE>"),
    "launches text": ("launches", "x"),
    "cv a list": ("cv", [1]),
}


@pytest.mark.parametrize(
    "case", quick_first(BENCH_ROW_CASES, quick=0)
)  # each shares a 1 MB report: slow lane
def test_hostile_bench_row_is_left_out(tmp_path: Path, case: str) -> None:
    """A ``bench`` row that does not read as a figure is left out; the others still count."""
    field, value = BENCH_ROW_CASES[case]
    kernel = "triton_poi_fused_convolution_0"

    def change(db: sqlite3.Connection) -> None:
        rowid, data = db.execute(
            "SELECT rowid, data FROM bench WHERE kernel = ? AND method = 'module_profiler'", (kernel,)
        ).fetchone()
        db.execute(
            "UPDATE bench SET data = ? WHERE rowid = ?",
            (dumps(planted(json.loads(data), (field,), value)), rowid),
        )

    report = copy_with(tmp_path, BENCH, change)
    out = tmp_path / "out"
    out.mkdir()
    for args in (
        ["kernels", str(report)],
        ["graph", str(report), "--frame", "0/0"],
        ["share", str(report), "-o", str(out)],
    ):
        proc = run_cli(*args)
        clean(proc, f"{case}: {args[0]}")
        assert proc.returncode == 0, (case, args[0], proc.stderr)
    proc = run_cli("export", str(report))
    clean(proc, f"{case}: export")
    kernels = {k["name"]: k for k in json.loads(proc.stdout)["frames"][0]["kernels"]}
    assert set(kernels[kernel]["isolated"]) == {"kernel_harness"}, kernels[kernel]["isolated"]
    assert kernels["triton_poi_fused_convolution_1"]["isolated"], "a good row was left out too"


@pytest.mark.parametrize("value", ["<HUGE>", "<Infinity>"])
def test_inductor_byte_estimate_out_of_range_is_not_recorded(tmp_path: Path, value: str) -> None:
    """``kernel_num_gb`` (a kernel's free-form metadata) that no float holds is not recorded."""
    kernel = "triton_poi_fused_convolution_0"

    def change(db: sqlite3.Connection) -> None:
        kid, data = db.execute("SELECT id, data FROM kernels WHERE name = ?", (kernel,)).fetchone()
        doc = planted(json.loads(data), ("meta", "inductor_meta", "kernel_num_gb"), value)
        db.execute("UPDATE kernels SET data = ? WHERE id = ?", (dumps(doc), kid))

    report = copy_with(tmp_path, BENCH, change)
    proc = run_cli("kernels", str(report))
    clean(proc, "kernels")
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("export", str(report))
    clean(proc, "export")
    (found,) = [k for k in json.loads(proc.stdout)["frames"][0]["kernels"] if k["name"] == kernel]
    assert found["roofline"]["status"] == "not recorded", found["roofline"]


def test_a_recorded_profile_window_of_one_number_reads_as_not_recorded() -> None:
    from inspectc.cli.kernels import untimed_reason
    from inspectc.model import Run, RunOptions

    run = Run(end_reason="exit", options=RunOptions(timings=True, profile_window=(1,)))
    assert "window 1:10" in untimed_reason([], set(), run)  # the default, not an IndexError
