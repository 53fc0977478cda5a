"""Opening a share bundle (.zip) trusts nothing in it: one report member, extracted safely.

Hostile bundles (path traversal, absolute names, symlinks, encryption, oversized or several
reports, garbage after the zip magic) give one clear ReportError, never a file outside the
temporary folder; a good bundle opens like the report inside it, from Python and the CLI.
"""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path

import pytest
from conftest import run_cli

from inspectc.errors import ReportError
from inspectc.store.bundle import BundleReport, extract_report, open_bundle, write_bundle
from inspectc.store.open import open_report


@pytest.fixture
def report(golden: Path, tmp_path: Path) -> Path:
    path = tmp_path / "graph_breaks.inspectc"
    shutil.copy(golden / "graph_breaks.inspectc", path)
    return path


def _zip(path: Path, *members: tuple[zipfile.ZipInfo | str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in members:
            archive.writestr(info, data)
    return path


def test_bundle_opens_like_its_report_and_cleans_up(report: Path, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "b.zip", [("report.inspectc", report), ("SUMMARY.md", b"# hi\n")])
    with open_report(report) as original:
        frames = original.frames
    opened = open_report(bundle)
    assert isinstance(opened, BundleReport)
    assert opened.frames == frames
    assert opened.bundle == bundle
    extracted = opened.path.parent
    assert sorted(p.name for p in extracted.iterdir()) == ["report.inspectc"]  # nothing else extracted
    opened.close()
    assert not extracted.exists()


def test_cli_reads_a_bundle(report: Path, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "b.zip", [("report.inspectc", report)])
    proc = run_cli("export", str(bundle), "--json", check=True)
    assert '"graph_breaks"' in proc.stdout
    proc = run_cli("summary", str(bundle), check=True)
    assert "graph breaks" in proc.stdout


@pytest.mark.parametrize(
    "name, message",
    [
        ("../evil.inspectc", "points outside"),
        ("/tmp/evil.inspectc", "points outside"),
        ("a/../../evil.inspectc", "points outside"),
        ("..\\evil.inspectc", "unsafe name"),
        ("C:evil.inspectc", "unsafe name"),
    ],
)
def test_traversal_names_are_refused(tmp_path: Path, name: str, message: str) -> None:
    info = zipfile.ZipInfo("placeholder")
    info.filename = name  # ZipInfo() normalizes some names; write the hostile one as is
    bundle = _zip(tmp_path / "evil.zip", (info, b"SQLite format 3\x00"))
    target = tmp_path / "deep" / "target"
    target.mkdir(parents=True)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(ReportError, match=message):
        extract_report(bundle, target)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    assert not Path("/tmp/evil.inspectc").exists()


def test_symlink_member_is_refused(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("report.inspectc")
    info.create_system = 3  # unix, so external_attr carries the file type
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    bundle = _zip(tmp_path / "link.zip", (info, b"/etc/passwd"))
    with pytest.raises(ReportError, match="not a plain file"):
        open_bundle(bundle)


def test_encrypted_member_is_refused(tmp_path: Path) -> None:
    bundle = _zip(tmp_path / "enc.zip", ("report.inspectc", b"x" * 64))
    data = bytearray(bundle.read_bytes())  # zipfile cannot encrypt: set the flag bit by hand
    data[data.index(b"PK\x01\x02") + 8] |= 0x1
    data[data.index(b"PK\x03\x04") + 6] |= 0x1
    bundle.write_bytes(bytes(data))
    with pytest.raises(ReportError, match="encrypted"):
        open_bundle(bundle)


def test_oversized_member_is_refused(report: Path, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "big.zip", [("report.inspectc", report)])
    with pytest.raises(ReportError, match="limit"):
        open_bundle(bundle, max_bytes=1000)


@pytest.mark.parametrize(
    "members, message",
    [
        ((("SUMMARY.md", b"hi"),), "holds no report"),
        ((("a.inspectc", b"x"), ("b.inspectc", b"y")), "several reports"),
        ((("nested/report.inspectc", b"x"),), "holds no report"),
    ],
)
def test_bundle_without_one_report(tmp_path: Path, members: tuple, message: str) -> None:
    bundle = _zip(tmp_path / "b.zip", *members)
    with pytest.raises(ReportError, match=message):
        open_bundle(bundle)


def test_report_member_that_is_not_a_report(tmp_path: Path) -> None:
    bundle = _zip(tmp_path / "b.zip", ("report.inspectc", b"print('never run')\n"))
    with pytest.raises(ReportError, match=r"b\.zip \(report inside\) is not an inspectc report"):
        open_report(bundle)


def test_garbage_after_zip_magic_is_one_line_on_the_cli(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04" + b"\x00garbage" * 100)
    with pytest.raises(ReportError, match="not a readable bundle"):
        open_report(bad)
    proc = run_cli("export", str(bad), "--json")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_write_bundle_refuses_unsafe_member_names(tmp_path: Path) -> None:
    with pytest.raises(ReportError):
        write_bundle(tmp_path / "b.zip", [("../x.md", b"x")])
    assert not (tmp_path / "b.zip").exists()
    assert not list(tmp_path.glob(".inspectc-*"))
