"""Bad and hostile reports: readers give one clear line and exit 2, show untrusted text literally.

A report is attached to a bug and opened by a stranger, so nothing in it is trusted: not its
bytes (truncated, random, another SQLite file, a newer schema, zip bombs, 100,000-deep JSON),
not its text (Rich markup, ANSI escapes, HTML/DOT metacharacters), not a bundle's members
(``../``, absolute paths, symlinks). Fuzz tests (hypothesis, fixed budget, derandomized) feed
mutated TORCH_TRACE logs to the importer and mutated golden reports to the readers: the only
allowed outcomes are success or an ``InspectcError``. No torch needed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPORTS, ROOT, default_sigint, quick_first, run_cli

from inspectc.capture.importer import import_logs
from inspectc.errors import InspectcError, ReportError, UsageError
from inspectc.model import CompileId
from inspectc.render.export import export_report
from inspectc.render.terminal import render_summary
from inspectc.store import schema
from inspectc.store.open import open_report
from inspectc.store.reader import Report
from inspectc.store.schema import compress

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

GOLDEN = REPORTS / "sin_sin.inspectc"  # the smallest golden report (real capture)
BIG_GOLDEN = REPORTS / "graph_breaks.inspectc"
FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

try:
    import inspectc_tui  # noqa: F401

    READER_COMMANDS = ["summary", "export", "tui"]
except ImportError:
    READER_COMMANDS = ["summary", "export"]


@pytest.fixture(autouse=True)
def _goldens() -> None:
    if not GOLDEN.exists() or not BIG_GOLDEN.exists():
        pytest.skip("golden reports (samples/reports) are missing")


def one_clear_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:500], proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("inspectc: ")
    return lines[0]


def edit(report: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    """Change a report file directly with SQL, as a hostile author would."""
    db = sqlite3.connect(report)
    try:
        for sql, args in statements:
            db.execute(sql, args)
        db.commit()
    finally:
        db.close()


def copy_golden(tmp_path: Path, name: str = "r.inspectc", source: Path = GOLDEN) -> Path:
    target = tmp_path / name
    shutil.copyfile(source, target)
    return target


def read_everything(path: Path) -> None:
    """What the readers do with a report: every table, every payload, summary and export."""
    with open_report(path) as r:
        _ = r.run, r.inspectc_version, r.torch_version
        frames = r.frames
        kernels = r.kernels
        for frame in frames:
            for kind in frame.graph_kinds:
                r.graph(frame.compile_id, kind)
            r.frame_kernels(frame.compile_id)
        for kernel in kernels[:50]:
            r.kernel_source(kernel)
        for event in r.events(limit=500):
            r.event_payload(event.seq)
        render_summary(r)
        json.dumps(export_report(r))


# -- files that are not (good) reports ----------------------------------------------------------

DEEP = 100_000


def nested(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def bad_file(kind: str, folder: Path) -> tuple[Path, str]:
    """A bad report of *kind* and a phrase its one-line error must contain."""
    path = folder / f"{kind}.inspectc"
    rng = random.Random(kind)
    if kind == "zero-byte":
        path.write_bytes(b"")
        return path, "empty (0 bytes)"
    if kind == "random-bytes":
        path.write_bytes(bytes(rng.getrandbits(8) for _ in range(65536)))
        return path, "not an inspectc report"
    if kind == "sqlite-magic-then-garbage":
        path.write_bytes(b"SQLite format 3\x00" + bytes(rng.getrandbits(8) for _ in range(8192)))
        return path, "not a readable inspectc report"
    if kind == "truncated":
        data = GOLDEN.read_bytes()
        path.write_bytes(data[: len(data) // 3])
        return path, str(path)
    if kind == "another-sqlite":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes(x)")
        return path, "not an inspectc report"
    if kind == "newer-schema":
        copy_golden(folder, path.name)
        edit(path, ("UPDATE meta SET value = '999' WHERE key = 'schema_version'", ()))
        return path, "upgrade inspectc"
    if kind in ("negative-schema", "schema-zero"):  # below 1: never written by any inspectc
        copy_golden(folder, path.name)
        version = "-1" if kind == "negative-schema" else "0"
        edit(path, ("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,)))
        return path, f"report schema {version} is not a schema inspectc ever wrote"
    if kind == "json-file":
        path.write_text(run_cli("export", str(GOLDEN)).stdout)
        return path, "not an inspectc report"
    if kind == "100mb-not-a-report":
        with path.open("wb") as fh:
            fh.truncate(100 * 1024 * 1024)  # sparse: 100 MB of zeros
        return path, "not an inspectc report"
    if kind == "deep-run-json":
        copy_golden(folder, path.name)
        edit(path, ("UPDATE meta SET value = ? WHERE key = 'run'", (nested(DEEP),)))
        return path, "corrupt 'run' entry"
    if kind == "deep-frame-json":
        copy_golden(folder, path.name)
        edit(path, ("UPDATE frames SET data = ?", (nested(DEEP),)))
        return path, "corrupt frame entry"
    if kind == "wrong-types":
        copy_golden(folder, path.name)
        frame = json.loads(sqlite3.connect(path).execute("SELECT data FROM frames").fetchone()[0])
        frame["line"], frame["graph_breaks"] = "12", [{"reason": 5}]
        edit(path, ("UPDATE frames SET data = ?", (json.dumps(frame),)))
        return path, "corrupt frame entry"
    if kind == "null-compile-id":  # the typed id of a frame, from untrusted JSON
        copy_golden(folder, path.name)
        frame = json.loads(sqlite3.connect(path).execute("SELECT data FROM frames").fetchone()[0])
        frame["compile_id"] = None
        edit(path, ("UPDATE frames SET data = ?", (json.dumps(frame),)))
        return path, "corrupt frame entry"
    if kind == "fifo":
        os.mkfifo(path)
        return path, "not a regular file"
    raise AssertionError(kind)


BAD_KINDS = [
    "zero-byte",
    "random-bytes",
    "sqlite-magic-then-garbage",
    "truncated",
    "another-sqlite",
    "newer-schema",
    "negative-schema",
    "schema-zero",
    "json-file",
    "100mb-not-a-report",
    "deep-run-json",
    "deep-frame-json",
    "wrong-types",
    "null-compile-id",
    "fifo",
]


@pytest.mark.parametrize("kind", quick_first(BAD_KINDS, quick=3))
def test_bad_report_is_one_clear_line(kind: str, tmp_path: Path) -> None:
    path, phrase = bad_file(kind, tmp_path)
    # Frames load after the TUI's window opens (it shows such errors there): not for `tui`.
    lazy = kind in ("deep-frame-json", "wrong-types", "null-compile-id")
    for command in [c for c in READER_COMMANDS if not (lazy and c == "tui")]:
        line = one_clear_line(run_cli(command, str(path), timeout=120))
        assert phrase in line, (command, line)


def test_odd_compile_ids_read_as_not_known(tmp_path: Path) -> None:
    """Ids that str.isdigit() accepts but int() does not ("²"), or past int()'s 4,300 digits."""
    path = copy_golden(tmp_path)
    frame = json.loads(sqlite3.connect(path).execute("SELECT data FROM frames").fetchone()[0])
    frame["compile_id"] = "\u00b2/" + "9" * 5000
    edit(path, ("UPDATE frames SET data = ?", (json.dumps(frame),)))
    for command in ("summary", "export"):
        proc = run_cli(command, str(path), timeout=120)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_100mb_payload_is_read_lazily(tmp_path: Path) -> None:
    """A real (not bomb-sized) 100 MB payload: the summary never loads it; export writes it."""
    path = copy_golden(tmp_path)
    big = "# " + "x" * 78 + "\n"
    text = big * (100 * 1024 * 1024 // len(big))
    with open_report(path) as r:
        frame = r.frames[0]
        seq = next(e.seq for e in r.events(frame.compile_id) if e.name == "inductor_output_code")
    edit(path, ("UPDATE events SET payload = ? WHERE seq = ?", (compress(text), seq)))
    summary = run_cli("summary", str(path), timeout=120)
    assert summary.returncode == 0, summary.stderr
    exported = run_cli("export", str(path), "-o", str(tmp_path / "out.json"), timeout=300)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "out.json").stat().st_size > 100 * 1024 * 1024


def zip_bomb(size: int) -> bytes:
    squeeze = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    return b"".join(squeeze.compress(chunk) for _ in range(size >> 20)) + squeeze.flush()


def test_zip_bomb_payload_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The real cap is 256 MiB (schema.MAX_PAYLOAD_BYTES); 8 MiB here keeps the test fast.
    monkeypatch.setattr(schema, "MAX_PAYLOAD_BYTES", 8 << 20)
    path = copy_golden(tmp_path)
    with open_report(path) as r:
        seq = next(e.seq for e in r.events() if e.name == "inductor_output_code")
    edit(path, ("UPDATE events SET payload = ? WHERE seq = ?", (zip_bomb(64 << 20), seq)))
    assert path.stat().st_size < 2 * GOLDEN.stat().st_size
    with open_report(path) as r:
        render_summary(r)  # payloads load lazily: the summary never inflates one
        with pytest.raises(
            ReportError, match=f"event {seq}: corrupt payload \\(inflates past 8 MB: refused\\)"
        ):
            export_report(r)


def test_deep_event_metadata_is_kept_raw(tmp_path: Path) -> None:
    path = copy_golden(tmp_path)
    edit(path, ("UPDATE events SET metadata = ? WHERE seq = 1", (nested(DEEP),)))
    with open_report(path) as r:
        first = next(r.events())
        assert set(first.metadata) == {"unparsed"}
    proc = run_cli("export", str(path))
    assert proc.returncode == 0, proc.stderr


def test_deep_trace_log_is_one_clear_line(tmp_path: Path) -> None:
    log = tmp_path / "deep.log"
    log.write_text(
        'V1202 17:00:00.000000 4242 torch/_logging/structured.py:28] {"dynamo_start": {"stack": []},'
        ' "frame_id": 0, "frame_compile_id": 0, "attempt": 0}\n'
        f"V1202 17:00:00.100000 4242 torch/_logging/structured.py:28] {nested(DEEP)}\n"
    )
    proc = run_cli("import", str(log), "-o", str(tmp_path / "deep.inspectc"))
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode == 0:  # the line was skipped as malformed
        read_everything(tmp_path / "deep.inspectc")
    else:
        one_clear_line(proc)


# -- untrusted text is shown literally -------------------------------------------------------

HOSTILE = (
    "[bold red]boom[/] \x1b[31mred\x1b[0m\x07 <script>alert(1)</script> &amp; "
    '"quoted" {curly} |pipe| <b>bold</b> evil" ]; x -> pwned [label="pwned'
)


@pytest.fixture
def hostile_report(tmp_path: Path) -> Path:
    path = copy_golden(tmp_path, "hostile.inspectc", BIG_GOLDEN)
    db = sqlite3.connect(path)
    try:
        for rank, cid, data in db.execute("SELECT rank, compile_id, data FROM frames").fetchall():
            frame = json.loads(data)
            frame["function"] = HOSTILE
            for gb in frame.get("graph_breaks") or []:
                gb["reason"] = HOSTILE
            db.execute(
                "UPDATE frames SET data = ? WHERE rank = ? AND compile_id = ?", (json.dumps(frame), rank, cid)
            )
        db.execute("UPDATE kernels SET name = ?", (HOSTILE,))
        db.commit()
    finally:
        db.close()
    return path


def test_summary_shows_hostile_text_literally(hostile_report: Path) -> None:
    proc = run_cli("summary", str(hostile_report))
    assert proc.returncode == 0, proc.stderr
    assert "[bold red]boom[/]" in proc.stdout  # markup shown, not applied
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout  # no terminal escapes get through


def test_export_keeps_hostile_text_exactly(hostile_report: Path) -> None:
    proc = run_cli("export", str(hostile_report))
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout  # JSON escapes control characters
    data = json.loads(proc.stdout)
    assert {f["function"] for f in data["frames"]} == {HOSTILE}


def test_graphviz_escapes_hostile_labels(hostile_report: Path, tmp_path: Path) -> None:
    proc = run_cli("graph", str(hostile_report))
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout
    if shutil.which("dot") is None:
        pytest.skip("graphviz `dot` is not installed")
    rendered = subprocess.run(["dot", "-Tsvg"], input=proc.stdout, capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr  # the DOT is still valid
    assert "<title>pwned</title>" not in rendered.stdout  # no node injected through a label
    assert "<script>" not in rendered.stdout


@pytest.mark.slow
def test_share_html_and_markdown_escape_hostile_text(hostile_report: Path, tmp_path: Path) -> None:
    out = tmp_path / "shared"
    proc = run_cli("share", str(hostile_report), "--html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    pages = list(out.glob("*.html"))
    assert pages
    for page in pages:
        html = page.read_text()
        assert "<script>alert(1)</script>" not in html and "<b>bold</b>" not in html
        assert "&lt;script&gt;" in html
    for md in out.glob("*.md"):
        assert "\x1b" not in md.read_text()


# -- bundles from strangers ----------------------------------------------------------------------


def make_zip(path: Path, members: list[tuple[str, bytes, int | None]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = mode << 16
            archive.writestr(info, data)
    return path


@pytest.mark.parametrize(
    "kind,members,phrase",
    quick_first(
        [
            ("dotdot", [("../evil.inspectc", b"x", None)], "outside the bundle"),
            ("symlink", [("report.inspectc", b"/etc/passwd", stat.S_IFLNK | 0o777)], "not a plain file"),
            ("dotdot-inside", [("report.inspectc/../../evil.inspectc", b"x", None)], "outside the bundle"),
            ("absolute", [("/tmp/evil-inspectc-test.inspectc", b"x", None)], "outside the bundle"),
            ("two-reports", [("a.inspectc", b"x", None), ("b.inspectc", b"x", None)], "several reports"),
            ("no-report", [("notes.txt", b"hello", None)], "no report"),
        ],
        quick=2,
    ),
)
def test_hostile_bundle_is_refused(
    kind: str, members: list[tuple[str, bytes, int | None]], phrase: str, tmp_path: Path
) -> None:
    real = GOLDEN.read_bytes()
    members = [(name, real if data == b"x" else data, mode) for name, data, mode in members]
    work = tmp_path / "deep" / "inside"
    work.mkdir(parents=True)
    bundle = make_zip(work / f"{kind}.zip", members)
    for command in READER_COMMANDS:
        line = one_clear_line(run_cli(command, str(bundle), cwd=work))
        assert phrase in line, line
    assert not (tmp_path / "deep" / "evil.inspectc").exists()
    assert not (tmp_path / "evil.inspectc").exists()
    assert not Path("/tmp/evil-inspectc-test.inspectc").exists()


def test_good_bundle_opens(tmp_path: Path) -> None:
    bundle = make_zip(tmp_path / "ok.zip", [("report.inspectc", GOLDEN.read_bytes(), 0o644 | stat.S_IFREG)])
    proc = run_cli("summary", str(bundle))
    assert proc.returncode == 0 and "frame" in proc.stdout, proc.stderr


# -- reader modules: no code execution of report content (torch-free: test_import_hygiene.py) --

# Calls that would run or unpickle report content.
_FORBIDDEN_CALLS = {
    "eval",
    "exec",
    "pickle.load",
    "pickle.loads",
    "pickle.Unpickler",
    "marshal.load",
    "marshal.loads",
    "yaml.load",
    "yaml.unsafe_load",
    "yaml.full_load",
    "torch.load",
    "dill.load",
    "dill.loads",
    "shelve.open",
    "cloudpickle.load",
    "cloudpickle.loads",
}
_FORBIDDEN_IMPORTS = {"pickle", "marshal", "shelve", "dill", "cloudpickle", "_pickle"}


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def forbidden_uses(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in _FORBIDDEN_CALLS:
                yield f"{path.name}:{node.lineno}: {name}()"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _FORBIDDEN_IMPORTS:
                    yield f"{path.name}:{node.lineno}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] in _FORBIDDEN_IMPORTS:
                yield f"{path.name}:{node.lineno}: from {node.module} import ..."


def reader_files() -> list[Path]:
    files = sorted(p for p in (ROOT / "inspectc").rglob("*.py") if "capture" not in p.parts)
    files += sorted((ROOT / "tui" / "inspectc_tui").rglob("*.py"))
    return [f for f in files if f.exists()]


def test_readers_never_eval_exec_or_unpickle() -> None:
    files = reader_files()
    assert len(files) >= 10
    found = [use for path in files for use in forbidden_uses(path)]
    assert not found, found


def test_the_ast_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import pickle\nimport yaml, torch\neval('1')\nyaml.load(s)\ntorch.load(p)\n")
    assert len(list(forbidden_uses(bad))) == 4


# -- fuzz: the TORCH_TRACE importer ------------------------------------------------------------


def trace_lines(report: Path) -> list[str]:
    """A real TORCH_TRACE log, rebuilt from the raw events a real capture stored."""
    lines: list[str] = []
    with open_report(report) as r:
        for n, event in enumerate(r.events()):
            metadata = dict(event.metadata)
            payload = r.event_payload(event.seq)
            if payload is not None:
                payload = payload[:4000]
                metadata["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
            lines.append(
                f"V1202 17:00:{n // 1000 % 60:02d}.{n % 1000:06d} 4242 torch/_logging/structured.py:28]"
                f" {json.dumps(metadata)}"
            )
            lines.extend("\t" + line for line in (payload.split("\n") if payload is not None else []))
    return lines


BASE_LOG = trace_lines(GOLDEN) if GOLDEN.exists() else []

_json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=20)
)
_json = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_EVENT_KEYS = [
    "dynamo_start",
    "compilation_metrics",
    "bwd_compilation_metrics",
    "artifact",
    "str",
    "inductor_output_code",
    "dynamo_output_graph",
    "dynamo_cpp_guards_str",
    "inspectc_kernel_times",
    "frame_id",
    "frame_compile_id",
    "compiled_autograd_id",
    "rank",
    "attempt",
    "has_payload",
]
_metadata = st.dictionaries(st.sampled_from(_EVENT_KEYS), _json, min_size=1, max_size=5)
_record = st.builds(
    lambda md, payload: (
        [f"V1202 17:00:00.000000 4242 x.py:1] {json.dumps(md)}"] + ["\t" + line for line in payload]
    ),
    _metadata,
    st.lists(st.text(st.characters(blacklist_characters="\n\r"), max_size=40), max_size=3),
)


@st.composite
def mutated_log(draw: st.DrawFn) -> str:
    lines = list(BASE_LOG)
    for _ in range(draw(st.integers(0, 8))):
        op = draw(st.sampled_from(["delete", "duplicate", "garble", "truncate", "insert", "record"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            break
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "garble":
            line = lines[i]
            j = draw(st.integers(0, max(len(line) - 1, 0)))
            lines[i] = line[:j] + draw(st.text(max_size=3)) + line[j + 1 :]
        elif op == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "insert":
            lines.insert(i, draw(st.text(max_size=60)))
        else:
            lines[i:i] = draw(_record)
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"]))


def import_and_read(text: str) -> None:
    with tempfile.TemporaryDirectory(prefix="inspectc-fuzz-") as tmp:
        log, out = Path(tmp) / "trace.log", Path(tmp) / "out.inspectc"
        log.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            import_logs(log, out)
        except InspectcError:
            return
        try:
            read_everything(out)
        except InspectcError:
            pass


@pytest.mark.slow
@FUZZ
@given(mutated_log())
def test_fuzz_import_mutated_real_log(text: str) -> None:
    import_and_read(text)


@pytest.mark.slow
@FUZZ
@given(st.lists(_record, max_size=12).map(lambda recs: "\n".join(line for rec in recs for line in rec)))
@example('V1202 17:00:00.000000 4242 x.py:1] {"dynamo_start": 1, "compiled_autograd_id": 0}')  # no dict
def test_fuzz_import_random_records(text: str) -> None:
    import_and_read(text)


# -- fuzz: the report loader -------------------------------------------------------------------

GOLDEN_BYTES = GOLDEN.read_bytes() if GOLDEN.exists() else b""


@st.composite
def report_damage(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int | None, int | None]:
    """Byte overwrites, maybe a zeroed page (a torn write), maybe a truncation."""
    size = len(GOLDEN_BYTES)
    flips = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, 255)), min_size=1, max_size=16))
    page = draw(st.none() | st.integers(0, size // 4096 - 1))
    cut = draw(st.none() | st.none() | st.none() | st.integers(0, size))
    return flips, page, cut


def damaged(flips: list[tuple[int, int]], page: int | None, cut: int | None) -> bytes:
    data = bytearray(GOLDEN_BYTES)
    for offset, value in flips:
        data[offset] = value
    if page is not None:
        data[page * 4096 : (page + 1) * 4096] = bytes(4096)
    return bytes(data[:cut] if cut is not None else data)


@pytest.mark.slow
@FUZZ
@given(report_damage())
def test_fuzz_open_mutated_golden_report(
    damage: tuple[list[tuple[int, int]], int | None, int | None],
) -> None:
    with tempfile.TemporaryDirectory(prefix="inspectc-fuzz-") as tmp:
        path = Path(tmp) / "r.inspectc"
        path.write_bytes(damaged(*damage))
        try:
            read_everything(path)
        except InspectcError:
            pass


def test_fuzz_inputs_are_real() -> None:
    assert len(BASE_LOG) > 50 and GOLDEN_BYTES.startswith(b"SQLite format 3\x00")
    with open_report(GOLDEN) as r:
        assert isinstance(r, Report) and r.frames


EMPTY_PATH_COMMANDS = [
    ["summary", ""],
    ["export", ""],
    ["kernels", ""],
    ["check", ""],
    ["graph", ""],
    ["share", ""],
    ["share", "--check", ""],
    ["tui", ""],
    ["tui", "", "--follow"],
    ["import", "", "-o", "x.inspectc"],
    ["merge", "", "-o", "m.inspectc"],
    ["diff", "", "r.inspectc"],
    ["export", "r.inspectc", "-o", ""],
    ["share", "r.inspectc", "-o", ""],
    ["import", "t.log", "-o", ""],
    ["run", ""],
    ["run", "-m", ""],
    ["run", "-o", "", "s.py"],
]


@pytest.mark.slow
def test_an_empty_path_is_refused_not_the_current_folder(tmp_path: Path, traces_dir: Path) -> None:
    """``Path("")`` is ``.``: ``summary ""`` opened the folder it ran in. Here that folder holds
    a report, a log and a script, so any command that took "" for "." would succeed."""
    copy_golden(tmp_path, "r.inspectc")
    shutil.copyfile(traces_dir / "simple.log", tmp_path / "t.log")
    (tmp_path / "s.py").write_text("print('the script ran')\n")
    (tmp_path / "__main__.py").write_text("print('the folder ran')\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in EMPTY_PATH_COMMANDS:
        proc = run_cli(*args, cwd=tmp_path, timeout=60)
        line = one_clear_line(proc)
        assert "(an empty path)" in line or "give a script to run" in line, (args, line)
        assert "ran" not in proc.stdout, args
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


# -- every text field planted, every command through a terminal (issue 17, items 4 and 13) -----

# OSC 52 (writes the clipboard), CSI 2J (clears the screen), OSC 8 (a link the text hides).
TERMINAL_ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"
# Names GitHub would notify, a C1 CSI, right-to-left override, isolates, NEL, line separator.
SOCIAL = " @octocat @org/team \x9b2J \u202eevil\u202c \u2066x\u2069 \x85 \u2028 "
_KEEP_KEYS = {"status", "graph_kinds", "graph_kind"}  # what readers look up by: left as is


def taint(value: object, evil: str, key: str = "", *, keys: bool = False) -> object:
    """*value* with *evil* appended to every string in it (with *keys*, dict keys too)."""
    if isinstance(value, str):
        return value if key in _KEEP_KEYS else value + evil
    if isinstance(value, dict):
        return {
            (k + evil if keys else k): taint(v, evil, k, keys=keys or k in ("meta", "cache", "options"))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [taint(v, evil, key, keys=keys) for v in value]
    return value


def planted_report(target: Path, evil: str, source: Path = BIG_GOLDEN) -> Path:
    """A real report with *evil* in every text field (run, frames, kernels, compile ids,
    event metadata and payloads), written by :class:`ReportWriter` like any report."""
    from inspectc.model import Frame, Kernel, Run, from_plain, to_plain
    from inspectc.store.writer import ReportWriter

    def typed(cls: type, plain: object) -> object:
        return from_plain(cls, taint(plain, evil))

    raw = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
    graphs = raw.execute("SELECT rank, compile_id, kind, seq, start, stop FROM graphs").fetchall()
    spans = {kid: (seq, a, b) for kid, seq, a, b in raw.execute("SELECT id, seq, start, stop FROM kernels")}
    raw.close()
    sliced = {g[3] for g in graphs} | {seq for seq, _, _ in spans.values()}

    def tainted(seq: int, payload: str) -> str:
        """A sliced payload gets *evil* at its end (its slices stay where they were); a JSON
        one (run records) inside its strings, so it stays JSON."""
        if seq not in sliced:
            try:
                return json.dumps(taint(json.loads(payload), evil))
            except ValueError:
                pass
        return payload + evil

    writer = ReportWriter(target)
    with open_report(source) as r:
        writer.set_meta("inspectc_version", (r.inspectc_version or "0") + evil)
        writer.set_meta("run", typed(Run, to_plain(r.run)))
        seqs: dict[int, int] = {}
        for e in r.events():
            payload = r.event_payload(e.seq)
            seqs[e.seq] = writer.add_event(
                name=e.name,
                metadata=taint(e.metadata, evil, keys=True),  # type: ignore[arg-type]
                payload=None if payload is None else tainted(e.seq, payload),
                compile_id=None if e.compile_id_text is None else e.compile_id_text + evil,
                rank=e.rank,
                ts=e.ts,
            )
        for f in r.frames:
            writer.put_frame(typed(Frame, to_plain(f)))  # type: ignore[arg-type]
        for k in r.kernels:
            seq, start, stop = spans[k.id]
            kernel = typed(Kernel, to_plain(k))
            writer.add_kernel(kernel, seq=seqs[seq], start=start, stop=stop)  # type: ignore[arg-type]
    for rank, cid, kind, seq, start, stop in graphs:
        writer.put_graph(
            rank=None if rank == -1 else rank,
            compile_id=cid + evil,
            kind=kind,
            seq=seqs[seq],
            start=start,
            stop=stop,
        )
    writer.close()
    return target


@pytest.mark.slow
def test_mentions_c1_and_bidi_reach_no_markdown_html_or_json(tmp_path: Path) -> None:
    report = planted_report(tmp_path / "social.inspectc", SOCIAL)
    out = tmp_path / "shared"
    # the planted text (mentions, bidi, a random tail) is what detect-secrets calls high entropy:
    # share refuses it unless told; this test is about what reaches the outputs once written
    proc = run_cli("share", str(report), "--html", "-o", str(out), "--allow-flagged")
    assert proc.returncode == 0, proc.stderr
    markdown = (out / "social.share.md").read_text()
    page = (out / "social.share.html").read_text()
    exported = run_cli("export", str(report))
    assert exported.returncode == 0, exported.stderr
    unsafe = "\x9b\x85\u202e\u202c\u2066\u2069\u2028"
    for name, text in (("markdown", markdown), ("html", page), ("json", exported.stdout)):
        found = sorted({f"U+{ord(ch):04X}" for ch in text if ch in unsafe})
        assert not found, (name, found)
    prose = re.sub(r"(`{3,})[^\n]*\n.*?\n\1\n|(`+)[^`]*?\2", "", markdown, flags=re.DOTALL)
    assert "@octocat" not in prose and "@org/team" not in prose  # nobody is notified (code does not)
    assert "@\u200doctocat" in markdown  # but the text still reads the same
    data = json.loads(exported.stdout)  # JSON escapes them: the values stay exact
    assert all(f["function"].endswith(SOCIAL) for f in data["frames"] if f["function"])


def _through_a_terminal(args: list[str], cwd: Path, timeout: float = 120) -> tuple[int, bytes]:
    """Run the installed CLI with stdout and stderr on a pseudo-terminal; all it wrote."""
    import pty
    import select
    import time

    from conftest import inspectc_cmd

    command = [*inspectc_cmd(), *args]
    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes the command
        os.chdir(cwd)
        os.execv(command[0], command)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(fd)
    if time.monotonic() >= deadline:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), bytes(out)


def planted_log(folder: Path, evil: str, source: Path) -> Path:
    """A real TORCH_TRACE log named with *evil*, ending in a record of a kind nobody knows
    whose name and fields hold *evil*, and a line that is no record at all."""
    log = folder / ("trace" + evil.replace("/", "|") + ".log")
    unknown = json.dumps({"evil_record" + evil: {"text": evil}, "frame_id": 0, "frame_compile_id": 0})
    tail = f"V1206 15:18:18.000000 1 torch/x{evil.replace(' ', '')}.py:1] {unknown}\n"
    log.write_text(source.read_text() + tail + f"not a record {evil}\n")
    return log


def planted_kernel(target: Path, evil: str) -> Path:
    """The golden report with *evil* at the end of its kernel's name and inside its C++ source
    (written over the source's own characters: the kernel's slice stays where it was)."""
    shutil.copyfile(GOLDEN, target)
    db = sqlite3.connect(target)
    db.execute("UPDATE kernels SET name = name || ? WHERE id = 1", (evil,))
    seq, start, stop = db.execute("SELECT seq, start, stop FROM kernels WHERE id = 1").fetchone()
    at = (start + stop) // 2  # inside the kernel's body
    text = zlib.decompress(
        db.execute("SELECT payload FROM events WHERE seq = ?", (seq,)).fetchone()[0]
    ).decode()
    text = text[:at] + evil + text[at + len(evil) :]
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (compress(text), seq))
    db.commit()
    db.close()
    return target


@pytest.mark.slow
def test_no_escape_from_a_report_reaches_the_terminal(tmp_path: Path, traces_dir: Path) -> None:
    """Every command, run on a report with OSC 52, CSI 2J and OSC 8 in every text field (and
    on a log, a bundle, a merged report made from it), writes none of them to the terminal."""
    evil = TERMINAL_ESCAPES + SOCIAL
    report = planted_report(tmp_path / "evil.inspectc", evil)
    other = planted_report(tmp_path / "other.inspectc", evil, GOLDEN)
    log = planted_log(tmp_path, evil, traces_dir / "simple.log")
    with open_report(report) as r:
        cid = next(str(f.compile_id) for f in r.frames if "post_grad" in f.graph_kinds)
    bundle = tmp_path / "shared" / "evil.share.zip"
    named = tmp_path / ("named" + evil.replace("/", "|") + ".inspectc")  # escapes in a file name
    shutil.copyfile(GOLDEN, named)
    kernel = planted_kernel(tmp_path / "kernel.inspectc", evil)
    commands = [
        ["summary", str(report)],
        ["export", str(report), "--pretty"],
        ["kernels", str(report)],
        ["kernels", str(report), "--frame", "nope"],
        ["share", str(report), "-o", str(tmp_path / "shared")],
        ["diff", str(other), str(report)],
        ["diff", str(other), str(report), "--json"],
        ["check", str(report), "--max-graph-breaks", "0", "--fail-on-error"],
        ["check", str(report), "--max-graph-breaks", "0", "--json"],
        ["graph", str(report)],
        ["graph", str(report), "--frame", "nope"],
        ["graph", str(report), "--frame", cid],
        ["merge", str(report), str(other), "-o", str(tmp_path / "merged.inspectc")],
        ["summary", str(tmp_path / "merged.inspectc")],  # the ranks table
        ["kernels", str(tmp_path / "merged.inspectc")],
        ["check", str(tmp_path / "merged.inspectc"), "--max-recompiles", "0"],
        ["kernels", str(report), "--frame", cid],
        ["share", "--check", str(bundle)],
        ["share", str(report), "--no-redact", "--html", "-o", str(tmp_path / "raw")],
        ["share", "--check", str(tmp_path / "raw" / "evil.share.zip")],
        ["summary", str(bundle)],
        ["graph", str(report), "-o", str(tmp_path / "breaks.dot")],
        ["import", str(log), "-o", str(tmp_path / "imported.inspectc")],
        ["summary", str(tmp_path / "imported.inspectc")],
        ["export", str(tmp_path / "imported.inspectc"), "-o", str(tmp_path / "imported.json")],
        ["import", str(tmp_path / ("missing" + evil.replace("/", "|")))],
        ["summary", str(tmp_path / ("missing" + evil.replace("/", "|")))],
        ["summary", str(named)],
        ["kernels", str(named)],
        ["check", str(named), "--max-frames", "0"],
        ["share", str(named), "--html", "-o", str(tmp_path / "named")],
        ["graph", str(named), "-o", str(tmp_path / "named.svg")],
        ["export", str(named), "-o", str(named) + ".json"],
        ["merge", str(named), "-o", str(named) + ".merged.inspectc"],
        ["diff", str(named), str(report)],
        ["ir", str(kernel), "1"],  # a kernel's name and C++ source
        ["repro", str(kernel), "1"],  # the script, to the terminal
        ["repro", str(kernel), "1", "-o", str(tmp_path / "repro.py")],
    ]
    leaks = []
    for args in commands:
        code, out = _through_a_terminal(args, tmp_path)
        assert b"Traceback" not in out, (args, out[-2000:])
        assert out.strip() or args[0] in ("export",), args  # the terminal did see the command's output
        assert code in (0, 1, 2), (args, code, out[-2000:])
        text = out.decode("utf-8", "replace")
        found = sorted({f"U+{ord(ch):04X}" for ch in text if ch in "\x1b\x07\x9b\x85\u202e\u2066\u2028"})
        if found:
            leaks.append(
                f"{args[0]} {' '.join(a for a in args[1:] if not a.startswith(str(tmp_path)))}: {found}"
            )
    assert not leaks, "\n".join(leaks)


# -- a break's source file, as the TUI reads it (issue 17, item 10) ----------------------------


def test_tui_reads_only_bounded_regular_source_files(tmp_path: Path) -> None:
    """A report naming /proc/self/pagemap at line 10**9 (endless), /proc/kmsg (consumed by
    reading) or a FIFO (blocks): each gives a note at once, in bounded memory."""
    pytest.importorskip("inspectc_tui")
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    probe = (
        "import sys, time\n"
        "from inspectc_tui.source import excerpt\n"
        "for name in sys.argv[1:]:\n"
        "    t = time.monotonic()\n"
        "    found = excerpt(name, 10**9, run_cwd=None, report_path=None)\n"
        "    print(name, round(time.monotonic() - t, 2), found.note, len(found.lines))\n"
    )
    import resource

    def limit() -> None:  # 2 GiB of address space: a read past the bound fails, not the machine
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    names = ["/proc/self/pagemap", "/proc/kmsg", "/dev/zero", str(fifo)]
    proc = subprocess.run(
        [sys.executable, "-c", probe, *names], capture_output=True, text=True, timeout=60, preexec_fn=limit
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split(" ", 2) for line in proc.stdout.splitlines()]
    assert [r[0] for r in rows] == names
    for name, seconds, note in rows:
        assert float(seconds) < 2, (name, seconds)
        assert note.rsplit(" ", 1)[-1] == "0", (name, note)  # no lines shown
        assert "None" not in note, (name, note)  # a note says why

    from inspectc_tui.source import excerpt

    src = tmp_path / "m.py"
    src.write_text("x = 1\n" * 100_000)
    cancelled = excerpt(str(src), 5, run_cwd=None, report_path=None, cancelled=lambda: True)
    assert cancelled.note == f"reading {src} was cancelled" and not cancelled.lines
    assert excerpt(str(src), 99_999, run_cwd=None, report_path=None).lines[0] == "x = 1"


# -- sharing: nothing private, nothing derived from it (issue 17, items 1 and 2) ---------------

TOKENS = (
    "hf_" + "aB3" * 12,
    "ghp_" + "Z9y" * 12,
    "github_pat_11ABCDEFG0" + "x_Y" * 10,
    "AKIA" + "ABCDEFGHIJ234567",
    "sk-proj-" + "Qw3" * 10,
    "xoxb-" + "1234-5678-abcdEFGH",
)
RANK_USERS = ("bobsmithq", "carolq", "dv")  # dv: too short for a word, still a path part
RANK_HOSTS = ("qnode-17", "qnode-99")


def rank_report(path: Path, rank: int) -> Path:
    """One rank's report, made with the report factory, naming its user, host and tokens."""
    from inspectc.model import Frame, Run
    from inspectc.store.factory import ReportFactory

    user = RANK_USERS[rank]
    home = f"/data/users/{user}" if rank == 0 else f"/scratch/{user}"
    argv = ["inspectc", "run", f"{home}/train.py", "--hf-token", TOKENS[0], f"--gh={TOKENS[1]}"]
    argv += [f"API_KEY={TOKENS[2]}", *TOKENS[3:]]
    run = Run(
        argv=tuple(argv), cwd=home, hostname=RANK_HOSTS[rank], rank=rank, world_size=2, end_reason="exit"
    )
    made = ReportFactory(path, run, rank=rank)
    payload = f"# compiled in {home} on {RANK_HOSTS[rank]}; cache /mnt/cache/{RANK_USERS[2]}/x\n"
    metadata = {
        "has_payload": hashlib.md5(payload.encode()).hexdigest(),
        "filename": f"/tmp/torchinductor_{RANK_USERS[2]}/ab/out.py",  # the cache folder names dv
    }
    made.event("inductor_output_code", payload, compile_id="0/0", metadata=metadata)
    made.frame(
        Frame(
            compile_id=CompileId.parse("0/0"),
            rank=rank,
            function="f",
            filename=f"/mnt/src/{user}/train.py",
            line=3,
        )
    )
    return made.close()


def bundle_texts(bundle: Path) -> dict[str, str]:
    """Every member of a bundle as text; the report as every cell and decompressed payload."""
    texts: dict[str, str] = {}
    with zipfile.ZipFile(bundle) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            if not name.endswith(".inspectc"):
                texts[name] = data.decode("utf-8", "replace")
                continue
            copy = bundle.parent / "member.inspectc"
            copy.write_bytes(data)
            texts[name + " bytes"] = data.decode("latin-1")
            db = sqlite3.connect(copy)
            cells = [
                str(c)
                for table in ("meta", "frames", "kernels", "graphs")
                for row in db.execute(f"SELECT * FROM {table}")
                for c in row
            ]  # noqa: S608
            for name_, metadata, blob in db.execute("SELECT name, metadata, payload FROM events"):
                cells += [name_, metadata, schema.decompress(blob) or ""]
            db.close()
            copy.unlink()
            texts[name] = "\n".join(cells)
    return texts


def test_share_redacts_every_rank_token_and_checksum(tmp_path: Path) -> None:
    ranks = [rank_report(tmp_path / f"r.rank{i}.inspectc", i) for i in range(2)]
    merged = tmp_path / "merged.inspectc"
    assert run_cli("merge", *map(str, ranks), "-o", str(merged)).returncode == 0
    proc = run_cli("share", str(merged), "--html", "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    removed = re.search(r"inspectc share: removed by rule .*", proc.stderr)
    assert removed and re.search(r"token: \d+", removed[0]) and "host name: " in removed[0], proc.stderr
    bundle = tmp_path / "out" / "merged.share.zip"
    texts = bundle_texts(bundle)
    for name in ("merged.share.md", "merged.share.html"):
        texts[name] = (tmp_path / "out" / name).read_text()
    with open_report(merged) as r:
        checksums = [e.metadata["has_payload"] for e in r.events() if "has_payload" in e.metadata]
    assert checksums
    private = (*TOKENS, *RANK_USERS[:2], f"/{RANK_USERS[2]}/", *RANK_HOSTS, "has_payload", *checksums)
    left = {(name, value) for name, text in texts.items() for value in private if value in text}
    assert not left, sorted(left)
    assert "/data/users/<user>/train.py" in texts["report.inspectc"]  # the kind of folder stays
    check = run_cli("share", "--check", str(bundle))
    assert check.returncode == 0, check.stdout + check.stderr


def test_share_check_finds_what_looks_private(tmp_path: Path) -> None:
    ranks = [rank_report(tmp_path / f"r.rank{i}.inspectc", i) for i in range(2)]
    proc = run_cli("share", str(ranks[0]), "--no-redact", "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    check = run_cli("share", "--check", str(tmp_path / "out" / "r.rank0.share.zip"))
    assert check.returncode == 1, check.stdout + check.stderr
    for kind in (
        "not redacted",
        "token (inspectc) in report.inspectc: meta run value",
        "payload checksum",
        "user name",
        "host",
    ):
        assert kind in check.stdout, (kind, check.stdout)
    assert TOKENS[0] not in check.stdout  # findings are shown masked
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    one_clear_line(run_cli("share", "--check", str(garbage)))


# -- bounded: bundle members and all payloads together (issue 17, items 8 and 9) ---------------


@pytest.mark.slow
def test_bundle_member_is_checked_before_and_capped_while_extracting(tmp_path: Path) -> None:
    """A 320 MiB member (SQLite's header, then zeros) packs into ~0.3 MB: refused at its 256 MB
    cap, in bounded time; a member without the header is refused before anything is written.
    The CLI's temporary folders go to a folder of this test's own (other processes on the
    machine make theirs in the shared one meanwhile)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {"TMPDIR": str(temp)}
    bomb = tmp_path / "bomb.zip"
    zeros = bytes(1 << 24)
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("report.inspectc", "w", force_zip64=True) as member:
            member.write(schema.SQLITE_MAGIC)
            for _ in range(20):
                member.write(zeros)
    assert bomb.stat().st_size < 4 << 20
    line = one_clear_line(run_cli("summary", str(bomb), env=env, timeout=120))
    assert "report member inflates past 256 MB" in line, line
    not_report = tmp_path / "text.zip"
    with zipfile.ZipFile(not_report, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("report.inspectc", "w", force_zip64=True) as member:
            for _ in range(20):
                member.write(zeros)
    line = one_clear_line(run_cli("summary", str(not_report), env=env, timeout=120))
    assert "(report inside) is not an inspectc report" in line, line
    assert not list(temp.glob("inspectc-bundle-*/report.inspectc"))


@pytest.mark.slow
def test_all_payloads_together_have_one_budget(tmp_path: Path) -> None:
    """12 payloads of 8 MB each, under the per-payload cap, against a 32 MB budget (the
    default, 2 GiB, is the same code; INSPECTC_INFLATE_BUDGET_MB makes it small here)."""
    path = copy_golden(tmp_path, source=BIG_GOLDEN)
    db = sqlite3.connect(path)
    seqs = [seq for (seq,) in db.execute("SELECT DISTINCT seq FROM graphs ORDER BY seq LIMIT 12")]
    db.close()
    assert len(seqs) == 12  # payloads export reads (graphs)
    bomb = zip_bomb(8 << 20)
    edit(path, *[("UPDATE events SET payload = ? WHERE seq = ?", (bomb, seq)) for seq in seqs])
    env = {"INSPECTC_INFLATE_BUDGET_MB": "32"}
    line = one_clear_line(run_cli("export", str(path), env=env, timeout=300))
    assert "payloads inflate past 32 MB in all (INSPECTC_INFLATE_BUDGET_MB): refused" in line, line
    assert run_cli("summary", str(path), env=env).returncode == 0  # payloads load lazily
    assert run_cli("export", str(path)).returncode == 0  # 96 MB in all: under the default


# -- import reads only regular files, never through a link in a folder (items 3 and 11) --------


def test_import_follows_no_link_out_of_a_trace_folder(tmp_path: Path, traces_dir: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:the secret first line:/root:/bin/bash\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copyfile(traces_dir / "simple.log", logs / "rank_0.log")
    (logs / "rank_1.log").symlink_to(secret)  # rank_1.log -> /etc/passwd
    out = tmp_path / "r.inspectc"
    proc = run_cli("import", str(logs), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    with open_report(out) as r:
        assert "secret first line" not in json.dumps(r.meta)
        assert r.run.options.sources == (str(logs / "rank_0.log"),)
    only_links = tmp_path / "links"
    only_links.mkdir()
    (only_links / "a.log").symlink_to(secret)
    line = one_clear_line(run_cli("import", str(only_links), "-o", str(tmp_path / "l.inspectc")))
    assert "1 symbolic link not followed" in line


def test_import_of_a_device_or_fifo_is_one_line(tmp_path: Path) -> None:
    from conftest import inspectc_cmd

    fifo = tmp_path / "trace.log"
    os.mkfifo(fifo)

    def limit() -> None:  # 1 GiB of address space: reading /dev/zero whole fails fast, not the machine
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    for source in ("/dev/zero", str(fifo)):
        proc = subprocess.run(
            [*inspectc_cmd(), "import", source, "-o", str(tmp_path / "x.inspectc")],
            capture_output=True,
            text=True,
            timeout=60,  # a FIFO nobody writes would block forever
            preexec_fn=limit,
        )
        assert "is not a regular file" in one_clear_line(proc)
    assert not (tmp_path / "x.inspectc").exists()


def _hot_journal_report(folder: Path) -> Path:
    """A copy of a golden report left with a real hot journal: a writer killed mid-transaction."""
    report = folder / "hot.inspectc"
    shutil.copy(REPORTS / "graph_breaks.inspectc", report)
    code = (
        "import os, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('PRAGMA journal_mode=DELETE'); db.execute('PRAGMA cache_size=1')\n"
        "db.execute('BEGIN IMMEDIATE')\n"
        "for i in range(2000):\n"
        "    db.execute('INSERT INTO meta(key, value) VALUES (?, ?)', (f'k{i}', 'x' * 500))\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(report)], check=True)
    assert (folder / "hot.inspectc-journal").stat().st_size > 0
    return report


@pytest.mark.parametrize("how", quick_first(["real", "symlink", "oversized"]))
def test_a_journal_beside_a_report_is_never_read_or_played_back(tmp_path: Path, how: str) -> None:
    """Issue 38: a journal is never played back (immutable reads), whatever it is; the summary
    says in one line that the last transaction may be missing, and nothing is left behind."""
    report = _hot_journal_report(tmp_path)
    real = tmp_path / "hot.inspectc-journal"
    if how != "real":
        big = tmp_path / "elsewhere.journal"
        real.rename(big)
        with open(big, "r+b") as fh:
            fh.truncate(600 << 20)  # sparse: 600 MB that no journal of this report can need
        if how == "symlink":
            real.symlink_to(big)
        else:
            shutil.copyfile(big, real)  # the same bytes as a regular file, beside the report
    before = {p: p.read_bytes() for p in (report, real)}
    proc = run_cli("summary", str(report))
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    if proc.returncode == 2:  # the killed writer tore the file (cache_size=1 spilled pages): one line
        assert len(lines) == 2 and "not played back" in lines[0], proc.stderr
    else:
        assert proc.returncode == 0 and len(lines) == 1, proc.stderr
        assert "not played back" in lines[0] and "last transaction may be missing" in lines[0]
    assert {p: p.read_bytes() for p in (report, real)} == before
    assert real.is_symlink() == (how == "symlink")


# -- issue 24: SQLite tricks, bombs, files not ours, consent -----------------------------------
# Each case is built from a real golden report and run as the CLI under resource limits
# (address space, file size, CPU) and a timeout, so a regression fails instead of filling a disk.

import resource  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

from inspectc.cli.main import main as cli_main  # noqa: E402
from inspectc.store import origin, untrusted  # noqa: E402


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def bounded_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60):  # noqa: ANN201
    from conftest import inspectc_cmd

    full = {**os.environ, **(env or {})}
    return subprocess.run(
        [*inspectc_cmd(), *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limits,  # noqa: PLW1509 - the test's own child, no threads involved
        stdin=subprocess.DEVNULL,
    )


TAMPER = {
    "view_frames": "DROP TABLE frames; CREATE VIEW frames AS SELECT -1 AS rank, '0/0' AS compile_id,"
    " 0 AS ordinal, '{}' AS data",
    "recursive_meta_view": "ALTER TABLE meta RENAME TO m0; CREATE VIEW meta AS WITH RECURSIVE r(key, value)"
    " AS (SELECT 'k', 'v' UNION ALL SELECT key || 'x', value FROM r) SELECT * FROM r",
    "recursive_events_view": "ALTER TABLE events RENAME TO e0; CREATE VIEW events AS WITH RECURSIVE"
    " r(seq, ts, rank, compile_id, name, metadata, payload) AS (SELECT 1, 0, -1, NULL, 'x', '{}', NULL"
    " UNION ALL SELECT seq + 1, ts, rank, compile_id, name, metadata, payload FROM r) SELECT * FROM r",
    "trigger": "CREATE TRIGGER t AFTER INSERT ON meta BEGIN SELECT 1; END",
    "generated_column": "ALTER TABLE meta RENAME TO m0; CREATE TABLE meta(key TEXT PRIMARY KEY,"
    " value TEXT NOT NULL, big BLOB GENERATED ALWAYS AS (zeroblob(300000000)) VIRTUAL);"
    " INSERT INTO meta(key, value) SELECT key, value FROM m0; DROP TABLE m0",
    "extra_column": "ALTER TABLE frames ADD COLUMN more TEXT",
    "missing_table": "DROP TABLE kernels",
    "view_elsewhere": "CREATE VIEW spare AS SELECT 1",
}


def tampered(tmp_path: Path, case: str, name: str = "r.inspectc") -> Path:
    path = tmp_path / name
    shutil.copyfile(GOLDEN, path)
    db = sqlite3.connect(path)
    db.executescript(TAMPER[case])
    db.close()
    return path


@pytest.mark.parametrize("case", quick_first(sorted(TAMPER, key=lambda case: case != "view_frames"), quick=2))
def test_sqlite_tricks_are_refused_before_any_read(case: str, tmp_path: Path) -> None:
    path = tampered(tmp_path, case)
    started = time.monotonic()
    commands = [["summary"]]
    if case in ("view_frames", "generated_column"):  # share hung on these; export -o on others
        commands += [["share", "-o", str(tmp_path / "out")], ["export", "-o", str(tmp_path / "x.json")]]
    for command in commands:
        line = one_clear_line(bounded_cli(*command, str(path), cwd=tmp_path))
        assert "r.inspectc" in line and "refused" in line, line
    assert time.monotonic() - started < 60
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True


def test_view_bombed_rank_in_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ranks"
    folder.mkdir()
    shutil.copyfile(GOLDEN, folder / "r.rank0.inspectc")
    (folder / "r.rank1.inspectc").write_bytes(tampered(tmp_path, "recursive_events_view").read_bytes())
    line = one_clear_line(bounded_cli("summary", str(folder)))
    assert "r.rank1.inspectc" in line and "view" in line


def test_hostile_file_at_dash_o_is_not_replaced_and_does_not_hang(tmp_path: Path) -> None:
    target = tampered(tmp_path, "recursive_meta_view", "x.inspectc")
    before = target.read_bytes()
    line = one_clear_line(bounded_cli("import", str(LOG), "-o", str(target), timeout=60))
    assert "refusing to overwrite" in line or "not" in line
    assert target.read_bytes() == before


def test_a_query_past_its_budget_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "many.inspectc"
    shutil.copyfile(GOLDEN, path)
    db = sqlite3.connect(path)  # real tables, real columns: only big
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)"
        " INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload)"
        " SELECT 1000000 + i, 0, -1, NULL, 'x', '{}', NULL FROM n"
    )
    db.commit()
    db.close()
    line = one_clear_line(bounded_cli("summary", str(path), env={"INSPECTC_LIMITS": "0.000001"}))
    assert "steps of work" in line and "INSPECTC_LIMITS" in line
    assert bounded_cli("summary", str(path)).returncode == 0  # the default budget reads it


def test_cancel_and_ctrl_c_stop_a_running_query_within_a_second(tmp_path: Path) -> None:
    # Timed from the cancel (the signal) itself: on a loaded machine the timer thread may
    # fire late, and that is not the query's reaction time.
    db, budget = untrusted.connect(GOLDEN)
    endless = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"
    cancelled_at: list[float] = []

    def cancel() -> None:
        cancelled_at.append(time.monotonic())
        untrusted.cancel()

    timer = __import__("threading").Timer(0.3, cancel)
    timer.start()
    with pytest.raises(ReportError, match="cancelled"):
        untrusted.run(db, budget, endless)
    assert cancelled_at and time.monotonic() - cancelled_at[0] < 1.2
    db.close()
    code = (
        "import os, signal, threading, time\n"
        "from pathlib import Path\n"
        "from inspectc.store import untrusted\n"
        f"db, budget = untrusted.connect(Path({str(GOLDEN)!r}))\n"
        "sent = []\n"
        "def interrupt():\n"
        "    sent.append(time.monotonic())\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "threading.Timer(0.3, interrupt).start()\n"
        "try:\n"
        f"    untrusted.run(db, budget, {endless!r})\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted after', round(time.monotonic() - sent[0], 2))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        preexec_fn=default_sigint,  # noqa: PLW1509 - the test's own child, no threads involved
    )
    assert "interrupted after" in proc.stdout, proc.stderr
    assert float(proc.stdout.split()[-1]) < 1.2


def test_share_check_refuses_a_bundle_of_many_compressible_members(tmp_path: Path) -> None:
    bundle = tmp_path / "many.zip"
    with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(GOLDEN, "report.inspectc")
        for n in range(1200):
            archive.writestr(f"m{n}.txt", b"")
    line = one_clear_line(bounded_cli("share", "--check", str(bundle)))
    assert "members" in line
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(GOLDEN, "report.inspectc")
        archive.writestr("summary.md", b"a" * (64 << 20))  # 64 MB in 64 KB
    started = time.monotonic()
    line = one_clear_line(bounded_cli("share", "--check", str(bomb)))
    assert "bomb" in line and time.monotonic() - started < 30


LOG = Path("/work/shared/traces/simple.log")


@pytest.mark.parametrize("kind", ["newlines", "one_line", "plain_one_line"])
def test_log_bombs_are_refused_quickly(kind: str, tmp_path: Path) -> None:
    import gzip

    small = {"INSPECTC_LIMITS": "0.05"}  # 3.3 M characters a line, 51 MB inflated, 5,000 blank lines
    if kind == "plain_one_line":
        path = tmp_path / "big.log"
        with open(path, "wb") as fh:
            fh.truncate(8 << 20)  # sparse: 8 MB of NUL, no newline
    else:
        path = tmp_path / "bomb.log.gz"
        chunk = (b"\n" if kind == "newlines" else b"x") * (1 << 20)
        with gzip.open(path, "wb", compresslevel=1) as fh:
            for _ in range(8):
                fh.write(chunk)
    started = time.monotonic()
    line = one_clear_line(bounded_cli("import", str(path), "-o", str(tmp_path / "o.inspectc"), env=small))
    assert "refused" in line and "INSPECTC_LIMITS" in line
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("script", ["fifo", "/dev/zero"])
def test_run_refuses_a_script_that_is_not_a_regular_file(script: str, tmp_path: Path) -> None:
    if script == "fifo":
        os.mkfifo(tmp_path / "fifo")
        script = str(tmp_path / "fifo")
    line = one_clear_line(bounded_cli("run", "-o", str(tmp_path / "o.inspectc"), script, cwd=tmp_path))
    assert "not a regular file" in line


def test_share_never_overwrites_and_publishes_nothing_half_done(tmp_path: Path) -> None:
    report = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, report)
    out = tmp_path / "out"
    out.mkdir()
    (out / "r.share.md").write_text("mine\n")
    line = one_clear_line(bounded_cli("share", str(report), "-o", str(out)))
    assert "refusing to overwrite" in line and (out / "r.share.md").read_text() == "mine\n"
    assert sorted(p.name for p in out.iterdir()) == ["r.share.md"]
    (out / "r.share.md").unlink()
    assert bounded_cli("share", str(report), "-o", str(out)).returncode == 0
    assert one_clear_line(bounded_cli("share", str(report), "-o", str(out))).count("refusing") == 1


def test_share_temp_copy_is_private_and_removed_on_sigterm(tmp_path: Path) -> None:
    code = (
        "import os, signal, sys, tempfile\n"
        "from inspectc.store.exclusive import remove_on_signal\n"
        "with tempfile.TemporaryDirectory(prefix='inspectc-share-') as tmp:\n"
        "    open(os.path.join(tmp, 'report.inspectc'), 'w').write('unredacted')\n"
        "    print(tmp, oct(os.stat(tmp).st_mode & 0o777), flush=True)\n"
        "    with remove_on_signal(tmp):\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        import time; time.sleep(5)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    folder, mode = proc.stdout.split()
    assert proc.returncode == -signal.SIGTERM
    assert mode == "0o700" and not Path(folder).exists()


def test_suggest_and_bench_ask_before_running_a_strangers_command(tmp_path: Path) -> None:
    report = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, report)  # a golden report: made elsewhere, records no origin
    with open_report(report) as r:
        assert not origin.made_here(r.rows, r.meta)
    db = sqlite3.connect(report)
    run = json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0])
    run.update(argv=["inspectc", "run", "evil.py"], mode="script", cwd=str(tmp_path))
    db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    db.executemany(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
        [("origin_host", "elsewhere"), ("origin_user", "mallory"), ("report_id", "x")],
    )
    db.commit()
    db.close()
    (tmp_path / "evil.py").write_text("open('ran', 'w').write('yes')\n")
    for args in (["suggest", str(report)], ["bench", str(report), "-o", str(tmp_path / "b.inspectc")]):
        proc = bounded_cli(*args, cwd=tmp_path)
        if proc.returncode == 0 and "0 config remed" in proc.stdout:
            continue  # nothing to re-run for this report: nothing asked
        line = one_clear_line(proc)
        assert "--yes" in line and "refused without a terminal" in line, line
        assert "mallory" in line and "elsewhere" in line
    assert not (tmp_path / "ran").exists()
    mine = dict(origin.origin_meta())  # fields naming this host and user: a claim, still foreign
    with open_report(report) as r:
        assert not origin.made_here(r.rows, {**r.meta, **mine}) and len(mine["report_id"]) == 32
        with pytest.raises(UsageError, match="refused without a terminal"):
            origin.consent(r.rows, {**r.meta, **mine}, "suggest", ["x"], yes=False)


# A fuzz sweep over schema mutations (in-process): success or one InspectcError, quickly.
MUTATIONS = [
    *TAMPER.values(),
    "DELETE FROM meta WHERE key = 'format'",
    "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
    "UPDATE frames SET data = '{'",
    "UPDATE events SET payload = x'789c0000'",
    "UPDATE kernels SET start = -5, stop = 1e18",
    "DROP TABLE bench",
    "CREATE TABLE bench(rank INTEGER)",
    "CREATE INDEX odd ON events(length(payload))",
    "UPDATE meta SET value = '[' WHERE key = 'run'",
]


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3, unique=True))
def test_fuzz_schema_mutations(statements: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="inspectc-fuzz-") as tmp:
        path = Path(tmp) / "r.inspectc"
        shutil.copyfile(GOLDEN, path)
        db = sqlite3.connect(path)
        for sql in statements:
            try:
                db.executescript(sql)
            except sqlite3.Error:
                pass  # a mutation that does not apply after another one
        db.close()
        started = time.monotonic()
        try:
            read_everything(path)
        except InspectcError as exc:
            assert "\n" not in str(exc)
        assert time.monotonic() - started < 10


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.integers(1, 5), st.integers(0, 3), st.sampled_from(["", ".gz"]))
def test_fuzz_log_lengths_under_small_limits(line_mb: int, blanks_e5: int, suffix: str) -> None:
    import gzip

    os.environ["INSPECTC_LIMITS"] = "0.02"  # 1.3 M characters a line, 2,000 blank lines
    text = LOG.read_text() + "\n" * (blanks_e5 * 1000) + "x" * (line_mb * 400_000) + "\n"
    with tempfile.TemporaryDirectory(prefix="inspectc-fuzz-") as tmp:
        path = Path(tmp) / f"l.log{suffix}"
        path.write_bytes(gzip.compress(text.encode(), 1) if suffix else text.encode())
        started = time.monotonic()
        try:
            assert cli_main(["import", str(path), "-o", str(Path(tmp) / "o.inspectc"), "-q"]) in (0, 2)
        finally:
            del os.environ["INSPECTC_LIMITS"]
        assert time.monotonic() - started < 10
