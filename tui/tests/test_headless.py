"""The TUI's headless parts: literal text, source lookup, fusion lookup, search, actions."""

from __future__ import annotations

import os
from pathlib import Path

from inspectc_tui.actions import editor_command, export_file_stem
from inspectc_tui.data import load_report
from inspectc_tui.fusion import graph_for_kernel, kernels_for_node, node_at, node_line
from inspectc_tui.source import excerpt, resolve
from inspectc_tui.text import escape_controls, literal, short_path

from inspectc.model import CompileId, Kernel


def test_literal_never_interprets_markup_or_escapes() -> None:
    text = literal("[bold red]x[/] \x1b[31mred\x1b[0m\x07")
    # the one sanitizer (model/terminal.py): every control shown as Python writes it
    assert text.plain == "[bold red]x[/] \\x1b[31mred\\x1b[0m\\x07"
    assert not text.spans
    assert literal("first\nsecond", one_line=True).plain == "first …"
    assert literal(None, empty="none").plain == "none"
    assert escape_controls("a\tb") == "a   b"


def test_short_path_is_relative_to_the_run_not_the_viewer() -> None:
    assert short_path("/home/a/proj/m.py", "/home/a/proj") == "m.py"
    assert short_path("/elsewhere/m.py", "/home/a/proj") == "/elsewhere/m.py"
    assert short_path(None, "/x") == "?"


def test_resolve_finds_moved_checkouts(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("a\nb\nc\n")
    monkeypatch.chdir(tmp_path)
    # Recorded on another machine under /home/bob/proj: found relative to cwd here.
    assert resolve("/home/bob/proj/pkg/m.py", "/home/bob/proj", None) == tmp_path / "pkg" / "m.py"
    assert resolve("pkg/m.py", None, None) == tmp_path / "pkg" / "m.py"
    assert resolve("/home/bob/other/m.py", "/home/bob/proj", None) is None
    assert resolve("<frozen runpy>", None, None) is None
    # Relative to the folders above the report (a report inside the checkout).
    monkeypatch.chdir("/")
    report = tmp_path / "out" / "r.inspectc"
    assert resolve("/home/bob/proj/pkg/m.py", "/home/bob/proj", report) == tmp_path / "pkg" / "m.py"


def test_excerpt_says_why_not(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("".join(f"line{i}\n" for i in range(1, 31)))
    found = excerpt(str(src), 15, run_cwd=None, report_path=None, context=2)
    assert (found.first, found.lines, found.focus, found.note) == (
        13,
        ["line13", "line14", "line15", "line16", "line17"],
        15,
        None,
    )
    missing = excerpt("/nonexistent/x.py", 3, run_cwd=None, report_path=None)
    assert missing.note == "source not available on this machine: /nonexistent/x.py" and not missing.lines
    assert excerpt(None, None, run_cwd=None, report_path=None).note == "no source location recorded"
    assert "has no line" in (excerpt(str(src), 500, run_cwd=None, report_path=None).note or "")
    if os.geteuid() != 0:
        src.chmod(0)
        assert excerpt(str(src), 1, run_cwd=None, report_path=None).note


def test_fusion_lookups() -> None:
    assert node_at('        sin_1: "f32[64][1]cpu" = torch.ops.aten.sin.default(sin)') == "sin_1"
    assert node_at("        add = torch.ops.aten.add.Tensor(x, 1)") == "add"
    assert node_at("#   %relu : [num_users=1] = call_function[target=torch.ops.aten.relu]") == "relu"
    assert node_at('    def forward(self, arg0_1: "f32[4]"):') is None
    assert node_at("        return (add,)") is None
    assert node_at("        x == y") is None
    lines = ["class G:", "  a = f(x)", '  sin: "f32[4]" = g(a)']
    assert node_line(lines, "sin") == 2 and node_line(lines, "cos") is None
    k = Kernel(
        id=1,
        compile_id=CompileId.parse("0/0"),
        name="k",
        language="cpp",
        kind="pointwise",
        source_size=1,
        fused_nodes=("sin",),
    )
    assert kernels_for_node([k], "sin") == [k] and kernels_for_node([k], "cos") == []
    assert graph_for_kernel(k, ["dynamo", "post_grad"]) == "post_grad"
    assert graph_for_kernel(k, ["dynamo"]) is None


def test_search_covers_frames_reasons_and_kernels(graph_breaks_report: Path) -> None:
    data = load_report(graph_breaks_report)
    try:
        kinds = {hit.kind for hit in data.search("item")}
        assert "break" in kinds
        assert {hit.kind for hit in data.search("cpp_fused_relu")} == {"kernel"}
        assert data.search("data_dependent")[0].kind == "frame"
        assert data.search("   ") == []
        assert len(data.search("0", limit=3)) == 3
    finally:
        data.close()


def test_load_report_reports_progress(graph_breaks_report: Path) -> None:
    seen: list[tuple[str, float]] = []
    runs = []
    data = load_report(graph_breaks_report, lambda what, f: seen.append((what, f)), on_run=runs.append)
    data.close()
    assert seen[0][1] == 0.0 and seen[-1] == ("ready", 1.0)
    assert runs and runs[0].torch_version


def test_editor_command(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    assert editor_command(p, 12, "vim") == ["vim", "+12", str(p)]
    assert editor_command(p, 12, "code --wait") == ["code", "--wait", "--goto", f"{p}:12"]
    assert editor_command(p, 12, "hx") == ["hx", f"{p}:12"]
    assert editor_command(p, None, "nano") == ["nano", str(p)]


def test_export_file_stem() -> None:
    assert export_file_stem(Path("/x/run.inspectc"), CompileId.parse("0/1")) == "run-0_1"
    assert export_file_stem(Path("run.inspectc"), CompileId.parse("!2/0/1_1", 3)) == "run-r3-_2_0_1_1"
