"""Secrets a real user's run holds, planted in every field of a real capture (issue 39).

One ``inspectc run`` of a script (tests/planted.py) that holds 50 secret shapes in its source,
passes them through a compiled function (guards), a graph-break message, a buffer name and
its exception text, with secret-named camelCase/kebab/plural flags and a tool's password on
its command line and camelCase/plural secret names in its environment. ``share --html``
must ship none of it: every file it wrote, every zip member opened, and the bundled report
read cell by cell (sqlite3 and zlib here, not inspectc's reader). ``share --check`` names
what it checked with; it finds leaks by place and detector, never by value; ``share`` refuses
a bundle detect-secrets flags; the counts say how many places each rule cleaned.
"""

from __future__ import annotations

import base64
import json
import re
import sqlite3
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import planted
import pytest
from conftest import run_cli

# one capture and one share --html for the module: minutes on a loaded two-core machine
pytestmark = pytest.mark.timeout(900)


def forms(value: str) -> set[bytes]:
    """*value* as a file may hold it: raw, in a repr, JSON-escaped, both, and HTML-escaped."""
    as_repr, as_json = repr(value)[1:-1], json.dumps(value)[1:-1]
    found = {value, as_repr, as_json, json.dumps(as_repr)[1:-1], value.replace("&", "&amp;")}
    return {f.encode() for f in found if f}


def cells(report: bytes, tmp: Path) -> dict[str, bytes]:
    """Every cell of a report file, payloads decompressed, named ``table row column``."""
    path = tmp / "cells.inspectc"
    path.write_bytes(report)
    db = sqlite3.connect(path)
    found: dict[str, bytes] = {}
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for n, row in enumerate(db.execute(f'SELECT * FROM "{table}"').fetchall()):  # noqa: S608
            for i, value in enumerate(row):
                if isinstance(value, bytes) and table == "events":
                    value = zlib.decompress(value)
                if isinstance(value, str):
                    value = value.encode()
                if isinstance(value, bytes):
                    found[f"{table} {n} {i}"] = value
    db.close()
    path.unlink()
    return found


@dataclass(frozen=True)
class Run:
    report: Path
    out: Path
    files: dict[str, bytes]  # every output, every zip member, every cell of the bundled report
    private: dict[str, bytes]  # every cell of the private report
    show: str  # --show-redactions
    stderr: str


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("planted")
    texts = [p.text for p in planted.plants()] + [planted.machine_host().text]
    buffer = next(p.secret for p in planted.plants() if p.shape == "stripe secret")
    (base / "planted_run.py").write_text(planted.script(texts, buffer))
    report = base / "planted.inspectc"
    proc = run_cli("run", "-o", str(report), "planted_run.py", *planted.argv(), cwd=base, env=planted.env())
    assert report.exists(), proc.stderr
    out = base / "out"
    made = run_cli("share", str(report), "--html", "--show-redactions", "-o", str(out))
    assert made.returncode == 0, made.stderr
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    with zipfile.ZipFile(next(out.glob("*.zip"))) as archive:
        files |= {f"zip:{n}": archive.read(n) for n in archive.namelist()}
    files |= {f"cell {k}": v for k, v in cells(files["zip:report.inspectc"], base).items()}
    return Run(report, out, files, cells(report.read_bytes(), base), made.stdout, made.stderr)


PLANTS = planted.plants()
EVERYTHING = [(p.shape, p.secret) for p in PLANTS] + [
    *((f"environment {n}", v) for n, v in planted.env().items()),
    *((f"argv {i}", v) for i, v in enumerate(planted.argv_secrets())),
]


@pytest.mark.capture
def test_the_private_report_holds_what_was_planted(run: Run) -> None:
    """Each value reached the report (the test can fail), and every field kind holds some."""
    raw = b"\n".join(run.private.values())
    missing = [shape for shape, secret in EVERYTHING if not any(f in raw for f in forms(secret))]
    assert not missing, missing
    jwt = next(p.secret for p in PLANTS if p.shape == "jwt").encode()
    holders = {name.split()[0] for name, data in run.private.items() if jwt in data}
    assert {"meta", "events", "frames"} <= holders, holders  # exception, payloads, guards and breaks
    (row,) = [k.split()[1] for k, v in run.private.items() if k.startswith("meta ") and v == b"run_secrets"]
    stored = json.loads(run.private[f"meta {row} 1"])
    assert stored["salt"] and stored["values"]  # capture kept salted hashes, never the values
    assert not any(v.encode() in run.private[f"meta {row} 1"] for v in planted.env().values())


@pytest.mark.capture
@pytest.mark.parametrize(("shape", "secret"), EVERYTHING, ids=[s for s, _ in EVERYTHING])
def test_nothing_planted_ships(run: Run, shape: str, secret: str) -> None:
    left = [name for name, data in run.files.items() if any(f in data for f in forms(secret))]
    assert not left, (shape, left[:10])


def _no_markup(name: str, data: bytes) -> bytes:
    """A page as text: its folded bodies (``data-z``: base64 of raw deflate, opened on click)
    inflated in place, less its style sheet and class names. A short host name ("vm") is also
    a pygments class, and turns up by chance in base64."""
    if not name.endswith(".html"):
        return data
    data = re.sub(
        rb'data-z="([^"]*)"', lambda m: b">" + zlib.decompress(base64.b64decode(m.group(1)), -15), data
    )
    data = re.sub(rb"<style[^>]*>.*?</style>", b"", data, flags=re.DOTALL | re.IGNORECASE)
    return re.sub(rb'\sclass="[^"]*"', b"", data)


@pytest.mark.capture
def test_the_machines_host_name_ships_nowhere(run: Run) -> None:
    host = planted.machine_host().secret
    pattern = re.compile(rb"(?<![\w-])" + re.escape(host.encode()) + rb"(?![\w-])", re.IGNORECASE)
    assert any(pattern.search(d) for d in run.private.values())  # the test can fail
    # text only: a short name turns up by chance in compressed bytes (the cells are read here)
    texts = {n: _no_markup(n, d) for n, d in run.files.items() if not n.endswith((".zip", ".inspectc"))}
    left = [name for name, data in texts.items() if pattern.search(data)]
    assert not left, left[:10]


@pytest.mark.capture
def test_counts_are_once_per_place_by_rule(run: Run) -> None:
    """The JWT is removed from every row that held it, and counted once for each: the
    count --show-redactions prints for the rule equals the rows of the private report that
    hold it (counted here with sqlite3, not inspectc's reader), plus the file name (none)."""
    jwt = next(p.secret for p in PLANTS if p.shape == "jwt")
    rows = {
        name.rsplit(" ", 1)[0] for name, data in run.private.items() if any(f in data for f in forms(jwt))
    }
    counts = dict(re.findall(r"^  ([a-z][\w .-]*): (\d+)$", run.show, re.M))
    assert int(counts["jwt"]) == len(rows), (counts, sorted(rows))
    summary = re.search(r"removed by rule \(once per field\): (.*)", run.stderr)
    assert summary and f"jwt: {len(rows)}" in summary.group(1), run.stderr


@pytest.mark.capture
def test_check_says_what_it_checked_with(run: Run) -> None:
    check = run_cli("share", "--check", str(next(run.out.glob("*.zip"))))
    assert check.returncode == 0, check.stdout
    said = re.search(
        r"no known secret pattern found by (\d+) detectors \(detect-secrets ([\d.]+): ([^)]*)\)", check.stdout
    )
    assert said and int(said.group(1)) >= 20, check.stdout
    for plugin in (
        "AWSKeyDetector",
        "Base64HighEntropyString",
        "JwtTokenDetector",
        "PrivateKeyDetector",
        "StripeDetector",
    ):
        assert plugin in said.group(3)
    assert re.search(r"and inspectc's own \d+ rules", check.stdout)
    assert "nothing private" not in check.stdout and "looks private" not in check.stdout


def test_check_of_a_markdown_file_finds_by_place_and_detector(tmp_path: Path) -> None:
    """A page holding a PEM key, a JWT, a Slack webhook and a Stripe key: each found by
    detect-secrets, named by line and plugin, the values never printed."""
    leaks = {
        p.shape: p.text
        for p in PLANTS
        if p.shape in ("rsa private key", "jwt", "slack webhook", "stripe secret")
    }
    page = tmp_path / "issue.md"
    page.write_text("# Bug\n\n" + "\n\nsee ".join(leaks.values()) + "\n")
    check = run_cli("share", "--check", str(page))
    assert check.returncode == 1, check.stdout
    for plugin in ("Private Key", "JSON Web Token", "Slack Token", "Stripe Access Key"):
        assert re.search(rf"{plugin} \(detect-secrets\) in issue\.md, line \d+", check.stdout), (
            plugin,
            check.stdout,
        )
    printed = check.stdout + check.stderr
    for text in leaks.values():
        for part in re.findall(r"[A-Za-z0-9_]{12,}", text):
            assert part not in printed, part


@pytest.mark.capture
def test_share_refuses_a_bundle_the_detector_flags(run: Run, tmp_path: Path) -> None:
    """A value no rule of inspectc knows (high-entropy, in a guard): share writes nothing,
    says in one line which field and which detector, and --allow-flagged writes it."""
    odd = tmp_path / "odd.inspectc"
    odd.write_bytes(run.report.read_bytes())
    value = planted._r(40, planted._B64, seed=99)
    db = sqlite3.connect(odd)
    ((cid, data),) = db.execute("SELECT compile_id, data FROM frames LIMIT 1").fetchall()
    frame = json.loads(data)
    frame["guards"][0]["code"] = f"L['blob'] == '{value}'"
    db.execute("UPDATE frames SET data = ? WHERE compile_id = ?", (json.dumps(frame), cid))
    db.commit()
    db.close()
    refused = run_cli("share", str(odd), "-o", str(tmp_path / "out"))
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "Base64 High Entropy String flags report.inspectc: frames" in lines[0], lines
    assert "guards[0].code" in lines[0] and value not in refused.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    allowed = run_cli("share", str(odd), "--allow-flagged", "-o", str(tmp_path / "out"))
    assert allowed.returncode == 0 and "--allow-flagged" in allowed.stderr, allowed.stderr
    assert (tmp_path / "out" / "odd.share.zip").exists()
