"""One report through every renderer: the terminal summary, the share Markdown, the HTML page,
the JSON export and the TUI's summary show the same counts, breaks, recompiles, suggestions and
paths, because they all render one section model (``inspectc.render.sections``).

Each output is read back as its reader would (the CLI's stdout, the Markdown's text, the HTML
parsed, the JSON loaded) and compared with counts taken from the export's frames, not from the
section model itself.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import REPORTS, SAMPLES, run_cli

from inspectc.render.sections.page import summary_page
from inspectc.render.share.markdown import render_markdown
from inspectc.store.open import open_report

GOLDEN = sorted(REPORTS.glob("*.inspectc"))


class _Text(HTMLParser):
    """The page's visible text, and the counts it carries in data- attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.headline: dict[str, str] = {}
        self.frames = 0
        self.kernels = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id") == "overview":
            self.headline = {k[5:]: v or "" for k, v in found.items() if k.startswith("data-")}
        classes = (found.get("class") or "").split()
        if tag == "details" and "article" in classes:
            self.frames += "frame" in classes
            self.kernels += "kernel" in classes

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _outputs(report: Path, cwd: Path | None = None) -> dict[str, str]:
    """Every output of *report*, as text a reader would search."""
    terminal = run_cli("summary", str(report), check=True, cwd=cwd).stdout
    page_file = report.with_suffix(".html")
    run_cli("html", str(report), "-o", str(page_file), "--no-pictures", check=True, cwd=cwd)
    parser = _Text()
    parser.feed(page_file.read_text(encoding="utf-8"))
    exported = json.loads(run_cli("export", str(report), check=True, cwd=cwd).stdout)
    from inspectc_tui.overview.summary import page_text, section_text

    with open_report(report) as opened:
        page = summary_page(opened, report_path=str(report))
        markdown = render_markdown(page)
    tui = "\n".join([page_text(page).plain, *(section_text(s).plain for s in page.sections)])
    return {
        "terminal": terminal,
        "markdown": html.unescape(markdown.replace("\\", "")),
        "html": "".join(parser.parts),
        "json": "\n".join(_strings(exported["summary"])),
        "tui": tui,
        "_export": json.dumps(exported),
        "_counts": json.dumps(parser.headline),
        "_articles": json.dumps([parser.frames, parser.kernels]),
    }


def _strings(value: object) -> list[str]:
    """Every string in a JSON value (what a script reading the export can find)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _expected(exported: dict) -> dict[str, int]:
    """The counts from the export's own frames (not from the section model)."""
    frames = exported["frames"]
    return {
        "frames": len(frames),
        "graph_breaks": sum(len(f["graph_breaks"]) for f in frames),
        "recompiles": sum(len(f["recompile_reasons"]) for f in frames),
        "failed": sum(1 for f in frames if f["status"] == "failed"),
        "unique_breaks": len(exported["graph_breaks"]),
    }


def _check(report: Path, cwd: Path | None = None) -> dict[str, str]:
    out = _outputs(report, cwd)
    exported = json.loads(out["_export"])
    summary = exported["summary"]
    expected = _expected(exported)
    for name, count in expected.items():
        assert summary["counts"][name] == count, (name, summary["counts"], expected)
    assert {k: int(v) for k, v in json.loads(out["_counts"]).items()} == summary["counts"]
    frames, kernels = json.loads(out["_articles"])
    assert frames == expected["frames"]
    assert kernels == sum(len(f["kernels"]) for f in exported["frames"])
    shown = {k: v for k, v in out.items() if not k.startswith("_")}
    for name, text in shown.items():
        assert summary["headline"] in text, name
    for section in summary["sections"]:
        if section["key"] in ("versions", "frames", "stacks", "kernels", "artifacts"):
            continue  # tables and folded parts: each output shows its share of them
        for name, text in shown.items():
            if name == "terminal" and not section["brief"]:
                continue  # shown by the fuller outputs only
            assert section["title"] in text, (name, section["title"])
        for item in section["items"]:
            for p in item.get("paths", []):  # a path reads the same, relative to the run's folder
                for name, text in shown.items():
                    assert p["shown"] in text, (name, p["shown"])
    suggestions = exported["suggestions"]
    for s in suggestions[:8]:
        wanted = s["python"] or s["code_change"]
        for name, text in shown.items():
            assert wanted in text, (name, wanted)
    return out


@pytest.mark.parametrize("report", GOLDEN, ids=lambda p: p.stem)
def test_every_output_says_the_same_of_a_golden_report(report: Path, tmp_path: Path) -> None:
    copy = tmp_path / report.name
    shutil.copy(report, copy)
    _check(copy)


@pytest.mark.timeout(600)
def test_every_output_says_the_same_of_a_rank_folder(tmp_path: Path) -> None:
    logs = Path(__file__).resolve().parents[2] / "shared" / "traces" / "multi_rank_logs"
    if not logs.is_dir():
        pytest.skip("../shared/traces/multi_rank_logs is not beside this checkout")
    report = tmp_path / "ranks.inspectc"
    run_cli("import", str(logs), "-o", str(report), check=True)
    out = _check(report)
    assert "Rank differences" in out["terminal"]


@pytest.mark.capture
def test_paths_are_relative_to_the_runs_folder_in_every_output(tmp_path: Path) -> None:
    """A script run by its absolute path from its own folder: every output shows its lines
    relative to that folder, the JSON keeps the absolute path beside it."""
    script = tmp_path / "item_break.py"
    shutil.copy(SAMPLES / "suggest_item.py", script)
    report = tmp_path / "item.inspectc"
    run_cli("run", "-q", "-o", str(report), str(script), cwd=tmp_path, check=True)
    out = _check(report, cwd=Path("/"))  # read from elsewhere: the run's folder decides
    for name, text in out.items():
        if name.startswith("_"):
            continue
        assert "item_break.py:7" in text, name
        assert not re.search(re.escape(str(tmp_path)) + r"/item_break\.py:\d", text), name
    summary = json.loads(out["_export"])["summary"]
    breaks = next(s for s in summary["sections"] if s["key"] == "breaks")
    assert breaks["items"][0]["paths"][0]["path"] == str(script)


def test_a_data_dependent_symbol_is_named_as_one_in_both_shape_sections() -> None:
    """An unbacked symbol (``.item()``, ``nonzero``) has no source: the run's section and the
    frame's say ``u0 (data-dependent)``, never ``u0=None``; a backed one keeps its source."""
    from inspectc.model import CompileId, Frame, Run
    from inspectc.model.extras import Symbol, SymbolicShapes
    from inspectc.render.sections import text_of
    from inspectc.render.sections.extras import symbolic_shapes
    from inspectc.render.sections.frame import extras

    shapes = SymbolicShapes(
        symbols=(
            Symbol(symbol="s77", source="L['x'].size()[0]", value="8"),
            Symbol(symbol="u0", unbacked=True, filename="/w/t.py", line=9),
        )
    )
    frame = Frame(
        compile_id=CompileId.parse("0/0"), filename="/w/t.py", line=4, function="f", symbolic_shapes=shapes
    )
    run_section = symbolic_shapes([frame], Run())
    frame_section = extras(frame, Run())
    assert run_section is not None and frame_section is not None
    for section in (run_section, frame_section):
        text = text_of(section.items[-1].line)
        assert "s77=L['x'].size()[0], u0 (data-dependent)" in text and "None" not in text, text
