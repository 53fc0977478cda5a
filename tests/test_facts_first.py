"""Facts first, text last: ``inspectc/analysis`` finds and returns typed findings; saying them
(lines, sentences, tables, JSON of an output) is ``inspectc/render``'s. Checked on the code: no
function of analysis renders (``render_*``, ``*_lines``, ``describe*``, ``*_plain`` of an output),
and no module of analysis builds a summary line the renderers would have to trust."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANALYSIS = ROOT / "inspectc" / "analysis"
# String utilities every layer shares (sanitising, cutting, path keys): not findings, not prose.
UTILITIES = {"text.py", "paths.py", "volatile.py"}
RENDERING = ("render", "describe")


def _functions(path: Path) -> list[ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]


def test_analysis_has_no_renderer() -> None:
    found = []
    for path in sorted(ANALYSIS.glob("*.py")):
        if path.name in UTILITIES:
            continue
        for fn in _functions(path):
            name = fn.name.lstrip("_")
            if name.startswith(RENDERING) or name.endswith("_lines") or name == "summary_lines":
                found.append(f"{path.name}:{fn.lineno} {fn.name}")
            returns = ast.unparse(fn.returns) if fn.returns is not None else ""
            if returns == "list[str]":
                found.append(f"{path.name}:{fn.lineno} {fn.name} -> list[str]")
    assert not found, "analysis renders (move it to inspectc/render):\n" + "\n".join(found)


def test_every_output_renders_the_one_section_model() -> None:
    """The terminal, Markdown, HTML, JSON and TUI renderers all take the model's Page/Section."""
    renderers = {
        ROOT / "inspectc" / "render" / "terminal.py": "render_page",
        ROOT / "inspectc" / "render" / "share" / "markdown.py": "render_markdown",
        ROOT / "inspectc" / "render" / "html" / "sections.py": "overview_html",
        ROOT / "inspectc" / "render" / "sections" / "plain.py": "page_plain",
        ROOT / "tui" / "inspectc_tui" / "overview" / "summary.py": "section_text",
    }
    for path, name in renderers.items():
        fn = next(f for f in _functions(path) if f.name == name)
        first = fn.args.args[0].annotation
        assert first is not None and ast.unparse(first) in ("Page", "Section"), (path.name, name)
