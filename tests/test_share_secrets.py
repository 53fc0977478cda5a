"""Redaction against real secrets (issue 25): one real capture of ``samples/secrets_run.py``,
run with ``--password hunter2 --db-pass ...`` and ``MY_API_TOKEN`` set, shared in every
format; no secret may survive in any byte of any output, ``share --check`` passes on what
share wrote and fails, naming the field and the rule, on each planted leak.
"""

from __future__ import annotations

import shutil
import sqlite3
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli

from inspectc.errors import UsageError
from inspectc.model import secrets as run_secrets
from inspectc.share.check import check_bundle
from inspectc.share.redact import Redactor
from inspectc.share.rules import RULES, load_rules

PASSWORD = "hunter2"
DB_PASS = "dbpass-77zz"
ENV_TOKEN = "tk-live-93fhq8xv"
# What the sample's guards, graph break and exception carry, by the rule that must remove it.
SECRETS = {
    "run secret (argv, in a guard)": PASSWORD,
    "run secret (argv)": DB_PASS,
    "run secret (environment, in a guard)": ENV_TOKEN,
    "url credentials": "pa55w0rd",
    "email": "alice.smith@example.com",
    "ipv4": "10.20.30.4",
    "ipv6": "fd12:3456:789a::1",
    "bearer token": "eyJhbGciOiJIUzI1NiJ9abcdef",
    "secret assignment": "qwerty-9931",
    "github token": "ghp_" + "x" * 36,
    "hf token": "hf_" + "y" * 30,
    "aws key": "AKIA" + "Q" * 16,
    "openai key": "sk-" + "z" * 30,
    "slack token": "xoxb-" + "1" * 20,
    "cluster user (/fsx/, graph break)": "jdoe_q",
    "cluster user (/checkpoint/)": "mary_q",
    "cluster user (/lustre/)": "lu_q",
    "cluster user (/gpfs/)": "gp_q",
    "cluster user (/nfs/)": "nf_q",
    "cluster user (/mnt/)": "mn_q",
    "home (/Users/)": "us_q",
    "home (C:\\Users\\)": "wi_q",
    "home (/home/)": "ho_q",
    "cluster user (/data/users/)": "du_q",
}


@dataclass(frozen=True)
class Shared:
    report: Path
    out: Path
    files: dict[str, bytes]  # every output, every bundle member, and the JSON export: raw bytes
    show: str  # --show-redactions' output


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Shared:
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("secrets")
    report = base / "secrets.inspectc"
    proc = run_cli(
        "run",
        "-o",
        str(report),
        str(SAMPLES / "secrets_run.py"),
        "--password",
        PASSWORD,
        "--db-pass",
        DB_PASS,
        cwd=base,
        env={"MY_API_TOKEN": ENV_TOKEN, "TORCHINDUCTOR_CACHE_DIR": str(base / "cache")},
    )
    assert report.exists(), proc.stderr
    out = base / "out"
    made = run_cli("share", str(report), "--html", "--show-redactions", "-o", str(out))
    assert made.returncode == 0, made.stderr
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    with zipfile.ZipFile(out / "secrets.share.zip") as archive:
        files |= {f"zip:{n}": archive.read(n) for n in archive.namelist()}
    exported = run_cli("export", str(out / "secrets.share.zip"), "--json")
    assert exported.returncode == 0, exported.stderr
    files["export.json"] = exported.stdout.encode()
    return Shared(report, out, files, made.stdout)


@pytest.mark.capture
def test_the_private_report_holds_the_secrets_and_only_hashes_of_the_environment(shared: Shared) -> None:
    raw = shared.report.read_bytes()
    assert PASSWORD.encode() in raw  # the guard recorded it: the report is private
    assert b"L['pw'] == 'hunter2'" in raw
    meta = sqlite3.connect(shared.report).execute(
        "SELECT value FROM meta WHERE key = ?", (run_secrets.META_KEY,)
    )
    stored = meta.fetchone()[0]
    assert ENV_TOKEN not in stored and PASSWORD not in stored  # salted hashes and lengths only


@pytest.mark.capture
@pytest.mark.parametrize("what", sorted(SECRETS))
def test_no_secret_survives_in_any_output(shared: Shared, what: str) -> None:
    value = SECRETS[what].encode()
    left = [name for name, data in shared.files.items() if value in data]
    assert not left, (what, left)


@pytest.mark.capture
def test_guards_keep_their_shape_and_no_hash_is_shipped(shared: Shared) -> None:
    report = shared.files["zip:report.inspectc"]
    assert b"L['pw'] == <redacted str>" in report
    assert b"L['tok'] == <redacted str>" in report
    assert run_secrets.META_KEY.encode() not in report
    summary = shared.files["secrets.share.md"].decode()
    assert "--password '<secret>'" in summary and "Authorization: Bearer <secret>" in summary


@pytest.mark.capture
def test_show_redactions_lists_field_and_rule_on_the_terminal_only(shared: Shared) -> None:
    assert "removed from" in shared.show
    assert any("frame 0/0: run secret:" in line and "hunter2" in line for line in shared.show.splitlines())
    assert "meta run: email:" in shared.show
    assert not any(b"removed from" in data for data in shared.files.values())


@pytest.mark.capture
def test_check_passes_on_every_bundle_share_writes(shared: Shared, tmp_path: Path) -> None:
    check = run_cli("share", "--check", str(shared.out / "secrets.share.zip"))
    assert check.returncode == 0, check.stdout + check.stderr
    lean = run_cli("share", str(shared.report), "--no-source", "-o", str(tmp_path))
    assert lean.returncode == 0, lean.stderr
    assert check_bundle(tmp_path / "secrets.share.zip").findings == []


LEAKS = [
    ("email", "write to carol.q@example.org"),
    ("ipv4", "peer 192.168.7.21"),
    ("ipv6", "peer 2001:db8::8a2e:370:7334"),
    ("url credentials", "https://u:pw12345@example.org/x"),
    ("bearer token", "curl -H Bearer abcdefgh12345678"),
    ("secret flag", "train.py --db-pass s3cr3tvalue"),
    ("secret assignment", "HF_TOKEN=abcdef123"),
    ("cluster user", "/fsx/evelyn/ckpt"),
    ("home", "/home/evelyn/x"),
    ("github token", "ghp_" + "k" * 36),
]


@pytest.mark.capture
@pytest.mark.parametrize(("rule", "leak"), LEAKS, ids=[r for r, _ in LEAKS])
def test_check_names_field_and_rule_of_a_planted_leak(
    shared: Shared, tmp_path: Path, rule: str, leak: str
) -> None:
    bundle = tmp_path / "leaky.zip"
    with zipfile.ZipFile(shared.out / "secrets.share.zip") as src, zipfile.ZipFile(bundle, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            dst.writestr(name, data + leak.encode() if name == "summary.html" else data)
    found = [f.line() for f in check_bundle(bundle).findings]
    assert any(line.startswith(f"{rule} (inspectc) in summary.html") for line in found), found


@pytest.mark.capture
def test_check_names_a_leak_planted_in_the_reports_guards(shared: Shared, tmp_path: Path) -> None:
    bundle = tmp_path / "leaky.zip"
    with zipfile.ZipFile(shared.out / "secrets.share.zip") as src:
        src.extract("report.inspectc", tmp_path)
        db = sqlite3.connect(tmp_path / "report.inspectc")
        db.execute("UPDATE frames SET data = replace(data, '<redacted str>', '''x@corp.example.com''')")
        db.commit()
        db.close()
        with zipfile.ZipFile(bundle, "w") as dst:
            for name in src.namelist():
                if name == "report.inspectc":
                    dst.write(tmp_path / "report.inspectc", name)
                else:
                    dst.writestr(name, src.read(name))
    check = run_cli("share", "--check", str(bundle))
    assert check.returncode == 1
    assert "email (inspectc) in report.inspectc: frames 0/0 data: guards[" in check.stdout, check.stdout


@pytest.mark.capture
def test_user_rules_file_redacts_and_checks(shared: Shared, tmp_path: Path) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_text("# project names\nproject = (?P<keep>step_at_)\\d+\n")
    out = tmp_path / "out"
    made = run_cli("share", str(shared.report), "--redact-rules", str(rules), "-o", str(out))
    assert made.returncode == 0, made.stderr
    assert b"step_at_26" not in (out / "secrets.share.zip").read_bytes()
    assert b"step\\_at\\_&lt;project&gt;" in (out / "secrets.share.md").read_bytes()  # escaped
    plain = tmp_path / "plain"
    shutil.copytree(shared.out, plain)
    check = run_cli("share", "--check", str(plain / "secrets.share.zip"), "--redact-rules", str(rules))
    assert check.returncode == 1 and "project (inspectc) in" in check.stdout, check.stdout


# -- the table itself: no capture -------------------------------------------------------------


def test_rules_file_is_parsed_never_run(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    for text, why in (
        ("no equals sign", "expected `name = regex`"),
        ("x = (", "bad regex"),
        ("x = a*", "matches empty text"),
        ("x = (?P<n>a)", "only the named group"),
        ("x = (a)\\1", "back-references"),
    ):
        bad.write_text(text + "\n")
        with pytest.raises(UsageError, match=why):
            load_rules(bad)
    good = tmp_path / "good.txt"
    good.write_text("\n# comment\nticket = TICKET-\\d+\n")
    (rule,) = load_rules(good)
    assert (rule.name, rule.placeholder) == ("ticket", "<ticket>")


def test_ordinary_code_is_not_taken_for_a_secret() -> None:
    r = Redactor.for_report(this_machine=False)
    code = "num_tokens=5 key=3 sorted(key=f) keyboard=1 v 2.13.0 c10::Half at::cuda 127.0.0.1 x@self.weight"
    assert r.sub(code) == code
    inductor = 'pre_grad_custom_pass: None, "[x] cache_key_tag: ", "[y] z", \\"auth_token\\": \\"\\"'
    assert r.sub(inductor) == inductor  # Inductor's config lines, as a real TORCH_TRACE log has them
    assert not run_secrets.is_secret_name("PWD") and not run_secrets.is_secret_name("max_tokens")
    assert run_secrets.is_secret_name("--db-pass") and run_secrets.is_secret_name("MY_API_TOKEN")
    # one-word names an audit planted (libpq, sshpass, Azure), and what stays ordinary
    for name in ("PGPASSWORD", "SSHPASS", "APITOKEN", "AUTHTOKEN", "JWT", "AccountKey"):
        assert run_secrets.is_secret_name(name), name
    assert run_secrets.is_secret_name("AZURE_STORAGE_CONNECTION_STRING")
    for name in ("passthrough", "bypass", "compass", "keyboard", "tokenizer"):
        assert not run_secrets.is_secret_name(name), name
    azure = "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyMTIzNDU2Nzg5MA==;x=1"
    assert "Zm9vYmFy" not in r.sub(azure)
    # a source file named like a secret keeps its line: auth.py:10 is a place, not a value
    places = "auth.py:10 in login, /x/token_utils.py:5 in f, jwt_utils.cpp:12"
    assert r.sub(places) == places
    assert r.sub("password: 12345678") == "password: <secret>"


def test_placeholders_match_no_rule() -> None:
    """What the redactor writes, the checker never reports (in any escaping)."""
    r = Redactor.for_report(this_machine=False)
    for rule in RULES:
        text = f"x {rule.placeholder} /data/users/<user>/a --password <secret> L['pw'] == <redacted str>"
        assert r.found_in(text) == [], (rule.name, r.found_in(text))


def test_a_flag_that_holds_its_value_does_not_take_the_next_argument_as_one() -> None:
    """``--gh=<token>`` carries its own value: ``API_KEY=<secret>`` after it is no value of it
    (a redacted bundle's argv was read as holding a secret: share --check flagged its own copy)."""
    from inspectc.model.secrets import secret_values

    assert secret_values(["run", "--gh=<token>", "API_KEY=<secret>"], {}) == ["<secret>"]  # its own
    assert secret_values(["run", "--token=tok3n-value", "next-arg"], {}) == ["tok3n-value"]
    assert secret_values(["run", "--api-token", "s3cr3t-value"], {}) == ["s3cr3t-value"]
