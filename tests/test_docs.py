"""The documentation is true to the code: README.md and every page of docs/.

- Every ```python block runs in its own interpreter, in a folder where ``run.inspectc`` is a
  golden report (``samples/reports/mlp_train.inspectc``). A block that captures
  (``inspectc.capture``) first gets a tiny compiled ``model`` and its input ``x``; it compiles,
  so it carries the ``capture`` mark. What the blocks and the prose import exists.
- Every ``inspectc ...`` command line of the shell blocks (``torchrun ... -m inspectc ...``,
  ``python -m inspectc ...`` and ``run:`` steps included) is parsed by the CLI's own parsers:
  the subcommand and its options exist. Nothing heavy is executed for them.
- Every relative link and image resolves, and every ``#anchor`` is a heading of its page, as
  the site (Python-Markdown's ids) and GitHub (its slugs) both name it.
- ``mkdocs build --strict`` passes (a subprocess into a temporary folder, the network closed
  by a dead proxy): every page in the nav, no warning.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import unicodedata
from functools import cache
from pathlib import Path

import markdown
import pytest
from conftest import REPORTS, ROOT, run_cli
from markdown_it import MarkdownIt

from inspectc.cli import accuracy
from inspectc.cli.main import build_parser
from inspectc.cli.run import _run_parser, split_run_argv

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# Blocks of commands; output (tables, screens) is fenced as ```text and not read.
_SHELL = ("", "bash", "sh", "shell", "console", "yaml")
_STOP = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "&"}
# What a capture block's ``model(x)`` needs: a real compile, the cheapest there is.
_PRELUDE = (
    'import torch\nmodel = torch.compile(torch.nn.Linear(4, 4), backend="eager")\nx = torch.ones(2, 4)\n'
)


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _fenced(page: Path) -> list[tuple[str, str]]:
    return _FENCE.findall(page.read_text(encoding="utf-8"))


def _python_blocks() -> list[pytest.ParameterSet]:
    found = []
    for page in PAGES:
        for n, (lang, code) in enumerate(_fenced(page)):
            if lang != "python":
                continue
            captures = "inspectc.capture(" in code
            marks = [pytest.mark.capture] if captures else []
            found.append(
                pytest.param((_PRELUDE if captures else "") + code, id=f"{_name(page)}:{n}", marks=marks)
            )
    return found


def command_lines(pages: list[Path] = PAGES) -> list[list[str]]:
    """The arguments after ``inspectc`` on each command line of the pages' shell blocks."""
    commands = []
    for page in pages:
        for lang, body in _fenced(page):
            if lang not in _SHELL:
                continue
            for line in body.splitlines():
                text = line.strip().removeprefix("$ ").removeprefix("- ").removeprefix("run: ")
                try:
                    tokens = shlex.split(text, comments=True)
                except ValueError:
                    continue
                for i, token in enumerate(tokens):
                    env_only = all("=" in t for t in tokens[:i])
                    if token == "inspectc" and (env_only or tokens[i - 1] == "-m"):
                        args = tokens[i + 1 :]
                        cut = next((j for j, a in enumerate(args) if a in _STOP), len(args))
                        commands.append(args[:cut])
                        break
    return commands


def check_command(args: list[str]) -> None:
    """Parse *args* as ``inspectc`` would, without running it; raise AssertionError if invalid."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stderr(out), contextlib.redirect_stdout(io.StringIO()):
            if args[:1] == ["run"]:
                own, rest = split_run_argv(args[1:])
                opts = _run_parser().parse_args(own)
                assert rest or opts.module, "inspectc run needs a script or -m module"
            elif args[:1] == ["accuracy"]:
                own, rest = accuracy.split_argv(args[1:])
                opts = accuracy.accuracy_parser().parse_args(own)
                assert rest or opts.module, "inspectc accuracy needs a script or -m module"
            else:
                parsed = build_parser().parse_args(args)
                assert getattr(parsed, "func", None), "no subcommand"
    except SystemExit as exc:  # argparse: --help/--version exit 0, a bad option exits 2
        assert exc.code == 0, f"inspectc {shlex.join(args)}: {out.getvalue().strip()}"


# -- code ---------------------------------------------------------------------------------------


def test_the_docs_have_python_blocks_and_commands() -> None:
    assert len(_python_blocks()) >= 4
    assert len(command_lines()) >= 80
    assert len(command_lines([README])) >= 10  # the tour
    shown = {args[0] for args in command_lines() if args}
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) <= shown, f"commands no page shows: {set(sub.choices) - shown}"


@pytest.mark.parametrize("code", _python_blocks())
def test_python_block_runs(code: str, tmp_path: Path) -> None:
    if "import torch" in code:
        pytest.importorskip("torch")
    if "render(" in code and shutil.which("dot") is None:
        pytest.skip("Graphviz dot is not installed")
    shutil.copy(REPORTS / "mlp_train.inspectc", tmp_path / "run.inspectc")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"docs block failed:\n{code}\n{proc.stderr[-3000:]}"
    if "render(" in code:
        assert all(p.stat().st_size > 0 for p in tmp_path.glob("*.svg")) and list(tmp_path.glob("*.svg"))


def test_what_the_docs_import_exists() -> None:
    """``from inspectc.x import a, b`` in the blocks, and ``inspectc.x.y.f(...)`` in the prose."""
    imports, inline = [], []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for lang, code in _fenced(page):
            if lang == "python":
                imports += [
                    ln for ln in code.splitlines() if ln.startswith(("from inspectc", "import inspectc"))
                ]
        inline += re.findall(r"`(inspectc(?:\.\w+)+)\.\w+\(", text)
    assert imports and inline
    for line in imports:
        module, _, names = line.removeprefix("from ").partition(" import ")
        found = importlib.import_module(module.removeprefix("import ").strip())
        for name in filter(None, (n.strip() for n in names.split("#")[0].split(","))):
            assert hasattr(found, name), line
    for dotted in inline:  # `inspectc.model.fxgraph.parse(...)` in the prose
        importlib.import_module(dotted)


def test_command_lines_parse() -> None:
    bad = []
    for args in command_lines():
        try:
            check_command(args)
        except (AssertionError, Exception) as exc:  # noqa: BLE001 - each line's own failure is reported
            bad.append(f"inspectc {shlex.join(args)}: {exc}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "args",
    [
        ["summray", "r.inspectc"],
        ["graph", "r.inspectc", "--no-such-flag"],
        ["run", "--bogus", "x.py"],
        ["run"],
    ],
)
def test_a_wrong_command_line_is_caught(args: list[str]) -> None:
    with pytest.raises(Exception):  # noqa: B017, PT011 - argparse's exit or inspectc's UsageError
        check_command(args)


def test_the_ci_step_shown_runs() -> None:
    """The GitHub Actions step the check docs show, run on a golden report."""
    text = (DOCS / "import-diff-check.md").read_text(encoding="utf-8")
    match = re.search(r"^\s*run: inspectc (check .*)$", text, re.MULTILINE)
    assert match, "the check docs show a GitHub Actions step running inspectc check"
    args = match.group(1).split()[1:]
    args[0] = str(REPORTS / "graph_breaks.inspectc")
    proc = run_cli("check", *args)
    assert proc.returncode in (0, 1) and proc.stdout.startswith("inspectc check:")


# -- links --------------------------------------------------------------------------------------


def _heading_texts(page: Path) -> list[str]:
    """Every heading's text as a reader sees it (code spans' text kept, markup out)."""
    tokens = MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
    return [
        "".join(c.content for c in tokens[i + 1].children or [] if c.type in ("text", "code_inline"))
        for i, t in enumerate(tokens)
        if t.type == "heading_open"
    ]


def _github_slug(text: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation out, blanks to '-'."""
    kept = "".join(c for c in text.lower() if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors of *page* that both the site and GitHub give (a link must work on both)."""
    md = markdown.Markdown(extensions=["toc", "tables"])
    md.convert(page.read_text(encoding="utf-8"))

    def ids(tokens: list[dict]) -> set[str]:  # type: ignore[type-arg]
        return {t["id"] for t in tokens} | {i for t in tokens for i in ids(t["children"])}

    site = ids(md.toc_tokens)  # type: ignore[attr-defined]
    return frozenset(site & {_github_slug(h) for h in _heading_texts(page)})


def links(page: Path) -> list[str]:
    """Every link and image target of *page*, code spans and blocks left out."""
    found = []
    stack = MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8"))
    while stack:
        token = stack.pop()
        stack.extend(token.children or [])
        if token.type == "link_open":
            found.append(str(token.attrs["href"]))
        elif token.type == "image":
            found.append(str(token.attrs["src"]))
    return sorted(found)


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links and anchors of *page* that lead nowhere."""
    bad = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            bad.append(f"{target}: no such file")
        elif not resolved.is_relative_to(root):
            bad.append(f"{target}: outside the repository")
        elif anchor and (resolved.suffix != ".md" or anchor not in anchors(resolved)):
            bad.append(f"{target}: no heading '#{anchor}' there (site and GitHub alike)")
    return bad


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_relative_links_and_anchors_resolve(page: Path) -> None:
    bad = broken_links(page)
    assert not bad, f"{_name(page)}:\n" + "\n".join(bad)


def test_a_broken_link_or_anchor_is_caught(tmp_path: Path) -> None:
    """The check can fail: a missing file, a missing anchor; a link inside code is no link."""
    (tmp_path / "other.md").write_text("## `inspectc html`: one page\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# A title\n\n[ok](#a-title) [gone](nope.md) [bad](#no-such) [there](other.md#inspectc-html-one-page)"
        " [not](other.md#one-page)\n\n```\n[code](x.md)\n```\n"
    )
    assert broken_links(page, root=tmp_path) == [
        "#no-such: no heading '#no-such' there (site and GitHub alike)",
        "nope.md: no such file",
        "other.md#one-page: no heading '#one-page' there (site and GitHub alike)",
    ]


def test_every_page_is_linked_from_the_readme_or_the_index() -> None:
    linked = {Path(t.partition("#")[0]).name for t in links(README) + links(DOCS / "index.md")}
    assert {p.name for p in DOCS.glob("*.md")} - {"index.md"} <= linked
    assert "docs/index.md" in links(README)


# -- the site -----------------------------------------------------------------------------------


def test_the_site_builds_strict_and_offline(tmp_path: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    dead = "http://127.0.0.1:9"  # nothing listens there: a build that reached the network fails
    env.update(http_proxy=dead, https_proxy=dead, HTTP_PROXY=dead, HTTPS_PROXY=dead, no_proxy="")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", site],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "WARNING" not in output, output[-3000:]
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert all((site / name / "index.html").is_file() for name in pages)
    html = "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
    assert (site / "tui.png").is_file() and (site / "arch.svg").is_file()
