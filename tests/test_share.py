"""``inspectc share``: Markdown for an issue, a bundle to attach, an HTML page; all redacted.

Golden reports (real capture) and crafted reports with planted private values feed
``cli_share.share`` in-process (fast); one end-to-end test drives the installed CLI.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
import xml.etree.ElementTree as ET
import zipfile
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import run_cli

from inspectc.analysis.views import break_groups
from inspectc.cli.share import share
from inspectc.errors import ReportError
from inspectc.model import (
    CompileId,
    Failure,
    Frame,
    GraphBreak,
    Guard,
    Kernel,
    KernelTime,
    Recompile,
    Run,
    StackFrame,
)
from inspectc.render.export import export_report
from inspectc.render.share.markdown import GITHUB_LIMIT
from inspectc.share.found import redactor_for
from inspectc.share.redact import LEFT_OUT, Redactor
from inspectc.store.factory import ReportFactory
from inspectc.store.open import open_report

USER = "zq_alice"
HOME = f"/home/{USER}"
HOST = "qhost-7731"
PLANTED = (HOME, USER, HOST)
SECRET_LINE = "secret_line_42 = compute()"
HOSTILE = "<b>bold</b> <script>alert(1)</script>"


# ---------------------------------------------------------------------------
# Reports with planted values


def crafted_report(path: Path, *, breaks: int = 3, reason_len: int = 0) -> Path:
    """A report made with the report factory: planted home/user/host everywhere."""
    w = ReportFactory(
        path,
        Run(
            argv=("inspectc", "run", f"{HOME}/proj/train.py"),
            cwd=f"{HOME}/proj",
            hostname=HOST,
            python_version="3.12.3",
            torch_version="2.13.0+cpu",
            platform="Linux-6.8-x86_64",
            devices=("cpu: x86_64",),
            exit_code=0,
            end_reason="exit",
            capture_errors=(f"could not read {HOME}/.cache on {HOST}",),
        ),
    )
    header = f"# output code compiled by {USER}@{HOST} in {HOME}/proj\n"
    k1 = f"def triton_poi_fused_sin_0(in_ptr0):\n    # {HOME}/proj/train.py:12\n    pass\n"
    k2 = "def triton_poi_fused_cos_1(in_ptr0):\n    pass\n"
    kernels = [
        Kernel(
            id=-1,
            compile_id=CompileId.parse("0/0"),
            name=source.split("(")[0].removeprefix("def "),
            language="triton",
            kind="pointwise",
            source_size=len(source),
            time=KernelTime(calls=10, total_us=100.0 * (i + 1), mean_us=10.0 * (i + 1), min_us=1, max_us=30),
        )
        for i, source in enumerate((k1, k2))
    ]
    pieces = [header, (kernels[0], k1), f"\n# {USER} was here\n", (kernels[1], k2), "# end\n"]
    w.output_code("0/0", pieces, metadata={"inductor_output_code": {"filename": f"{HOME}/.cache/out.py"}})
    runnable = f"import os\nos.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/torchinductor_{USER}'\nimport torch\ndef forward(self, x):\n    # File: {HOME}/proj/train.py:12, code: {SECRET_LINE}\n    return (x,)\n"
    artifact = {"artifact": {"name": "fx_graph_runnable"}}
    w.graph("0/0", "fx_graph_runnable", runnable, name="artifact:fx_graph_runnable", metadata=artifact)
    start = {"dynamo_start": {"stack": [{"line": 12, "name": "f", "filename": 1, "loc": SECRET_LINE}]}}
    w.event("dynamo_start", compile_id="0/0", metadata=start)
    stack = (StackFrame(filename=f"{HOME}/proj/train.py", line=12, function="f", code=SECRET_LINE),)
    gbs = tuple(
        GraphBreak(
            reason=f"Unsupported call #{i} {HOSTILE} `tick` | in {HOME}/proj by {USER}" + " x" * reason_len,
            gb_type="Unsupported",
            gb_id=f"GB{i:04d}",
            explanation=f"```\n</details>\nsee {HOST}",
            hints=("hint <i>",),
            filename=f"{HOME}/proj/train.py",
            line=12 + i,
            user_stack=stack,
            raw=f"raw text {SECRET_LINE}",
        )
        for i in range(breaks)
    )
    w.frame(
        Frame(
            compile_id=CompileId.parse("0/0"),
            function="f",
            filename=f"{HOME}/proj/train.py",
            line=10,
            status="graph_break",
            user_stack=stack,
            graph_breaks=gbs,
            graph_kinds=("output_code", "fx_graph_runnable"),
            kernel_count=2,
            recompiles=(
                Recompile(
                    text=f"tensor 'x' size mismatch {HOSTILE} on {HOST}",
                    earlier_compile_id=CompileId.parse("0/0"),
                ),
            ),
            guards=(
                Guard(kind="TENSOR_MATCH", source="L['x']", code="check(L['x'])", user_code=SECRET_LINE),
            ),
        )
    )
    w.frame(
        Frame(
            compile_id=CompileId.parse("1/0"),
            ordinal=1,
            function="g",
            filename=f"{HOME}/proj/train.py",
            line=30,
            status="failed",
            failure=Failure(
                fail_type="TypeError",
                reason=f"{HOSTILE} in {HOME}/proj\n" * 40
                + f'\nfrom user code:\n   File "{HOME}/proj/train.py", line 33, in g\n    {SECRET_LINE}\n',
                filename=f"{HOME}/proj/train.py",
                line=33,
            ),
        )
    )
    return w.close()


def planted_golden(golden: Path, path: Path) -> Path:
    """The golden graph_breaks report, moved into a fake home on a fake host.

    Every text column gets the fake home; each output code payload gets a first line naming
    user, host and home, with the kernel slices moved past it by hand.
    """
    shutil.copy(golden / "graph_breaks.inspectc", path)
    db = sqlite3.connect(path)
    run = json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0])
    run["hostname"] = HOST
    run["cwd"] = f"{HOME}/proj"
    db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    # golden paths are relative to the checkout: made absolute in the fake home
    planted = ('"samples/', f'"{HOME}/proj/samples/')
    db.execute("UPDATE frames SET data = replace(data, ?, ?)", planted)
    db.execute("UPDATE events SET metadata = replace(metadata, ?, ?)", planted)
    header = f"# compiled by {USER} on {HOST} in {HOME}/proj\n"
    rows = db.execute("SELECT seq, payload FROM events WHERE name = 'inductor_output_code'").fetchall()
    assert rows
    for seq, blob in rows:
        text = header + zlib.decompress(blob).decode()
        db.execute("UPDATE events SET payload = ? WHERE seq = ?", (zlib.compress(text.encode()), seq))
        db.execute(
            "UPDATE kernels SET start = start + ?, stop = stop + ? WHERE seq = ?",
            (len(header), len(header), seq),
        )
    db.commit()
    db.close()
    return path


# ---------------------------------------------------------------------------
# Checkers


def bundle_texts(bundle: Path) -> dict[str, str]:
    """Every text of every file of a bundle: SQLite text columns, decompressed blobs, raw bytes."""
    texts: dict[str, str] = {}
    with zipfile.ZipFile(bundle) as archive, tempfile.TemporaryDirectory() as tmp:
        assert archive.testzip() is None
        for info in archive.infolist():
            data = archive.read(info)
            if not data.startswith(b"SQLite format 3\x00"):
                texts[info.filename] = data.decode("utf-8")
                continue
            texts[f"{info.filename} (raw bytes)"] = data.decode("latin-1")
            db_path = Path(tmp) / "r.db"
            db_path.write_bytes(data)
            db = sqlite3.connect(db_path)
            tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                for n, row in enumerate(db.execute(f"SELECT * FROM {table}")):
                    for i, value in enumerate(row):
                        if isinstance(value, bytes):
                            value = zlib.decompress(value).decode("utf-8")
                        if isinstance(value, str):
                            texts[f"{info.filename}:{table}[{n}][{i}]"] = value
            db.close()
    return texts


def assert_clean(texts: dict[str, str], *needles: str) -> None:
    leaks = [
        (where, needle)
        for where, text in texts.items()
        for needle in needles
        if needle.lower() in text.lower()
    ]
    assert not leaks, leaks[:10]


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def check_markdown(text: str) -> None:
    """Headings, balanced code fences, balanced <details> outside fences (CommonMark rules)."""
    fence: str | None = None
    depth = 0
    headings = 0
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is not None:
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and not match.group(2).strip()
            ):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        depth += len(re.findall(r"<details[ >]", line)) - line.count("</details>")
        assert depth >= 0, f"</details> without <details>: {line!r}"
        headings += bool(re.match(r"#{1,6} \S", line))
    assert fence is None, "a code fence is never closed"
    assert depth == 0, "a <details> is never closed"
    assert headings >= 2
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
    html_blocks = "".join(t.content for t in tokens if t.type == "html_block")
    assert html_blocks.count("<details") == html_blocks.count("</details>")
    assert any(t.type == "heading_open" and t.tag == "h2" for t in tokens)
    assert all(t.type != "html_inline" for t in _inline_children(tokens)), "raw HTML from the report"


def _inline_children(tokens: list) -> list:
    return [child for t in tokens if t.type == "inline" for child in t.children or []]


class _Balance(HTMLParser):
    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)  # <meta ... />: opens and closes itself

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()


def check_html(text: str) -> ET.Element:
    """Balanced, well-formed, nothing loaded from anywhere, one script: the page's own, the only
    one its Content-Security-Policy allows (by hash); links stay in the page or go to https."""
    import base64
    import hashlib

    parser = _Balance()
    parser.feed(text)
    parser.close()
    assert parser.stack == []
    assert not {"img", "iframe", "object", "embed", "form"} & set(parser.tags)
    assert parser.tags.count("script") == 1 and parser.tags.count("link") == 1  # the favicon: data:,
    assert text.startswith("<!DOCTYPE html>\n")
    root = ET.fromstring(text.split("\n", 1)[1])  # well-formed XML apart from the doctype
    policy = next(
        e.attrib["content"] for e in root.iter("meta") if e.get("http-equiv") == "Content-Security-Policy"
    )
    assert "default-src 'none'" in policy and "'unsafe-inline'" not in policy.split("script-src", 1)[1]
    (script,) = re.findall(r"<script>(.*?)</script>", text, re.DOTALL)  # as the browser hashes it
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in policy
    for element in root.iter():
        assert "src" not in element.attrib
        href = element.get("href")
        assert (
            href is None or href.startswith(("#", "https://")) or (element.tag == "link" and href == "data:,")
        )
    return root


# ---------------------------------------------------------------------------
# Golden report


@pytest.fixture(scope="module")
def golden_share(golden: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("share-golden")
    report = out / "graph_breaks.inspectc"
    shutil.copy(golden / "graph_breaks.inspectc", report)
    return report, share(report, output_dir=out / "out", html=True)


def test_golden_markdown_shows_what_happened(golden_share) -> None:
    report, shared = golden_share
    text = shared.markdown.read_text(encoding="utf-8")
    check_markdown(text)
    assert len(text) <= GITHUB_LIMIT
    assert "### Graph breaks (4 unique, 6 total)" in text
    assert "- **3×** `samples/graph_breaks.py:24` Unsupported Tensor.item() call" in text
    assert "`samples/graph_breaks.py:18`" in text
    assert "\\[GB0059\\] (0/0)" in text  # Markdown punctuation from the report is escaped
    assert "### Recompiles" in text and "tensor 'x' size mismatch at index 0" in text
    with open_report(report) as r:
        torch_version = r.run.torch_version
    assert f"torch:    {torch_version}" in text
    assert "### Top kernels (of 8 timed" in text and "### Frames (12)" in text
    assert "Redacted: home directories" in text


def test_golden_markdown_has_the_runs_break_stack_trie(golden_share) -> None:
    report, shared = golden_share
    text = shared.markdown.read_text(encoding="utf-8")
    stacks = text.split("### Break stacks", 1)[1].split("</details>", 1)[0]
    with open_report(report) as r:
        groups = break_groups(r.frames)
    leaves = [line for line in stacks.splitlines() if "● " in line]
    # a leaf per (stack, location, reason): one break reached from two call sites is two leaves
    assert len(leaves) >= len(groups) == 4
    assert sum(int(line.split("● ", 1)[1].split("×", 1)[0]) for line in leaves) == 6  # every break
    for g in groups:
        assert any(f"[{g.gb_id}]" in line for line in leaves), g.gb_id
    assert "in main" in stacks and "├─ " in stacks  # the call site they share, then the branches


def test_golden_bundle_reopens_with_report_summary_and_repros(golden_share) -> None:
    report, shared = golden_share
    with zipfile.ZipFile(shared.bundle) as archive:
        names = archive.namelist()
        assert archive.read("SUMMARY.md").decode() == shared.markdown.read_text(encoding="utf-8")
        repro = archive.read(f"repros/{shared.repros[0]}").decode()
    assert names[:3] == ["report.inspectc", "SUMMARY.md", "summary.html"]
    assert names[3:] == [f"repros/{n}" for n in shared.repros]
    with open_report(report) as original:
        expected = [
            f for f in original.frames if f.status == "graph_break" and "fx_graph_runnable" in f.graph_kinds
        ]
        frames = [(f.compile_id, f.status) for f in original.frames]
    assert len(shared.repros) == len(expected) == 6
    assert repro.startswith("# Runnable repro from torch (fx_graph_runnable) for frame 0/0")
    compile(repro, "repro.py", "exec")  # valid Python; never run here
    with open_report(shared.bundle) as bundled:
        assert [(f.compile_id, f.status) for f in bundled.frames] == frames
        data = export_report(bundled)
    assert len(data["graph_breaks"]) == 4


def test_golden_html_is_well_formed(golden_share) -> None:
    _, shared = golden_share
    assert shared.html is not None
    root = check_html(shared.html.read_text(encoding="utf-8"))
    text = "".join(root.itertext())
    assert "Graph breaks (4 unique, 6 total)" in text
    assert "samples/graph_breaks.py:24" in text
    assert root.find(".//details//div[@class='hl']") is not None  # source is highlighted


# ---------------------------------------------------------------------------
# Limits, privacy, escaping


@pytest.mark.slow
def test_huge_report_stays_under_githubs_limit(tmp_path: Path) -> None:
    report = crafted_report(tmp_path / "huge.inspectc", breaks=1500, reason_len=500)
    shared = share(report, output_dir=tmp_path / "out")
    text = shared.markdown.read_text(encoding="utf-8")
    assert len(text) <= GITHUB_LIMIT
    check_markdown(text)
    assert "Shortened to fit GitHub's 65,536-character limit.** Left out: " in text
    assert re.search(r"Left out: \d+ of 1500 lines of Graph breaks", text)
    assert "### Failed frames (1)" in text and "<summary>full error of 1/0</summary>" in text
    assert "### Top kernels (of " in text


@pytest.mark.parametrize("source", ["crafted", "golden"])
def test_planted_home_user_and_host_are_gone_from_every_file(
    golden: Path, tmp_path: Path, source: str
) -> None:
    if source == "crafted":
        report = crafted_report(tmp_path / "planted.inspectc")
    else:
        report = planted_golden(golden, tmp_path / "planted.inspectc")
    shared = share(report, output_dir=tmp_path / "out", html=True)
    texts = bundle_texts(shared.bundle)
    texts["md file"] = shared.markdown.read_text(encoding="utf-8")
    texts["html file"] = shared.html.read_text(encoding="utf-8") if shared.html else ""
    assert_clean(texts, *PLANTED)
    assert (
        "Redacted: home directories → \\~, host name → &lt;host&gt;, user name → &lt;user&gt;"
        in texts["md file"]
    )
    # Kernel sources moved with the redaction: each is the original's, redacted.
    with open_report(report) as original, open_report(shared.bundle) as copy:
        redactor = redactor_for(original)
        assert copy.run.hostname == "<host>" and copy.run.cwd == "~/proj"
        pairs = list(zip(original.kernels, copy.kernels, strict=True))
        assert pairs
        for before, after in pairs:
            assert copy.kernel_source(after) == redactor.sub(original.kernel_source(before))
        assert [f.compile_id for f in copy.frames] == [f.compile_id for f in original.frames]


def test_no_redact_keeps_names_and_says_so(tmp_path: Path) -> None:
    report = crafted_report(tmp_path / "planted.inspectc")
    shared = share(report, output_dir=tmp_path / "out", redact=False)
    text = shared.markdown.read_text(encoding="utf-8")
    assert "Not redacted (--no-redact)" in text
    with open_report(shared.bundle) as copy:
        assert copy.run.hostname == HOST


def test_no_source_leaves_out_user_code_kernel_source_and_repros(tmp_path: Path) -> None:
    report = crafted_report(tmp_path / "planted.inspectc")
    shared = share(report, output_dir=tmp_path / "out", html=True, no_source=True)
    texts = bundle_texts(shared.bundle)
    texts["html file"] = shared.html.read_text(encoding="utf-8") if shared.html else ""
    assert_clean(texts, SECRET_LINE, "triton_poi_fused_sin_0(in_ptr0)", *PLANTED)
    assert shared.repros == ()
    assert (
        "Left out (--no-source): user source lines, kernel source, graphs and repros." in texts["SUMMARY.md"]
    )
    with open_report(shared.bundle) as copy:
        assert {copy.kernel_source(k) for k in copy.kernels} == {LEFT_OUT}
        assert json.loads(copy.meta["redaction"])["left_out"]


def test_report_text_is_shown_never_interpreted(tmp_path: Path) -> None:
    report = crafted_report(tmp_path / "hostile.inspectc")
    shared = share(report, output_dir=tmp_path / "out", html=True)
    markdown = shared.markdown.read_text(encoding="utf-8")
    check_markdown(markdown)  # also: no raw inline HTML reaches the Markdown
    assert "&lt;b&gt;bold&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;" in markdown
    assert shared.html is not None
    page = shared.html.read_text(encoding="utf-8")
    root = check_html(page)
    assert not [e for e in root.iter() if e.tag in ("b", "i")]  # and one script: the page's own
    assert HOSTILE in "".join(root.itertext())
    assert "Content-Security-Policy" in page


def test_cli_share_end_to_end(tmp_path: Path) -> None:
    report = crafted_report(tmp_path / "run.inspectc")
    proc = run_cli("share", str(report), "-o", str(tmp_path / "out"), "--html", check=True)
    paths = [Path(p) for p in proc.stdout.split()]
    assert [p.name for p in paths] == ["run.share.md", "run.share.zip", "run.share.html"]
    assert all(p.is_file() for p in paths)
    assert "attach run.share.zip" in proc.stderr
    exported = json.loads(run_cli("export", str(paths[1]), "--json", check=True).stdout)
    assert exported["run"]["hostname"] == "<host>"
    again = run_cli("share", str(paths[1]), check=True)  # a bundle can be shared again
    assert "run.share.share.md" in again.stdout
    missing = run_cli("share", str(tmp_path / "nope.inspectc"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


# ---------------------------------------------------------------------------
# The redactor


def test_redactor_replaces_homes_users_hosts_and_moves_offsets() -> None:
    r = Redactor.for_report(
        hostnames=[f"{HOST}.corp.example"], paths=[f"{HOME}/p.py", "/Users/josé/x"], this_machine=False
    )
    text = f"{HOME}/p.py by {USER} on {HOST.upper()} and {HOST}.corp.example; C:\\Users\\bob\\x"
    assert r.sub(text) == "~/p.py by <user> on <host> and <host>; ~\\x"
    assert r.sub(json.dumps({"p": "/Users/josé/x", "u": "josé"})) == '{"p": "~/x", "u": "<user>"}'
    assert r.sub(f"{USER}x x{USER} /homework") == f"{USER}x x{USER} /homework"  # whole words only
    text = f"ab {HOME}/x {USER} cd"
    new, moved = r.sub_mapped(text, [0, 3, 8, text.index("/x"), text.index(" cd")])
    assert new == "ab ~/x <user> cd"
    assert moved[3] == 3 and moved[8] == 4 and moved[text.index("/x")] == new.index("/x")
    assert moved[text.index(" cd")] == new.index(" cd")


def test_any_users_inductor_cache_folder_is_redacted() -> None:
    r = Redactor.for_report(this_machine=False)
    assert r.sub("os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/torchinductor_bob'") == (
        "os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/torchinductor_<user>'"
    )


def test_shared_account_names_are_not_words_but_their_homes_go() -> None:
    r = Redactor.for_report(hostnames=[], paths=["/home/root/x"], this_machine=False)
    assert r.sub("/home/root/x root guard") == "~/x root guard"
    assert "user name" in r.skipped


def test_corrupt_payload_is_one_clear_error(tmp_path: Path) -> None:
    report = crafted_report(tmp_path / "corrupt.inspectc")
    db = sqlite3.connect(report)
    db.execute("UPDATE events SET payload = x'00112233' WHERE name = 'inductor_output_code'")
    db.commit()
    db.close()
    with pytest.raises(ReportError, match="cannot make a shareable copy"):
        share(report, output_dir=tmp_path / "out")
    assert not (tmp_path / "out" / "corrupt.share.zip").exists()


def test_no_source_keeps_a_readable_report_whose_records_hold_no_source_line(tmp_path: Path) -> None:
    """The run's records (export issues with the user's lines) are data the summary reads:
    --no-source strips their source lines, it does not blank the event (the copy must open)."""
    log = Path(__file__).parent / "data" / "logs" / "draft_export" / "dtrace.log"
    report = tmp_path / "d.inspectc"
    assert run_cli("import", str(log), "-o", str(report)).returncode == 0
    source_line = "if n > 2:"
    assert source_line in run_cli("export", "--json", str(report)).stdout
    out = tmp_path / "out"
    proc = run_cli("share", str(report), "--no-source", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(next(out.glob("*.zip"))) as bundle:
        (tmp_path / "copy.inspectc").write_bytes(
            bundle.read(next(n for n in bundle.namelist() if n.endswith(".inspectc")))
        )
    exported = run_cli("export", "--json", str(tmp_path / "copy.inspectc"))
    assert exported.returncode == 0, exported.stderr
    programs = json.loads(exported.stdout)["exported_programs"]
    issues = [i for p in programs for i in p["issues"]]
    assert issues and all(i["code"] is None for i in issues)  # the records are there, without code
    assert all(s["code"] is None for i in issues for s in i["user_stack"])
    assert source_line not in exported.stdout
