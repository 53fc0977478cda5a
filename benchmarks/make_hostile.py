"""Hostile inputs of hostile sizes, built from a real golden report: what a stranger can attach to a bug.

Each builder writes one file and returns its path; ``bench_hostile.py`` times the CLI on
them and ``tests/test_receive_bounds.py`` builds them once per test session.

- :func:`many_kernels`: a real report plus N kernel rows (default 10^6) that point into its
  real output code;
- :func:`many_frames`: a real report plus N frame rows, each a real frame renumbered;
- :func:`recompile_log`: a ``.log.gz`` TORCH_TRACE log of one frame recompiled N times;
- :func:`bomb_report` / :func:`bomb_bundle`: a report (and a share bundle of it) whose event
  payloads are zlib bombs, *count* of them inflating to *each_mb* MB each (a few MB on disk).

Rows are made by SQLite itself (a recursive CTE), so 10^6 of them take seconds, not minutes.
Run ``python benchmarks/make_hostile.py OUT_DIR`` to write them all.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import sys
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "samples" / "reports" / "graph_breaks.inspectc"
MILLION = 1_000_000
UNDER_KERNELS = 99_900  # the golden report's own kernels and frames bring these to the limits
UNDER_FRAMES = 49_900


def _copy(out: Path) -> sqlite3.Connection:
    shutil.copyfile(GOLDEN, out)
    db = sqlite3.connect(out, isolation_level=None)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    return db


def _done(db: sqlite3.Connection, out: Path) -> Path:
    db.execute("COMMIT")
    db.close()
    return out


def many_kernels(out: Path, n: int = MILLION) -> Path:
    """*n* more kernels, each the report's first one renamed (same source slice), with the
    small data a kernel without timings carries (~150 bytes a row)."""
    db = _copy(out)
    db.execute(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ?)"
        " INSERT INTO kernels(rank, compile_id, name, language, kind, graph_kind, seq, start, stop, data)"
        " SELECT k.rank, k.compile_id, k.name || '_' || x, k.language, k.kind, k.graph_kind, k.seq,"
        ' k.start, k.stop, \'{"source_size": 1376, "fused_nodes": ["sin", "add"]}\''
        " FROM c, (SELECT * FROM kernels ORDER BY id LIMIT 1) AS k",
        (n,),
    )
    return _done(db, out)


def many_frames(out: Path, n: int = MILLION) -> Path:
    """*n* more frames: the report's first frame, renumbered (frames 1000.. of its rank) and
    kept small (one short graph break, no guards, stacks, graphs or metrics: ~650 bytes a row)."""
    db = _copy(out)
    rank, data = db.execute("SELECT rank, data FROM frames ORDER BY ordinal LIMIT 1").fetchone()
    frame = json.loads(data)
    brk = frame["graph_breaks"][0]
    brk.update(reason="print", explanation=None, hints=[], user_stack=[], raw=None, debug_context=None)
    frame.update(graph_breaks=[brk], guards=[], metrics={}, user_stack=[], timing=None, graph_kinds=[])
    db.execute(
        "WITH RECURSIVE c(x) AS (SELECT 1000 UNION ALL SELECT x + 1 FROM c LIMIT ?)"
        " INSERT INTO frames(rank, compile_id, ordinal, data)"
        " SELECT ?, x || '/0', x, json_set(?, '$.compile_id', x || '/0', '$.ordinal', x, '$.id.frame', x)"
        " FROM c",
        (n, rank, json.dumps(frame)),
    )
    return _done(db, out)


_PREFIX = "V1206 15:18:20.254000 1500233 torch/_dynamo/convert_frame.py:961] "


def recompile_log(out: Path, n: int = MILLION) -> Path:
    """A gzipped TORCH_TRACE log: one frame compiled once, then recompiled *n* times, each
    with its dynamo_start, recompile reason and compilation metrics (as torch writes them)."""
    with gzip.open(out, "wt", compresslevel=6) as fh:
        fh.write(_PREFIX + json.dumps({"str": ["/home/u/model.py", 0]}) + "\n")
        for compile_id in range(n + 1):
            ids = {"frame_id": 0, "frame_compile_id": compile_id, "attempt": 0}
            start = {"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 0}]}, **ids}
            fh.write(_PREFIX + json.dumps(start) + "\n")
            if compile_id:
                reason = json.dumps([f"0/{compile_id - 1}: L['x'].size()[0] == {compile_id + 1}"])
                art = {"artifact": {"name": "recompile_reasons", "encoding": "json"}, **ids}
                fh.write(_PREFIX + json.dumps(art) + "\n\t" + reason + "\n")
            metrics = {"compilation_metrics": {"co_name": "f", "co_filename": "/home/u/model.py"}, **ids}
            fh.write(_PREFIX + json.dumps(metrics) + "\n")
    return out


def _bomb(megabytes: int) -> bytes:
    inflater = zlib.compressobj(9)
    block = b"\0" * (1 << 20)
    return b"".join(inflater.compress(block) for _ in range(megabytes)) + inflater.flush()


def bomb_report(out: Path, *, count: int = 4, each_mb: int = 1000) -> Path:
    """The golden report with *count* more events whose payloads inflate to *each_mb* MB each."""
    db = _copy(out)
    blob = _bomb(each_mb)
    top = db.execute("SELECT max(seq) FROM events").fetchone()[0]
    db.executemany(
        "INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload) VALUES (?, 0, -1, '0/0', ?, '{}', ?)",
        [(top + i + 1, "inductor_output_code", blob) for i in range(count)],
    )
    return _done(db, out)


def bomb_bundle(out: Path, report: Path) -> Path:
    """A share bundle holding *report* (stored, not deflated again: the bombs are in it)."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.write(report, "report.inspectc")
        archive.writestr("summary.md", "a report\n")
    return out


def build_all(folder: Path, n: int = MILLION) -> dict[str, Path]:
    """Every hostile input, in *folder*: the five of the issue and two just under the limits."""
    folder.mkdir(parents=True, exist_ok=True)
    bombs = bomb_report(folder / "bombs.inspectc")  # 4 payloads of 1 GB each
    many = bomb_report(folder / "bombs_many.inspectc", count=16, each_mb=250)  # each under the cap
    under = bomb_report(
        folder / "bombs_under.inspectc", count=14, each_mb=1
    )  # 14 MB in all, with the report's own text under 16 MB
    return {
        "kernels": many_kernels(folder / "kernels.inspectc", n),
        "frames": many_frames(folder / "frames.inspectc", n),
        "recompiles": recompile_log(folder / "recompiles.log.gz", n),
        "bombs": bombs,
        "bundle": bomb_bundle(folder / "bombs.zip", bombs),
        "bombs_many": many,
        "bundle_many": bomb_bundle(folder / "bombs_many.zip", many),
        "bombs_under": under,  # just under share's text limit: redacted whole
        "bundle_under": bomb_bundle(folder / "bombs_under.zip", under),
        # just under the row limits (MAX_KERNELS, MAX_FRAMES): read whole, so they must be quick
        "kernels_under": many_kernels(folder / "kernels_under.inspectc", UNDER_KERNELS),
        "frames_under": many_frames(folder / "frames_under.inspectc", UNDER_FRAMES),
    }


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "hostile")
    for name, path in build_all(target).items():
        print(f"{name}: {path} ({path.stat().st_size / 1e6:.1f} MB)")
