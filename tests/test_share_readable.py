"""No false redaction of code: a real transformers BERT and GPT-2 (built from a config, no
download) shared, their FX graphs, guards and kernel source still read as torch wrote them.

A name is never a secret because it holds ``token`` or ``key``: ``token_type_ids``,
``position_ids``, ``past_key_values``, ``first_token_tensor`` and ``key_states`` stay in
the bundled report as often as in the private one (counted with sqlite3 and zlib here), no
``<secret>`` appears in it, and share's count of secret removals is zero. detect-secrets,
run by share over every member, lets the bundle through (share exits 0) and ``--check``
agrees.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zipfile
import zlib
from pathlib import Path

import pytest
from conftest import REPORTS, Captures, plant_detail, run_cli

pytest.importorskip("transformers")

MODELS = {
    "bert": (
        ("hf_bert.py", "--device", "cpu", "--layers", "1"),
        ("token_type_ids", "position_ids", "first_token_tensor"),
    ),
    "gpt2": (("gpt2_tiny.py", "--steps", "2"), ("position_ids", "past_key_values", "key_states")),
}
_SECRET_RULES = (
    "secret assignment",
    "secret flag",
    "secret key",
    "run secret",
    "tool password",
    "private key",
)


def texts(report: Path) -> str:
    """Payloads (FX graphs, guards, output code), frames and kernels of a report, joined."""
    db = sqlite3.connect(report)
    found = [
        zlib.decompress(p).decode()
        for (p,) in db.execute("SELECT payload FROM events WHERE payload IS NOT NULL")
    ]
    found += [d for (d,) in db.execute("SELECT data FROM frames")]
    found += [f"{n}\n{d}" for n, d in db.execute("SELECT name, data FROM kernels")]
    db.close()
    return "\n".join(found)


@pytest.mark.capture
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("model", sorted(MODELS))
def test_model_code_stays_readable(captures: Captures, tmp_path: Path, model: str) -> None:
    args, names = MODELS[model]
    run = captures.get(*args)
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    out = tmp_path / "out"
    made = run_cli("share", str(run.report), "--show-redactions", "-o", str(out))
    assert made.returncode == 0, made.stderr  # detect-secrets let it through
    with zipfile.ZipFile(next(out.glob("*.zip"))) as archive:
        (tmp_path / "r.inspectc").write_bytes(archive.read("report.inspectc"))
    before, after = texts(run.report), texts(tmp_path / "r.inspectc")
    for name in names:
        assert before.count(name) > 0, name  # torch wrote it: the test can fail
        assert after.count(name) == before.count(name), (name, before.count(name), after.count(name))
    assert "<secret>" not in after and "<redacted str>" not in after
    removed = dict(re.findall(r"^  ([a-z][\w .-]*): (\d+)$", made.stdout, re.M))
    assert not set(removed) & set(_SECRET_RULES), removed
    summary = re.search(r"removed by rule \(once per field\): (.*)", made.stderr)
    assert summary and not any(rule in summary.group(1) for rule in _SECRET_RULES), made.stderr
    check = run_cli("share", "--check", str(next(out.glob("*.zip"))))
    assert check.returncode == 0 and "no known secret pattern found by" in check.stdout, check.stdout


# -- the second opinion on what torch writes (no compile) ----------------------------------------
def _flags(*lines: str) -> list[str]:
    from inspectc.share.detect import Doc, scan

    doc = Doc("report.json")
    for n, line in enumerate(lines):
        doc.add(f"line {n}", line)
    return [f.line() for f in scan([doc])]


def test_a_temp_folder_and_an_escaped_config_name_are_no_secret() -> None:
    """A run's cwd under a random temp folder (Inductor logs it as xpu.cutlass_dir) and a config
    name inside a JSON string (its quote escaped) were flagged as Base64 high entropy, so
    `share` refused a harmless report, depending on the temp folder's random name."""
    cwd = "/tmp/inspectc-tests-broj_wbz/captures/hf_generate-002114675f"
    assert (
        _flags(
            '{"inductor_config": "{\\"xpu.cutlass_dir\\": \\"' + cwd + '\\"}"}',
            '{"payload": "config.patch(\\"force_disable_cudagraph_TESTING_ONLY\\", True)"}',
        )
        == []
    )


def test_a_long_random_part_of_a_path_and_a_bare_key_are_still_flagged() -> None:
    key = "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"  # 32 characters of a random key
    flagged = _flags(f'{{"cwd": "/home/u/{key}/x"}}', f'{{"value": "{key}"}}')
    assert flagged == [
        "Base64 High Entropy String in line 0",
        "Base64 High Entropy String in line 1",
    ], flagged


def test_a_secret_far_into_a_one_line_json_payload_is_seen_by_the_second_opinion(tmp_path: Path) -> None:
    """A payload of one line of JSON (a cache key's runs to 175 KB) was given to detect-secrets
    whole, and it reads only a line's first 64K characters: a key past them went unseen. The
    payload is now read value by value, like every other JSON cell."""
    from inspectc.share.check import report_texts
    from inspectc.share.detect import Doc, scan

    report = tmp_path / "r.inspectc"
    shutil.copy(REPORTS / "mlp_train.inspectc", report)
    payload = json.dumps({"filler": "fused " * 20_000, "aws": "AKIAZ7Q2LX5MBN3RT4VW"})
    assert len(payload) > 100_000 and "\n" not in payload
    with sqlite3.connect(report) as db:
        plant_detail(db, "cpp_fused_planted_0", payload)
    doc = Doc("report.txt")
    for where, text in report_texts(report):
        doc.add(where, text)
    flags = [f.line() for f in scan([doc]) if "inspectc_kernel_detail" in f.where]
    assert any(f.startswith("AWS Access Key in ") and f.endswith(" payload: aws") for f in flags), flags
