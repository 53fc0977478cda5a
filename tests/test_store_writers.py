"""store/'s writers of finished reports: a change made in place or into a copy (``edit.py``:
bench, accuracy) and a merge (``oneshot.py``), checked against the files themselves, read
with sqlite3 here, on golden reports of real runs. No torch. (share's row-by-row copy,
``rewrite.py``, is tested through share: tests/test_share*.py.)"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from inspectc.errors import ReportError
from inspectc.store.edit import edited_copy, editing

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "samples" / "reports" / "graph_breaks.inspectc"


def _rows(path: Path, table: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)  # noqa: S608
    finally:
        db.close()


def _meta(path: Path) -> dict[str, str]:
    return {str(k): str(v) for k, v in _rows(path, "meta")}


def test_an_edit_in_place_is_all_or_nothing(tmp_path: Path) -> None:
    path = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, path)
    with editing(path) as edit:
        edit.set_meta("note", {"a": 1})
    assert json.loads(_meta(path)["note"]) == {"a": 1}
    with pytest.raises(RuntimeError), editing(path) as edit:
        edit.set_meta("note", "second")
        raise RuntimeError("stop")
    assert json.loads(_meta(path)["note"]) == {"a": 1}  # rolled back
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.inspectc"]


def test_an_edit_refuses_what_is_not_a_report(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    link = tmp_path / "link.inspectc"
    link.symlink_to(GOLDEN)
    for path, said in ((notes, "not an inspectc report"), (link, "symbolic link"), (tmp_path / "no", "not")):
        with pytest.raises(ReportError, match=said), editing(path) as edit:
            edit.set_meta("x", "y")
    assert notes.read_text() == "mine" and not (tmp_path / "no").exists()


def test_an_edited_copy_leaves_its_source_and_replaces_only_a_report(tmp_path: Path) -> None:
    source = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, source)
    before = source.read_bytes()
    out = tmp_path / "copy.inspectc"
    with edited_copy(source, out) as edit:
        edit.set_meta("note", "copied")
    assert source.read_bytes() == before
    assert _meta(out)["note"] == "copied" and _rows(out, "events") == _rows(source, "events")
    with pytest.raises(RuntimeError), edited_copy(source, out) as edit:
        edit.set_meta("note", "again")
        raise RuntimeError("stop")
    assert _meta(out)["note"] == "copied"  # the earlier copy stays
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    with pytest.raises(ReportError, match="refusing to overwrite"), edited_copy(source, notes) as edit:
        edit.set_meta("note", "x")
    assert notes.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.inspectc", "notes.txt", "r.inspectc"]
    assert oct(os.stat(out).st_mode & 0o777) == oct(0o666 & ~_umask())


def test_a_failed_merge_keeps_what_was_at_o(tmp_path: Path) -> None:
    from inspectc.store.merge import merge_reports

    first, second = tmp_path / "a.inspectc", tmp_path / "b.inspectc"
    shutil.copyfile(GOLDEN, first)
    shutil.copyfile(ROOT / "samples" / "reports" / "sin_sin.inspectc", second)
    db = sqlite3.connect(second)
    db.execute("UPDATE events SET seq = -seq")  # moved on by a's last seq, they land on a's
    db.commit()
    db.close()
    out = tmp_path / "merged.inspectc"
    shutil.copyfile(GOLDEN, out)
    before = out.read_bytes()
    with pytest.raises(ReportError, match=r"b\.inspectc: cannot merge: UNIQUE constraint") as caught:
        merge_reports([first, second], out)
    assert "\n" not in str(caught.value)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.inspectc", "b.inspectc", "merged.inspectc"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
