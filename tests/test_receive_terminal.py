"""Issue 38: nothing from a report reaches the terminal raw.

One function (:func:`inspectc.model.terminal.safe`) shows every C0/C1 control, escape sequence
introducer (so CSI, OSC, DCS), bidi override and invisible format character visibly
(``\\x1b``, ``<U+202E>``), and every CLI printer and the consent prompt go through it. Here a
report carries OSC 52 (writes the clipboard), clear-screen, cursor-up and erase-line (which
made main's consent prompt show a harmless command while another would run), a one-byte C1
CSI and RLO in its function names, break and recompile reasons, file names, kernel names,
kernel source and recorded command; summary, kernels, check, diff, suggest --list, the
consent prompt, ir and repro run on a real pseudo-terminal, and no ESC, C1 or bidi character
comes out. A derandomised Hypothesis sweep checks the function itself, and its character set
against Python's ``unicodedata``.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import sqlite3
import subprocess
import time
import unicodedata
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import inspectc_cmd
from receiving import GOLDEN

from inspectc.model.terminal import safe

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# OSC 52 (clipboard), clear screen, cursor up, erase line, C1 CSI (red), RLO, a zero-width space
HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[1A\x1b[2K\x9b31m\u202eexe.\u200b"
RAW = re.compile(rb"\x1b|\x07|\xc2[\x80-\x9f]|\xe2\x80[\xab-\xae\x8b]|\xe2\x81[\xa6-\xa9]")
TOKENS = ("graph_breaks.py", "with_print", "Failed to trace", "L['x']", "explicit")


def _poison(value: Any) -> Any:
    if isinstance(value, str):
        for token in TOKENS:
            value = value.replace(token, token[:3] + HOSTILE + token[3:])
        return value
    if isinstance(value, list):
        return [_poison(v) for v in value]
    if isinstance(value, dict):
        return {k: _poison(v) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden graph-breaks report with HOSTILE in every text a reader shows."""
    folder = tmp_path_factory.mktemp("terminal")
    report = folder / "hostile.inspectc"
    shutil.copyfile(GOLDEN, report)
    db = sqlite3.connect(report)
    for table, key in (("frames", "rowid"), ("kernels", "id")):
        for rowid, data in db.execute(f"SELECT {key}, data FROM {table}").fetchall():  # noqa: S608
            db.execute(
                f"UPDATE {table} SET data = ? WHERE {key} = ?", (json.dumps(_poison(json.loads(data))), rowid)
            )  # noqa: S608
    db.execute("UPDATE kernels SET name = name || ?", (HOSTILE,))
    run = _poison(json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0]))
    run.update(
        mode="script", cwd=str(folder), argv=["inspectc", "run", "train.py", f"--lr{HOSTILE}", "echo ok"]
    )
    db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    seq, start, stop = db.execute("SELECT seq, start, stop FROM kernels WHERE id = 1").fetchone()
    (blob,) = db.execute("SELECT payload FROM events WHERE seq = ?", (seq,)).fetchone()
    text = zlib.decompress(blob).decode()
    at = start + (stop - start) // 2  # the kernel's source, same length: its offsets stay right
    text = text[:at] + HOSTILE + text[at + len(HOSTILE) :]
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (zlib.compress(text.encode()), seq))
    db.commit()
    db.close()
    return report


def on_pty(*args: str, cwd: Path, answer: bytes = b"", timeout: float = 120) -> tuple[int, bytes]:
    """Run ``inspectc ARGS`` with stdin, stdout and stderr on a new pseudo-terminal; type
    *answer* when it asks; everything the terminal received, and the exit status."""
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160"}
    child = subprocess.Popen(
        [*inspectc_cmd(), *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen, asked, deadline = b"", False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
                if answer and not asked and b"[y/N]" in seen:
                    os.write(master, answer)
                    asked = True
            elif child.poll() is not None:
                break
        status = child.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)
    return status, seen


def _assert_inert(seen: bytes) -> None:
    found = RAW.search(seen)
    assert found is None, (
        f"raw {found.group()!r} reached the terminal: ...{seen[max(0, found.start() - 80) : found.end() + 40]!r}"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["summary", "{r}"],
        ["kernels", "{r}"],
        ["check", "{r}", "--max-graph-breaks", "0"],
        ["diff", "{golden}", "{r}"],
        ["suggest", "--list", "{r}"],
        ["ir", "{r}", "1"],
        ["repro", "{r}", "1"],
        ["summary", "{missing}"],  # an error line quoting the name
    ],
    ids=lambda a: a[0] + ("-error" if "{missing}" in a else ""),
)
def test_no_raw_control_reaches_the_terminal(hostile: Path, args: list[str]) -> None:
    names = {
        "r": str(hostile),
        "golden": str(GOLDEN),
        "missing": str(hostile.parent / f"x{HOSTILE}.inspectc"),
    }
    status, seen = on_pty(*(a.format(**names) for a in args), cwd=hostile.parent)
    assert status in (0, 1, 2), seen[-2000:]
    _assert_inert(seen)
    assert b"\\x1b]52" in seen or b"\\x1b" in seen, seen[-1500:]  # shown visibly, not dropped


def test_the_consent_prompt_shows_the_command_inert(hostile: Path) -> None:
    status, seen = on_pty("suggest", str(hostile), cwd=hostile.parent, answer=b"n\n")
    assert b"[y/N]" in seen, seen[-2000:]
    _assert_inert(seen)
    assert b"--lr\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x1b[1A\\x1b[2K\\x9b31m<U+202E>exe.<U+200B>" in seen, seen[
        -1500:
    ]
    assert status == 2 and b"not run (no consent)" in seen
    assert not (hostile.parent / "hostile.baseline-1.inspectc").exists()  # nothing ran


# -- the one function ---------------------------------------------------------------------------
def _unsafe(ch: str) -> bool:
    """What a terminal acts on or hides, by Python's own Unicode database."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs") and ch not in "\u200c\u200d"


def test_the_set_covers_every_control_and_format_character() -> None:
    missed = [f"U+{cp:04X}" for cp in range(0x110000) if _unsafe(chr(cp)) and safe(chr(cp)) == chr(cp)]
    assert not missed, missed[:20]
    kept = "aZ09 ~é中🙂\u200d\u0301"  # letters, digits, space, marks, emoji and their joiner
    assert safe(kept) == kept


controls = st.characters(codec="utf-8", categories=("Cc", "Cf", "Zl", "Zp"))
texts = st.lists(
    st.one_of(controls, st.characters(), st.sampled_from(["\x1b[2J", "\x1b]52;c;", "\u202e"])), max_size=40
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(parts=texts, keep=st.sampled_from(["", "\n", "\n\t"]))
def test_sweep_report_strings_with_control_characters(parts: list[str], keep: str) -> None:
    text = "".join(parts)
    shown = safe(text, keep)
    assert not any(_unsafe(ch) and ch not in keep for ch in shown), ascii(shown)
    assert safe(shown, keep) == shown  # idempotent: sanitizing twice changes nothing
    if not any(_unsafe(ch) and ch not in keep for ch in text):
        assert shown == text  # safe text is left alone
    assert "\x1b" not in shown and "\u202e" not in shown
