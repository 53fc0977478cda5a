"""The compile id is parsed and formatted in one place (issue 26).

``CompileId`` (inspectc/model) is the only parser and formatter of compile-id text; trace/ builds
ids from torch's records and store/ reads and writes the TEXT columns. Every other module carries
the typed id (``Frame.compile_id``, ``Kernel.compile_id``, with the rank) and prints it with ``str(cid)``. This test greps the
rest of the code for the ways a hand-made parser or formatter would look.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspectc.model import CompileId, without_id_prefix

ROOT = Path(__file__).resolve().parent.parent
# Where compile-id text may be read or built: the model's CompileId, the trace builder (torch's
# records), the store (its TEXT columns).
ALLOWED = ("inspectc/model/", "inspectc/trace/", "inspectc/store/")

_ID = r"[\w.]*(?:compile_id|cid)\w*"
FORBIDDEN = {
    "split/partition of an id": re.compile(rf"{_ID}\)?\.(?:split|rsplit|partition|rpartition)\("),
    "startswith/endswith on an id": re.compile(rf"{_ID}\)?\.(?:startswith|endswith)\("),
    "a character looked for in an id": re.compile(rf"[\"'][/!#_][\"'] (?:not )?in {_ID}"),
    "a regex for an id": re.compile(r"\\d\+/\\d\+"),
    "an f-string that builds an id": re.compile(
        r"f[\"'][^\"']*\{[^}]*(?:frame_id|frame_compile_id|\.frame|\.compile|autograd)[^}]*\}/\{"
    ),
    "an f-string that builds an autograd id": re.compile(r"f[\"']!\{"),
}


def _sources() -> list[Path]:
    files = [*(ROOT / "inspectc").rglob("*.py"), *(ROOT / "tui" / "inspectc_tui").rglob("*.py")]
    return [p for p in files if not p.relative_to(ROOT).as_posix().startswith(ALLOWED)]


def test_no_module_outside_model_trace_store_parses_or_builds_compile_id_text() -> None:
    sources = _sources()
    assert len(sources) > 100  # the scan sees the code, not an empty folder
    found = []
    for path in sources:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {what}: {line.strip()}")
    assert not found, "compile-id text handled by hand (use CompileId):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'a, _, b = frame.compile_id.partition("/")',
        'if cid.startswith("!"):',
        'if "/" not in f.compile_id:',
        '_X = re.compile(r"^!?\\d+/\\d+:")',
        "cid = f\"{metadata.get('frame_id')}/{metadata.get('frame_compile_id')}\"",
        'text = f"!{n}/{rest}"',
    ],
)
def test_the_patterns_catch_hand_made_ids(line: str) -> None:
    assert any(p.search(line) for p in FORBIDDEN.values()), line


def test_the_one_parser_and_formatter_round_trip() -> None:
    for text in ("0/1", "!2/0/1", "!2", "0/0#2", "3/1_2"):
        assert str(CompileId.parse(text)) == text
    assert without_id_prefix("0/1: L['x'].size()[0] == 2") == "L['x'].size()[0] == 2"


def test_the_cli_parses_frame_once_and_refuses_what_is_not_an_id(tmp_path: Path) -> None:
    from conftest import run_cli

    from inspectc.model import Frame, Run
    from inspectc.store.factory import ReportFactory

    path = tmp_path / "r.inspectc"
    with ReportFactory(path, Run(argv=("inspectc", "run", "t.py"))) as made:
        made.frame(Frame(compile_id=CompileId.parse("0/0")))
        made.frame(Frame(compile_id=CompileId.parse("0/0#2"), ordinal=1))
    bad = run_cli("kernels", str(path), "--frame", "zero/one")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert "--frame: not a compile id: 'zero/one'" in bad.stderr and "Traceback" not in bad.stderr
    for text in ("0/0", "[0/0]", "0/0#2"):  # no kernels: the frame is found, nothing to list
        ok = run_cli("kernels", str(path), "--frame", text)
        assert ok.returncode == 0 and "no frame" not in ok.stderr, (text, ok.stderr)
    missing = run_cli("kernels", str(path), "--frame", "0/0#3")
    assert missing.returncode == 2 and "no frame 0/0#3" in missing.stderr


def test_readers_get_typed_ids_with_the_rank_and_the_store_keeps_the_text(tmp_path: Path) -> None:
    """Frames and kernels carry a CompileId (the rank in it); the columns keep torch's text."""
    import sqlite3
    from contextlib import closing

    from inspectc.store.open import open_report

    logs = ROOT / "tests" / "data" / "logs"
    merged = tmp_path / "ranks.inspectc"
    from inspectc.capture.importer import import_logs

    import_logs(logs / "ranks3_diverge", merged)
    for path in (ROOT / "samples" / "reports" / "graph_breaks.inspectc", merged):
        with closing(sqlite3.connect(path)) as db:
            frame_rows = sorted(db.execute("SELECT rank, compile_id FROM frames").fetchall())
            kernel_rows = db.execute("SELECT rank, compile_id FROM kernels ORDER BY id").fetchall()
        with open_report(path) as r:
            assert r.frames and all(isinstance(f.compile_id, CompileId) for f in r.frames)
            assert all(f.compile_id.rank == f.rank for f in r.frames)
            assert all(k.compile_id.rank == k.rank for k in r.kernels)
            # the text a reader prints is the text torch printed and the store keeps
            texts = sorted((-1 if f.rank is None else f.rank, str(f.compile_id)) for f in r.frames)
            assert texts == frame_rows
            assert [str(k.compile_id) for k in r.kernels] == [c for _, c in kernel_rows]
    with open_report(merged) as r:
        ranks = {f.rank for f in r.frames}
        assert ranks == {0, 1, 2}
        # one compile on every rank: the same id once the rank is set aside, three ids with it
        first = [f.compile_id for f in r.frames if str(f.compile_id) == "0/0"]
        assert len(set(first)) == 3 and len({c.without_rank() for c in first}) == 1
        assert sorted(first) == sorted(first, key=lambda c: c.rank)  # a total order, rank first
