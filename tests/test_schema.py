"""Schema versions: v1 reports (a committed real one) open as the v2 model; other versions are
refused in one line; a new report is written as the current version."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from conftest import run_cli

from inspectc.errors import ReportError
from inspectc.model import CompileId, Frame, Kernel, Run
from inspectc.store.open import open_report
from inspectc.store.schema import SCHEMA_VERSION
from inspectc.store.writer import ReportWriter

V1 = Path(__file__).parent / "data" / "reports" / "v1-graph_breaks.inspectc"


def test_current_version_is_3() -> None:
    assert SCHEMA_VERSION == 3


def test_v1_report_opens_with_typed_ids_and_kernel_ranks() -> None:
    with open_report(V1) as r:
        assert r.schema_version == 1
        assert r.frames, "the v1 report has frames"
        for f in r.frames:
            assert isinstance(f.compile_id, CompileId) and f.compile_id.frame is not None
            assert (f.compile_id.frame, f.compile_id.compile) == tuple(
                int(x) for x in f.compile_id.text.split("/")
            )
        assert all(k.rank is None for k in r.kernels)
        assert r.run.options.profile_window == (1, 10)


@pytest.mark.parametrize("version", ["0", "-1", "4", "999", "two", ""])
def test_other_versions_are_refused_in_one_line(tmp_path: Path, version: str) -> None:
    path = tmp_path / "r.inspectc"
    shutil.copy(V1, path)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
    db.commit()
    db.close()
    with pytest.raises(ReportError):
        open_report(path)
    proc = run_cli("summary", str(path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "schema" in proc.stderr, proc.stderr


def test_new_report_is_current_version_and_round_trips_typed_fields(tmp_path: Path) -> None:
    path = tmp_path / "new.inspectc"
    w = ReportWriter(path)
    cid = CompileId(rank=3, frame=2, compile=1, attempt=1)
    w.put_frame(Frame(compile_id=cid, rank=3))
    seq = w.add_event(
        name="inductor_output_code", metadata={}, payload="x", compile_id="2/1", rank=3, ts=None
    )
    w.add_kernel(
        Kernel(
            id=-1,
            compile_id=CompileId.parse("2/1"),
            rank=3,
            name="k",
            language="cpp",
            kind="pointwise",
            source_size=1,
        ),
        seq=seq,
        start=0,
        stop=1,
    )
    w.set_meta("run", Run())
    w.close()
    with open_report(path) as r:
        assert r.schema_version == SCHEMA_VERSION
        assert r.frames[0].compile_id == cid and str(r.frames[0].compile_id) == "2/1_1"
        assert r.kernels[0].rank == 3
        assert r.frame_kernels(CompileId.parse("2/1", 3)) == r.kernels
    # On disk the id stays text, as torch printed it, and the frame's JSON also has its fields.
    with closing(sqlite3.connect(path)) as db:
        column, data = db.execute("SELECT compile_id, data FROM frames").fetchone()
        kernel_column = db.execute("SELECT compile_id FROM kernels").fetchone()[0]
    plain = json.loads(data)
    assert (column, plain["compile_id"], kernel_column) == ("2/1_1", "2/1_1", "2/1")
    assert list(plain)[:3] == ["compile_id", "rank", "id"] and plain["id"]["attempt"] == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0/1", CompileId(frame=0, compile=1)),
        ("0/1_2", CompileId(frame=0, compile=1, attempt=2)),
        ("!2/0/1", CompileId(autograd=2, frame=0, compile=1)),
        ("!2", CompileId(autograd=2)),
        ("nonsense", CompileId()),
    ],
)
def test_compile_id_parses_every_form(text: str, expected: CompileId) -> None:
    assert CompileId.parse(text) == expected
    if expected.frame is not None or expected.autograd is not None:
        assert str(CompileId.parse(text)) == text


V2 = Path(__file__).parent / "data" / "reports" / "v2-mlp_train.inspectc"  # made by inspectc 0.2 (schema 2)


def test_v2_report_opens_its_times_without_samples_shown_by_the_mean_and_flagged() -> None:
    with open_report(V2) as r:
        assert r.schema_version == 2
        timed = [k for k in r.kernels if k.time is not None]
        assert timed, "the v2 report has kernel times"
        for k in timed:
            t = k.time
            assert t is not None
            assert t.median_us is None and t.p90_us is None and t.cv is None and t.samples == ()
            assert t.typical_us == t.mean_us  # shown by the mean, the figure v2 kept
            assert t.noise == "spread not recorded"
        assert all(f.timing is None for f in r.frames)
    proc = run_cli("kernels", str(V2), check=True)
    assert "median" in proc.stdout.splitlines()[0]
    assert "noisy (spread not recorded)" in proc.stdout


REPORTS = Path(__file__).parent / "data" / "reports"


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION + 1))
def test_every_version_has_its_step_and_a_committed_report_that_opens(version: int) -> None:
    import importlib

    from inspectc.store import migrations

    if version < SCHEMA_VERSION:
        step = importlib.import_module(f"inspectc.store.migrations.v{version}_to_v{version + 1}")
        assert migrations.STEPS[version] is step.frame
    found = sorted(REPORTS.glob(f"v{version}-*.inspectc"))
    assert found, f"no committed version-{version} report in tests/data/reports"
    for path in found:
        with open_report(path) as r:
            assert r.schema_version == version
            assert r.frames and all(f.compile_id is not None for f in r.frames)
        proc = run_cli("export", str(path), "--json")
        assert proc.returncode == 0 and json.loads(proc.stdout)["frames"], proc.stderr
