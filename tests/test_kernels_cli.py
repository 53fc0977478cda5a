"""`inspectc kernels`: the kernel table on golden reports (no torch needed)."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

from inspectc.analysis.text import cut_middle
from inspectc.cli.kernels import kernel_rows, render_kernels
from inspectc.model import CompileId
from inspectc.store.open import open_report


def test_table_lists_every_kernel_of_a_frame(golden: Path) -> None:
    report = golden / "mlp_train.inspectc"
    proc = run_cli("kernels", str(report), "--frame", "0/0", "--sort", "name", check=True)
    with open_report(report) as r:
        names = sorted(k.name for k in r.frame_kernels(CompileId.parse("0/0")))
    listed = [line.split()[0] for line in proc.stdout.splitlines()[1 : 1 + len(names)]]
    assert [cut_middle(n, 60) for n in names] == listed  # long names lose their middle, with an ellipsis
    assert any("…" in n for n in listed) and all(len(n) <= 60 for n in listed)
    assert f"{len(names)} kernels" in proc.stdout
    assert "extern" in proc.stdout and "bwd" in proc.stdout


def test_sort_by_time_puts_measured_kernels_first(golden: Path) -> None:
    with open_report(golden / "mlp_train.inspectc") as r:
        rows = kernel_rows(r.kernels, "time")
        timed = [k.time.total_us for k in rows if k.time]
        assert timed == sorted(timed, reverse=True)
        assert all(k.time for k in rows[: len(timed)])
        text = render_kernels(r.kernels)
        assert text.splitlines()[0].split()[:4] == ["kernel", "frame", "kind", "fused"]


def test_unknown_frame_is_one_clear_line(golden: Path) -> None:
    proc = run_cli("kernels", str(golden / "mlp_train.inspectc"), "--frame", "9/9")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no frame 9/9" in proc.stderr


def test_summary_splits_generated_kernels_from_library_calls() -> None:
    """A held-out count of a raw log's generated kernels (triton_/cpp_ definitions) differed from
    the headline, which counted extern_kernels.mm and aten calls too, without saying so."""
    import sqlite3

    from conftest import REPORTS

    report = REPORTS / "mlp_train.inspectc"
    db = sqlite3.connect(report.resolve().as_uri() + "?mode=ro", uri=True)
    by_language = dict(db.execute("SELECT language, COUNT(*) FROM kernels GROUP BY language").fetchall())
    db.close()
    library = by_language.pop("extern")
    generated = sum(by_language.values())
    assert library and generated
    head = run_cli("summary", str(report), check=True).stdout.splitlines()[0]
    total = library + generated
    assert f"{total} kernels ({generated} generated, {library} library calls)" in head, head
