"""Issue 38: a file beside a report is never trusted. No reader plays a journal or WAL back.

A rollback journal names a "super-journal"; when SQLite plays the journal back it deletes that
file if no child journal still points to it. So a crafted 540-byte ``run.inspectc-journal``
beside a stranger's report deleted ``train.py`` from the folder a maintainer opened it in
(relative name) or any file the user may delete (absolute name), through every reader: main
rolled the journal back in a private copy. Every open is ``immutable`` now: the journal is
never read, the victim and the journal stay byte-identical, and one line says the last
transaction may be missing. Each command runs as the installed CLI under ``ulimit -v`` and a
timeout; the TUI's load path runs in-process. A derandomised Hypothesis sweep varies the
journal's header and trailer, and a planted WAL's.
"""

from __future__ import annotations

import shutil
import struct
import zipfile
from pathlib import Path

import pytest
from conftest import quick_first
from receiving import GOLDEN, cli, journal_naming, plant_journal, with_ranks

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NOTICE = "not played back"

COMMANDS = {
    "summary": lambda r, out: ["summary", str(r)],
    "export": lambda r, out: ["export", str(r), "-o", str(out / "r.json")],
    "kernels": lambda r, out: ["kernels", str(r)],
    "check": lambda r, out: ["check", str(r), "--max-graph-breaks", "100"],
    "share": lambda r, out: ["share", str(r), "-o", str(out)],
    "diff": lambda r, out: ["diff", str(r), str(GOLDEN)],
    "graph": lambda r, out: ["graph", str(r), "-o", str(out / "g.dot")],
    "ir": lambda r, out: ["ir", str(r), "1"],
    "repro": lambda r, out: ["repro", str(r), "1"],
}


@pytest.fixture
def scene(tmp_path: Path) -> dict[str, Path]:
    """A report in a project folder beside the user's ``train.py``, and a file elsewhere."""
    project = tmp_path / "project"
    project.mkdir()
    report = project / "run.inspectc"
    shutil.copyfile(GOLDEN, report)
    train = project / "train.py"
    train.write_text("import torch\nprint('the user training script')\n")
    elsewhere = tmp_path / "elsewhere" / "notes.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text("the user's notes\n")
    out = tmp_path / "out"
    out.mkdir()
    return {"project": project, "report": report, "train": train, "elsewhere": elsewhere, "out": out}


def _snapshot(*paths: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in paths}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("named", quick_first(["relative", "absolute"]))  # absolute: the slow lane
def test_a_planted_journal_deletes_nothing(scene: dict[str, Path], command: str, named: str) -> None:
    victim = scene["train"] if named == "relative" else scene["elsewhere"]
    side = plant_journal(scene["report"], "train.py" if named == "relative" else str(victim))
    before = _snapshot(victim, side, scene["report"])
    proc = cli(*COMMANDS[command](scene["report"], scene["out"]), cwd=scene["project"])
    assert _snapshot(victim, side, scene["report"]) == before  # there, byte-identical, not replayed
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # diff and check: 1 = a difference
    notices = [line for line in proc.stderr.splitlines() if NOTICE in line]
    assert len(notices) == 1 and "last transaction may be missing" in notices[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_rank_folder_with_journals_deletes_nothing(scene: dict[str, Path]) -> None:
    folder = scene["project"] / "ranks"
    ranks = with_ranks(folder)
    sides = [plant_journal(r, "../train.py") for r in ranks]
    before = _snapshot(scene["train"], *sides, *ranks)
    for args in (
        ["summary", "."],
        ["kernels", "."],
        ["check", "."],
        ["export", ".", "-o", str(scene["out"] / "j")],
    ):
        proc = cli(*args, cwd=folder)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert sum(NOTICE in line for line in proc.stderr.splitlines()) == len(ranks), proc.stderr
    assert _snapshot(scene["train"], *sides, *ranks) == before


def test_share_check_and_a_bundle_never_replay(scene: dict[str, Path]) -> None:
    """A bundle's report is extracted to a private folder and opened immutable too."""
    bundle = scene["project"] / "b.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.write(scene["report"], "report.inspectc")
    side = plant_journal(bundle, "train.py")  # beside the bundle: never looked at
    before = _snapshot(scene["train"], side)
    assert cli("summary", str(bundle), cwd=scene["project"]).returncode == 0
    assert cli("share", "--check", str(bundle), cwd=scene["project"]).returncode in (0, 1)
    assert _snapshot(scene["train"], side) == before


def test_the_tui_load_path_deletes_nothing(scene: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from inspectc_tui.data import load_report

    side = plant_journal(scene["report"], "train.py")
    before = _snapshot(scene["train"], side, scene["report"])
    monkeypatch.chdir(scene["project"])
    data = load_report(scene["report"])
    try:
        assert data.frames and len(data.notices) == 1 and NOTICE in data.notices[0]
        assert data.graph(data.frames[0], "dynamo")  # a lazy read, from the private snapshot
    finally:
        data.close()
    assert _snapshot(scene["train"], side, scene["report"]) == before


def test_a_wal_beside_is_not_applied(scene: dict[str, Path]) -> None:
    wal = Path(f"{scene['report']}-wal")
    wal.write_bytes(_wal_header(4096) + b"\x07" * 8192)
    before = _snapshot(wal, scene["report"])
    proc = cli("summary", str(scene["report"]), cwd=scene["project"])
    assert proc.returncode == 0 and NOTICE in proc.stderr and "-wal" in proc.stderr
    assert _snapshot(wal, scene["report"]) == before
    assert not Path(f"{scene['report']}-shm").exists()  # nothing created beside it either


def _wal_header(page_size: int, magic: int = 0x377F0682, salts: tuple[int, int] = (1, 2)) -> bytes:
    return struct.pack(">IIIIIIII", magic, 3007000, page_size, 0, *salts, 0, 0)


# -- a derandomised sweep over journal and WAL headers (in-process: the store's one opener) ------
SMALL = GOLDEN.parent / "sin_sin.inspectc"


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sweep")


def _open_and_read(report: Path) -> int:
    from inspectc.errors import InspectcError
    from inspectc.store.open import open_report

    try:
        with open_report(report) as r:
            return len(r.frames) + len(r.kernels)
    except InspectcError:
        return -1


names = st.one_of(
    st.sampled_from(["victim.txt", "./victim.txt", "../sweep-victim.txt"]),
    st.binary(min_size=1, max_size=40).filter(lambda b: b"\0" not in b),
)


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=names,
    records=st.sampled_from([0, 1, 7, 0xFFFFFFFF]),
    nonce=st.integers(0, 0xFFFFFFFF),
    pages=st.integers(0, 64),
    page_size=st.sampled_from([0, 512, 1024, 4096, 65536, 3000]),
    sector=st.sampled_from([0, 32, 512, 4096, 100000]),
    checksum_ok=st.booleans(),
    garbage=st.binary(max_size=64),
)
def test_sweep_journal_headers(
    sweep_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: bytes | str,
    records: int,
    nonce: int,
    pages: int,
    page_size: int,
    sector: int,
    checksum_ok: bool,
    garbage: bytes,
) -> None:
    monkeypatch.chdir(sweep_dir)
    report = sweep_dir / "r.inspectc"
    shutil.copyfile(SMALL, report)
    victims = [sweep_dir / "victim.txt", sweep_dir.parent / "sweep-victim.txt"]
    for v in victims:
        v.write_text("keep me\n")
    journal = journal_naming(
        name,
        pages,
        page_size=page_size or 4096,
        sector=sector or 512,
        records=records,
        nonce=nonce,
        checksum_ok=checksum_ok,
    )
    side = Path(f"{report}-journal")
    side.write_bytes(journal[:512] + garbage + journal[512:] if garbage else journal)
    before = _snapshot(report, side, *victims)
    expected = _open_and_read(SMALL)
    assert _open_and_read(report) == expected  # the file as it is: the journal changes nothing
    assert _snapshot(report, side, *victims) == before


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    magic=st.sampled_from([0x377F0682, 0x377F0683, 0]),
    page_size=st.sampled_from([512, 4096, 65536, 1]),
    salts=st.tuples(st.integers(0, 0xFFFFFFFF), st.integers(0, 0xFFFFFFFF)),
    body=st.binary(max_size=9000),
)
def test_sweep_wal_headers(
    sweep_dir: Path, magic: int, page_size: int, salts: tuple[int, int], body: bytes
) -> None:
    report = sweep_dir / "w.inspectc"
    shutil.copyfile(SMALL, report)
    wal = Path(f"{report}-wal")
    wal.write_bytes(_wal_header(page_size, magic, salts) + body)
    before = _snapshot(report, wal)
    assert _open_and_read(report) == _open_and_read(SMALL)
    assert _snapshot(report, wal) == before
    assert not Path(f"{report}-shm").exists()
