"""Hostile inputs to the kernel views and the log reader: what `ir` and `repro` print and write,
rank folders with links, odd TORCH_TRACE values, payload and central-directory bombs.

Each input is built from a committed report or a small committed log; every command runs as
the installed CLI. No torch compile (the repro script's ``--help`` imports torch, nothing more).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import REPORTS, ROOT, inspectc_cmd, plant_detail, run_cli

GOLDEN = REPORTS / "sin_sin.inspectc"  # one C++ kernel, cpp_fused_sin_0
BIG_GOLDEN = REPORTS / "graph_breaks.inspectc"
GPU = ROOT / "tests" / "data" / "gpu" / "h200-block.inspectc"  # Triton kernels
LOG = ROOT / "tests" / "data" / "logs" / "ranks_schedule" / "dedicated_log_torch_trace_rank_1_n8zycf07.log"
TRITON = "triton_per_fused_clone_native_layer_norm_transpose_0"
EVIL = "\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\r"
UNSAFE = "\x1b\x07\r\x9b"


@pytest.fixture(autouse=True)
def _inputs() -> None:
    if not all(p.exists() for p in (GOLDEN, BIG_GOLDEN, GPU, LOG)):
        pytest.skip("committed reports or logs are missing")


def one_clear_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:500], proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("inspectc: "), proc.stderr
    return lines[0]


def unsafe_in(text: str) -> list[str]:
    return sorted({f"U+{ord(ch):04X}" for ch in text if ch in UNSAFE})


# -- A: `ir` and `repro` show report text made safe --------------------------------------------


def cpp_source_with_escapes(target: Path) -> Path:
    """sin_sin with escapes inside cpp_fused_sin_0's slice of the output code (same length)."""
    shutil.copyfile(GOLDEN, target)
    db = sqlite3.connect(target)
    seq, start = db.execute("SELECT seq, start FROM kernels WHERE name = 'cpp_fused_sin_0'").fetchone()
    text = zlib.decompress(
        db.execute("SELECT payload FROM events WHERE seq = ?", (seq,)).fetchone()[0]
    ).decode()
    at = start + 10
    text = text[:at] + EVIL + text[at + len(EVIL) :]
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (zlib.compress(text.encode()), seq))
    db.commit()
    db.close()
    return target


def stage_with_escapes(target: Path) -> Path:
    """The H200 report with a recorded PTX stage of a Triton kernel that holds escapes."""
    shutil.copyfile(GPU, target)
    db = sqlite3.connect(target)
    detail = {"name": TRITON, "stages": {"ptx": "// ptx\n" + EVIL + "\n"}}
    plant_detail(db, TRITON, json.dumps(detail))
    db.commit()
    db.close()
    return target


def renamed_kernel(target: Path, name: str) -> Path:
    shutil.copyfile(GOLDEN, target)
    db = sqlite3.connect(target)
    db.execute("UPDATE kernels SET name = ? WHERE id = 1", (name,))
    db.commit()
    db.close()
    return target


def test_ir_shows_kernel_source_stage_and_name_without_escapes(tmp_path: Path) -> None:
    cpp = cpp_source_with_escapes(tmp_path / "cpp.inspectc")
    gpu = stage_with_escapes(tmp_path / "gpu.inspectc")
    named = renamed_kernel(tmp_path / "named.inspectc", "cpp_fused_sin_0" + EVIL)
    for args in (
        ["ir", str(cpp), "cpp_fused_sin_0"],
        ["ir", str(gpu), TRITON, "--stage", "ptx"],
        ["ir", str(named), "1"],
        ["repro", str(named), "1"],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert not unsafe_in(proc.stdout + proc.stderr), (args, unsafe_in(proc.stdout + proc.stderr))
        assert "click" in proc.stdout or "cpp_fused_sin_0" in proc.stdout  # the text is still shown
    proc = run_cli("repro", str(named), "1", "-o", str(tmp_path / "r.py"))
    assert proc.returncode == 0 and not unsafe_in(proc.stderr), proc.stderr


# -- B: `repro` writes report text into the script only as inert text -------------------------

PLANTED = '"""+open("PWNED","w").name+"""'


def _calls(tree: ast.AST) -> set[str]:
    return {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}


def test_repro_script_holds_report_names_inertly(tmp_path: Path) -> None:
    clean_out, evil_out = tmp_path / "clean.py", tmp_path / "evil.py"
    assert run_cli("repro", str(GOLDEN), "cpp_fused_sin_0", "-o", str(clean_out)).returncode == 0
    # a kernel name that closes the docstring, and a report file name with quotes and newlines
    report = renamed_kernel(tmp_path / 'x"""\nimport os\n\\N{.inspectc', "cpp_fused_sin_0" + EVIL + PLANTED)
    proc = run_cli("repro", str(report), "1", "-o", str(evil_out))
    assert proc.returncode == 0, proc.stderr
    script = evil_out.read_text()
    clean, evil = ast.parse(clean_out.read_text()), ast.parse(script)  # no SyntaxError
    compile(script, str(evil_out), "exec")
    assert [type(n).__name__ for n in evil.body] == [type(n).__name__ for n in clean.body]
    assert _calls(evil) == _calls(clean)  # the planted open(...) is no call of the script
    assert ast.get_docstring(evil) is not None and "Standalone repro of" in ast.get_docstring(evil)
    spec = json.loads(next(n.value.args[0].value for n in evil.body if _assigns(n, "SPEC")))
    assert spec["name"] == "cpp_fused_sin_0" + EVIL + PLANTED  # the data keeps the exact name
    run = subprocess.run(
        [sys.executable, str(evil_out), "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert not (tmp_path / "PWNED").exists(), run.stdout + run.stderr
    if "No module named 'torch'" not in run.stderr:
        assert run.returncode == 0, run.stderr


def _assigns(node: ast.stmt, name: str) -> bool:
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in node.targets
    )


# -- C: a link in a rank folder is not followed ------------------------------------------------


def test_rank_folder_links_are_skipped_with_one_line(tmp_path: Path) -> None:
    private, ranks, alone = tmp_path / "private", tmp_path / "ranks", tmp_path / "alone"
    for folder in (private, ranks, alone):
        folder.mkdir()
    shutil.copyfile(BIG_GOLDEN, private / "mine.inspectc")  # the victim's own report
    shutil.copyfile(GOLDEN, ranks / "r.rank0.inspectc")
    shutil.copyfile(GOLDEN, alone / "r.rank0.inspectc")
    os.symlink("../private/mine.inspectc", ranks / "r.rank1.inspectc")  # planted by the stranger
    expected = run_cli("summary", str(alone))
    proc = run_cli("summary", str(ranks))
    assert proc.returncode == 0, proc.stderr
    assert "symbolic link not followed" in proc.stderr and "r.rank1.inspectc" in proc.stderr
    assert proc.stdout.replace(str(ranks), "X") == expected.stdout.replace(str(alone), "X")
    proc = run_cli("merge", str(ranks), "-o", str(tmp_path / "merged.inspectc"))
    assert proc.returncode == 0 and "1 reports" in proc.stderr + proc.stdout, proc.stderr
    assert "symbolic link not followed" in proc.stderr
    proc = run_cli("share", str(ranks), "-o", str(tmp_path / "out"))
    assert proc.returncode == 0 and "symbolic link not followed" in proc.stderr, proc.stderr
    shared = "".join(p.read_text(errors="replace") for p in (tmp_path / "out").glob("*.md"))
    assert "graph break" not in shared.lower() or "0 graph breaks" in shared  # nothing of mine.inspectc
    only_links = tmp_path / "links"
    only_links.mkdir()
    os.symlink("../private/mine.inspectc", only_links / "r.inspectc")
    line = one_clear_line(run_cli("summary", str(only_links)))
    assert "no reports" in line


# -- D: odd TORCH_TRACE values are malformed records, not tracebacks ---------------------------


AOTI_LOG = ROOT / "tests" / "data" / "logs" / "aoti" / "trace.log"


@pytest.mark.parametrize(
    ("key", "value", "source"),
    [
        ("ts", "9" * 400, LOG),  # a chromium_event's time: no float holds it
        ("id", "[]", LOG),  # a describe record's id: unhashable
        ("describer_id", "{}", LOG),
        ("entire_frame_compile_time_s", "9" * 400, LOG),  # compilation metrics
        ("end_time_us", "9" * 400, AOTI_LOG),  # an AOTInductor compile's duration
    ],
    ids=["ts", "id", "describer_id", "metrics", "aoti_end"],
)
def test_import_reads_odd_values_without_a_traceback(
    key: str, value: str, source: Path, tmp_path: Path
) -> None:
    mutated, n = re.subn(rf'"{key}": (?:-?[0-9.eE+]+|"[^"]*"|null)', f'"{key}": {value}', source.read_text())
    assert n, key
    log = tmp_path / "dedicated_log_torch_trace_rank_1.log"
    log.write_text(mutated)
    proc = run_cli("import", str(log), "-o", str(tmp_path / "o.inspectc"))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert run_cli("summary", str(tmp_path / "o.inspectc")).returncode == 0


def log_of(report: Path) -> str:
    """A TORCH_TRACE log of a report's events (inspectc's own timing records included)."""
    db = sqlite3.connect(report.resolve().as_uri() + "?mode=ro", uri=True)
    rows = db.execute("SELECT metadata, payload FROM events ORDER BY seq").fetchall()
    db.close()
    out = []
    for metadata, payload in rows:
        out.append(f"V1205 12:00:00.000000 1 x.py:1] {metadata}\n")
        if payload is not None:
            out.extend(f"\t{line}\n" for line in zlib.decompress(payload).decode().split("\n"))
    return "".join(out)


@pytest.mark.parametrize(
    ("key", "value"),
    [("total_us", '"x"'), ("calls", "9" * 400), ("threads", "9" * 20), ("version", "9" * 400)],
    ids=["total_us", "calls", "threads", "node_mappings_version"],
)
def test_import_reads_odd_timing_figures_without_a_traceback(key: str, value: str, tmp_path: Path) -> None:
    mutated, n = re.subn(rf'"{key}": (?:-?[0-9.eE+]+|null)', f'"{key}": {value}', log_of(GOLDEN))
    assert n, key
    log = tmp_path / "t.log"
    log.write_text(mutated)
    proc = run_cli("import", str(log), "-o", str(tmp_path / "o.inspectc"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert run_cli("kernels", str(tmp_path / "o.inspectc")).returncode == 0


def test_import_names_a_malformed_record(tmp_path: Path) -> None:
    log = tmp_path / "dedicated_log_torch_trace_rank_1.log"
    log.write_text(re.sub(r'"ts": [0-9.]+', '"ts": ' + "9" * 400, LOG.read_text(), count=1))
    proc = run_cli("import", str(log), "-o", str(tmp_path / "o.inspectc"))
    assert proc.returncode == 0, proc.stderr
    assert "malformed chromium_event record: ts out of range" in proc.stderr, proc.stderr


# -- E: a payload of millions of tiny lines is read in bounded memory --------------------------

HEAD = 'V1205 12:00:00.000000 1 torch/_dynamo/x.py:1] {"str": ["x.py", 0], "has_payload": "0"}\n'


def peak_mb(args: list[str], code: int = 0) -> tuple[float, str]:
    """Run the CLI; its peak resident memory in MB (wait4: this child's own account) and stderr."""
    proc = subprocess.Popen([*inspectc_cmd(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == code, err
    return usage.ru_maxrss / 1024, err


def _bomb(path: Path, lines: int) -> Path:
    with open(path, "w") as fh:
        fh.write(HEAD)
        fh.write("\tx\n" * lines)
    return path


def test_import_caps_a_payload_and_says_so(tmp_path: Path) -> None:
    from inspectc.store.open import open_report

    log = _bomb(tmp_path / "bomb.log", 1_000_000)  # 3 MB of payload lines
    out = tmp_path / "o.inspectc"
    proc = run_cli("import", str(log), "-o", str(out), env={"INSPECTC_LIMITS": "0.005"})  # cap: 671 K
    assert proc.returncode == 0, proc.stderr
    assert f"payload longer than {int((128 << 20) * 0.005):,} characters: cut there" in proc.stderr
    with open_report(out) as report:
        sizes = [len(report.event_payload(e.seq) or "") for e in report.events()]
    assert sizes and max(sizes) <= int((128 << 20) * 0.005), sizes


def test_import_of_many_tiny_payload_lines_takes_little_memory(tmp_path: Path) -> None:
    small = _bomb(tmp_path / "small.log", 10)
    big = _bomb(tmp_path / "big.log", 2_000_000)  # 6 MB: 2,000,000 lines of one record
    base, _ = peak_mb(["import", str(small), "-o", str(tmp_path / "a.inspectc")])
    peak, _ = peak_mb(["import", str(big), "-o", str(tmp_path / "b.inspectc")])
    assert peak - base < 40, (base, peak)  # 2,000,000 str objects in a list took ~130 MB more


# -- F: a central directory of a million entries is refused from its end record -----------------


def _many_entries(path: Path, n: int) -> Path:
    data = b"x"
    crc = zlib.crc32(data)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, 1, 1, 1, 0) + b"a" + data
    cd = bytearray()
    for i in range(n):
        name = b"%x" % i
        cd += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, 1, 1, len(name), 0, 0, 0, 0, 0, 0
        )
        cd += name
    z64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, len(cd), len(local))
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(local) + len(cd), 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    path.write_bytes(local + bytes(cd) + z64 + locator + end)
    return path


def test_a_bundle_of_many_entries_is_refused_before_they_are_parsed(tmp_path: Path) -> None:
    few = _many_entries(tmp_path / "few.zip", 1200)
    many = _many_entries(tmp_path / "many.zip", 300_000)  # 15 MB
    for command in ("summary", "share"):
        args = [command, "--check"] if command == "share" else [command]
        line = one_clear_line(run_cli(*args, str(many)))
        assert "300,000 members" in line, line
    base, _ = peak_mb(["summary", str(few)], 2)
    peak, err = peak_mb(["summary", str(many)], 2)
    assert "members" in err, err
    assert peak - base < 40, (base, peak)  # zipfile's 300,000 ZipInfo objects took ~150 MB more
