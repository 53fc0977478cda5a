"""Re-lay inspectc out as issue 26 asks: model/, store/, analysis/, render/ instead of report/, readers/.

One explicit table, ``TABLE`` below (old module -> new module), says where every module of
``inspectc/report/`` and ``inspectc/readers/`` (and ``trace/importer.py``) goes. The script

1. refuses, before changing anything, when a module there has no row (a branch merged after
   the table was written added one): it names the module, and a row is one line to add;
2. moves each file with ``git mv`` (``report/model.py`` becomes the package ``model/__init__.py``,
   so ``from inspectc.model import Frame``);
3. rewrites every import and module path from the same table in every tracked text file of
   inspectc/, tui/, tests/, benchmarks/, scripts/, samples/, docs/, .ci/, README.md, Makefile
   and pyproject.toml: ``from inspectc.report import a, b`` (split by new package),
   dotted paths (``inspectc.report.open.open_report``, also in strings and prose) and file
   paths (``inspectc/report/schema.py``, ``readers/share/rules.py``);
4. writes the new import-linter contracts into pyproject.toml and applies the few literal edits
   that name packages as words (the hygiene test's package list, the raw-key test's folders,
   README's "How it works");
5. sorts imports and formats (ruff), then redraws docs/arch.svg (scripts/arch_picture.py reads the
   layers from pyproject.toml).

It is idempotent: a moved file is not moved again, a rewritten path no longer matches, a
patch already applied is skipped; running it twice changes nothing the second time. It
prints what it could not place (bare folder words such as ``report/`` in prose) for a human.

    python scripts/relayout.py            # from the repository root, in a clean work tree
    python scripts/relayout.py --dry-run  # say what would move, change nothing
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve()

# -- the table: old module -> new module ---------------------------------------------------------
# A row for a package (readers.graph, readers.share, report.migrations) also moves every module
# under it, present or added later, to the same place under the new package.
TABLE: dict[str, str] = {
    # model/: the typed report, stdlib only, no I/O
    "inspectc.report.model": "inspectc.model",  # becomes model/__init__.py
    "inspectc.report.extras": "inspectc.model.extras",
    "inspectc.report.times": "inspectc.model.times",
    "inspectc.report.stats": "inspectc.model.stats",
    "inspectc.report.accuracy": "inspectc.model.accuracy",
    "inspectc.report.account": "inspectc.model.account",
    "inspectc.report.kernel_detail": "inspectc.model.kernel_detail",
    "inspectc.report.launch_args": "inspectc.model.launch_args",
    "inspectc.report.irmap": "inspectc.model.irmap",
    "inspectc.report.fxgraph": "inspectc.model.fxgraph",
    "inspectc.report.pytext": "inspectc.model.pytext",
    "inspectc.report.phases": "inspectc.model.phases",
    "inspectc.report.runrecords": "inspectc.model.runrecords",
    "inspectc.report.secrets": "inspectc.model.secrets",
    "inspectc.report.limits": "inspectc.model.limits",
    "inspectc.report.library": "inspectc.model.library",
    # store/: the SQLite file: schema, migrations, writer, reader, the one opener, bundles
    "inspectc.report.schema": "inspectc.store.schema",
    "inspectc.report.migrations": "inspectc.store.migrations",
    "inspectc.report.migrate": "inspectc.store.migrate",
    "inspectc.report.writer": "inspectc.store.writer",
    "inspectc.report.reader": "inspectc.store.reader",
    "inspectc.report.validate": "inspectc.store.validate",
    "inspectc.report.untrusted": "inspectc.store.untrusted",
    "inspectc.report.open": "inspectc.store.open",
    "inspectc.report.bundle": "inspectc.store.bundle",
    "inspectc.report.merge": "inspectc.store.merge",
    "inspectc.report.target": "inspectc.store.target",
    "inspectc.report.exclusive": "inspectc.store.exclusive",
    "inspectc.report.runlock": "inspectc.store.runlock",
    "inspectc.report.origin": "inspectc.store.origin",
    "inspectc.report.factory": "inspectc.store.factory",
    "inspectc.report.bench": "inspectc.store.bench",  # the bench model AND its table (by main role)
    # analysis/: pure functions model -> results
    "inspectc.readers.analysis": "inspectc.analysis.views",
    "inspectc.readers.text": "inspectc.analysis.text",  # the sanitizer; analysis and render use it
    "inspectc.readers.breaks": "inspectc.analysis.breaks",
    "inspectc.readers.resume": "inspectc.analysis.resume",
    "inspectc.readers.extras": "inspectc.analysis.extras",
    "inspectc.readers.trie": "inspectc.analysis.trie",
    "inspectc.readers.check": "inspectc.analysis.check",
    "inspectc.readers.diff": "inspectc.analysis.diff",
    "inspectc.readers.difftimes": "inspectc.analysis.difftimes",
    "inspectc.readers.paths": "inspectc.analysis.paths",
    "inspectc.readers.ranks": "inspectc.analysis.ranks",
    "inspectc.readers.rank_records": "inspectc.analysis.rank_records",
    "inspectc.readers.ddp": "inspectc.analysis.ddp",
    "inspectc.readers.remedies": "inspectc.analysis.remedies",
    "inspectc.readers.roofline": "inspectc.analysis.roofline",
    "inspectc.readers.rank_runtime": "inspectc.analysis.rank_runtime",  # r27's; renders too (by main role)
    # render/: results -> text, markdown, HTML, dot, JSON, Perfetto, share bundles
    "inspectc.readers.summary": "inspectc.render.summary",
    "inspectc.readers.export": "inspectc.render.export",
    "inspectc.readers.perfetto": "inspectc.render.perfetto",
    "inspectc.readers.accuracy": "inspectc.render.accuracy",
    "inspectc.readers.compiled": "inspectc.render.compiled",
    "inspectc.readers.programs": "inspectc.render.programs",
    "inspectc.readers.rank_render": "inspectc.render.rank_render",
    "inspectc.readers.timefmt": "inspectc.render.timefmt",
    "inspectc.readers.options": "inspectc.render.options",
    "inspectc.readers.repro": "inspectc.render.repro",
    "inspectc.readers.notebook": "inspectc.render.notebook",
    "inspectc.readers.graph": "inspectc.render.graph",
    "inspectc.readers.share": "inspectc.render.share",
    # capture/: importing a TORCH_TRACE log joins trace and store, as a live capture does
    "inspectc.trace.importer": "inspectc.capture.importer",
}
# Old packages that disappear (their __init__.py goes); every module in them needs a row.
OLD_PACKAGES = ("inspectc.report", "inspectc.readers")
# New modules that are packages made from a plain module.
INTO_PACKAGE = {"inspectc.model"}
NEW_PACKAGES = {
    "inspectc/model": None,  # report/model.py becomes its __init__.py
    "inspectc/store": '"""The report file: SQLite schema and migrations, writer, reader, the one opener, bundles."""\n',
    "inspectc/analysis": '"""Analysis: pure functions from the report model to results (breaks, diff, ranks, check...)."""\n',
    "inspectc/render": '"""Rendering: results as text, markdown, HTML, dot, JSON, Perfetto traces, share bundles."""\n',
}

CONTRACTS = """[tool.importlinter]
root_packages = ["inspectc", "inspectc_tui"]
include_external_packages = true

[[tool.importlinter.contracts]]
name = "one-way flow: cli | tui -> render | capture -> analysis -> store | trace -> model -> errors"
type = "layers"
layers = [
  "inspectc.api",
  "inspectc.cli : inspectc_tui",
  "inspectc.render | inspectc.capture",
  "inspectc.analysis",
  "inspectc.store | inspectc.trace",
  "inspectc.model",
  "inspectc.version | inspectc.errors",
]

[[tool.importlinter.contracts]]
name = "capture records through trace and store; it reads no analysis and renders nothing"
type = "forbidden"
source_modules = ["inspectc.capture"]
forbidden_modules = ["inspectc.analysis", "inspectc.render"]

[[tool.importlinter.contracts]]
name = "torch and triton only under inspectc.capture"
type = "forbidden"
source_modules = [
  "inspectc.cli", "inspectc.render", "inspectc.analysis", "inspectc.store", "inspectc.trace",
  "inspectc.model", "inspectc.errors", "inspectc.version", "inspectc_tui", "inspectc.api",
]
forbidden_modules = ["torch", "triton"]
allow_indirect_imports = true  # `inspectc run` reaches torch through capture, by design

[[tool.importlinter.contracts]]
name = "textual only under inspectc_tui"
type = "forbidden"
source_modules = [
  "inspectc.cli", "inspectc.capture", "inspectc.render", "inspectc.analysis", "inspectc.store",
  "inspectc.trace", "inspectc.model", "inspectc.errors", "inspectc.version", "inspectc.api",
]
forbidden_modules = ["textual"]
allow_indirect_imports = true  # `inspectc tui` reaches textual through inspectc_tui, by design
"""

README_TREE = """```
inspectc/
  errors.py        every error, and only errors (InspectcError and its subclasses): one line, exit 2
  version.py       __version__ (a leaf: any package reads it without importing `inspectc`)
  model/           the typed report: frozen dataclasses, stdlib only, no I/O
    __init__.py      Run, Frame, CompileId, Kernel, GraphBreak, ...; extras.py, times.py, stats.py
    accuracy.py, account.py, kernel_detail.py, launch_args.py, irmap.py, fxgraph.py (pytext.py),
    phases.py, runrecords.py, secrets.py, library.py, limits.py (INSPECTC_LIMITS)
  store/           the report file (stdlib only)
    schema.py        SCHEMA_VERSION with its changelog, the SQL, payload compression
    migrations/      one module per schema step (v1_to_v2.py, v2_to_v3.py); a committed
                     report of every version in tests/data/reports still opens
    writer.py        ReportWriter (commits every 0.2 s; fork-safe); target.py: where -o may write
    reader.py        Report (frames at once, graphs/sources/events lazily); validate.py, untrusted.py
    open.py          THE opener: a report, a share bundle or a folder of rank reports
    bundle.py, merge.py, bench.py (the bench table), factory.py (reports made to order, no torch)
  trace/           torch's structured-trace formats -> the model (torch-free)
    records.py       TORCH_TRACE line parser, interned strings, compile ids
    builder.py       events -> frames, graphs, kernels, into a sink.py Sink (the store's writer)
    account.py       every record counted by name: used by the model, or kept raw
    phases.py        compile phases (chromium spans), described inputs, export's expressions
    payloads/        one parser per payload (breaks, guards, output code, provenance, extras,
                     chromium spans, DDP splits, resume functions): the only code that reads
                     torch's raw keys (tests/test_raw_keys.py)
  capture/         the only package that imports torch (lazily: `import inspectc` loads none)
    session.py       Capture: a logging.Handler on torch.__trace, feeding the builder
    importer.py      `inspectc import` of TORCH_TRACE logs: the same builder, no torch
    settings.py      capture's switches on torch (set, undone) and the options the run used
    timing.py        kernel timings in short torch.profiler windows (kineto.py, quiet.py)
    bench.py         `inspectc bench`: a report's output code re-run alone (bench_measure.py)
    runner.py        runs the script or module as `python` would
    torch_api.py     every private torch touch point, version-gated (2.11 to 2.14);
    torch_config.py    those of torch.compile's options: config modules, backends per call
  analysis/        model -> results, pure: breaks, resume, check, diff, ranks, rank_records, ddp,
                   remedies, roofline, views (deduplicated breaks, totals), text (the sanitizer)
  render/          results -> text: summary, export (JSON), perfetto, compiled, repro, notebook,
                   graph/ (graphviz), share/ (markdown, HTML, redacted bundles)
  cli/             one module per command group (main.py: summary, export, errors; run.py: run)
tui/inspectc_tui/  the Textual browser (package inspectc_tui, in the same distribution)
```"""

# Literal edits where packages are named as words. (file, old, new); skipped once applied.
PATCHES: list[tuple[str, str, str]] = [
    (
        "tests/test_import_hygiene.py",
        'TORCH_FREE = ("report", "trace", "readers", "cli")',
        'TORCH_FREE = ("model", "store", "trace", "analysis", "render", "cli")',
    ),
    (
        "tests/test_import_hygiene.py",
        '"""The boundary, tested: report/, trace/ and readers/ never load torch, triton or textual.',
        '"""The boundary, tested: model/, store/, trace/, analysis/, render/ never load torch or textual.',
    ),
    (
        "tests/test_raw_keys.py",
        'READERS = [ROOT / "inspectc" / "readers", ',
        'READERS = [ROOT / "inspectc" / "analysis", ROOT / "inspectc" / "render", ',
    ),
    (
        "tests/test_raw_keys.py",
        "string literal in inspectc/readers, inspectc/cli or the TUI.",
        "string literal in inspectc/analysis, inspectc/render, inspectc/cli or the TUI.",
    ),
    (
        "tests/test_import_contracts.py",
        "The contracts (layers cli, tui -> capture | readers -> trace -> report -> errors; torch only",
        "The contracts (layers cli | tui -> render | capture -> analysis -> store | trace -> model ->\nerrors; torch only",
    ),
    (
        "inspectc/__init__.py",
        "``trace/`` (torch's structured-trace formats -> the model) which writes a ``report/``\n"
        "file that ``readers/`` and ``cli/`` open through :func:`open_report`.",
        "``trace/`` (torch's structured-trace formats -> ``model/``) which ``store/`` writes to a\n"
        "file that ``analysis/``, ``render/`` and ``cli/`` open through :func:`open_report`.",
    ),
    (
        "README.md",
        "capture/ ──events──> trace/ ──rows──> report/ (one SQLite file) ──open_report()──> readers/, cli/, tui/\n"
        " torch                torch-free        stdlib only, versioned        never import torch",
        "capture/ ──events──> trace/ ──model──> store/ (one SQLite file) ──open_report()──> analysis/ ──> render/, cli/, tui/\n"
        " torch                torch-free         stdlib only, versioned                    never import torch",
    ),
    (
        "inspectc/api.py",
        "Kept apart from ``capture/`` (the only torch code) and ``readers/`` (no torch): this module",
        "Kept apart from ``capture/`` (the only torch code) and ``render/`` (no torch): this module",
    ),
    (
        "inspectc/render/share/__init__.py",
        '"""readers/share."""',
        '"""render/share: share bundles (markdown, HTML, redacted copies)."""',
    ),
    (
        "inspectc/store/factory.py",
        "Stdlib only, like the rest of ``report/``.",
        "Stdlib only, like the rest of ``store/``.",
    ),
    (
        "scripts/arch_picture.py",
        '    "inspectc.readers": "readers/\\nsummary, export, diff, share...",\n',
        "",
    ),
    ("scripts/arch_picture.py", '    "inspectc.report": "report/\\nmodel, SQLite file, open()",\n', ""),
    (
        "README.md",
        "- **The report** (`inspectc/report/`) is one",
        "- **The report** (`inspectc/store/`) is one",
    ),
    (
        "README.md",
        "imports every module of `report/`,\n  `trace/`, `readers/` and `cli/` in a fresh interpreter and fails if torch, triton or\n  textual loads.",
        "imports every module of `model/`,\n  `store/`, `trace/`, `analysis/`, `render/` and `cli/` in a fresh interpreter and fails if\n  torch, triton or textual loads.",
    ),
]


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def new_module(old: str) -> str | None:
    """The new name of module *old* (or of an attribute path under it): longest row that prefixes it."""
    parts = old.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in TABLE:
            return ".".join([TABLE[head], *parts[cut:]])
    return None


def module_of(path: str) -> str:
    mod = path[:-3].replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


def planned_moves() -> tuple[list[tuple[str, str]], list[str]]:
    """(old file, new file) for every tracked module that has a row; modules without a row."""
    moves: list[tuple[str, str]] = []
    unmapped: list[str] = []
    files = git("ls-files", "inspectc/report", "inspectc/readers", "inspectc/trace/importer.py").split()
    for path in files:
        if not path.endswith(".py"):
            unmapped.append(path)
            continue
        mod = module_of(path)
        if mod in OLD_PACKAGES:
            continue  # the old package's own __init__.py goes
        target = new_module(mod)
        if target is None:
            unmapped.append(path)
            continue
        if path.endswith("__init__.py") or target in INTO_PACKAGE:
            moves.append((path, target.replace(".", "/") + "/__init__.py"))
        else:
            moves.append((path, target.replace(".", "/") + ".py"))
    return moves, unmapped


def path_table() -> list[tuple[str, str]]:
    """File and folder paths, relative to inspectc/, old -> new; longest first."""
    pairs: dict[str, str] = {}
    for old, new in TABLE.items():
        old_rel = old.removeprefix("inspectc.").replace(".", "/")
        new_rel = new.removeprefix("inspectc.").replace(".", "/")
        if new in INTO_PACKAGE:
            pairs[old_rel + ".py"] = new_rel + "/__init__.py"
        elif (ROOT / "inspectc" / old_rel).is_dir() or (ROOT / "inspectc" / new_rel).is_dir():
            pairs[old_rel + "/"] = new_rel + "/"
        else:
            pairs[old_rel + ".py"] = new_rel + ".py"
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


FROM_RE = re.compile(
    r"^(?P<indent>[ \t]*)from (?P<pkg>inspectc(?:\.report|\.readers|\.trace)) import "
    r"(?P<body>\([^()]*\)|[^\n]*)",
    re.M,
)
# the same inside a string of code (a snippet a test runs in a subprocess): one name
INLINE_RE = re.compile(
    r"(?<=[\"'\s;])from (?P<pkg>inspectc\.(?:report|readers|trace)) import (?P<name>\w+)(?: as (?P<alias>\w+))?"
)
DOTTED_RE = re.compile(r"(?<![\w.])inspectc\.(?:report|readers|trace\.importer)\b(?:\.\w+)*")


def rewrite_from(match: re.Match[str]) -> str:
    """``from inspectc.report import a, b as c`` -> one line per new parent package."""
    indent, pkg, body = match["indent"], match["pkg"], match["body"]
    comment = ""
    if not body.startswith("("):
        body, _, comment = body.partition("#")
        comment = "  #" + comment.rstrip() if comment else ""
    names = [n.strip() for n in re.sub(r"#[^\n]*", "", body.strip("()")).split(",") if n.strip()]
    groups: dict[str, list[str]] = {}
    changed = False
    for item in names:
        name, _, alias = (p.strip() for p in item.partition(" as "))
        target = TABLE.get(f"{pkg}.{name}")
        if target is None:
            if pkg in OLD_PACKAGES:
                raise SystemExit(f"relayout: no row for {pkg}.{name} (imported in a file): add it to TABLE")
            groups.setdefault(pkg, []).append(item)
            continue
        changed = True
        parent, _, last = target.rpartition(".")
        shown = alias or name
        groups.setdefault(parent, []).append(last if last == shown else f"{last} as {shown}")
    if not changed:
        return match[0]
    lines = [f"{indent}from {parent} import {', '.join(items)}" for parent, items in groups.items()]
    lines[0] += comment
    return "\n".join(lines)


def rewrite_inline(match: re.Match[str]) -> str:
    target = TABLE.get(f"{match['pkg']}.{match['name']}")
    if target is None:
        return match[0]
    parent, _, last = target.rpartition(".")
    shown = match["alias"] or match["name"]
    return f"from {parent} import {last}" + ("" if last == shown else f" as {shown}")


def rewrite_dotted(match: re.Match[str]) -> str:
    return new_module(match[0]) or match[0]


def rewrite_text(text: str, paths: list[tuple[str, str]]) -> str:
    text = FROM_RE.sub(rewrite_from, text)
    text = INLINE_RE.sub(rewrite_inline, text)
    text = DOTTED_RE.sub(rewrite_dotted, text)
    for old, new in paths:
        text = re.sub(
            r"(?<![\w.-])" + re.escape(old) + (r"(?![\w])" if old.endswith(".py") else ""), new, text
        )
    return text


REWRITE_ROOTS = ("inspectc/", "tui/", "tests/", "benchmarks/", "scripts/", "samples/", "docs/", ".ci/")
REWRITE_FILES = ("README.md", "Makefile", "pyproject.toml")
SKIP = ("tests/data/", "samples/reports/", "tui/tests/data/", "tui/tests/__snapshots__/", "docs/arch.svg")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".cfg", ".ini", ".tcss", ".dot", ".sh", ""}


def text_files() -> list[Path]:
    out = []
    for path in git("ls-files").split():
        if path.startswith(SKIP) or ROOT / path == SELF:
            continue
        if not (path.startswith(REWRITE_ROOTS) or path in REWRITE_FILES):
            continue
        if Path(path).suffix in TEXT_SUFFIXES and (ROOT / path).is_file():
            try:
                (ROOT / path).read_text()
            except UnicodeDecodeError:
                continue  # not text
            out.append(ROOT / path)
    return out


def write_contracts() -> None:
    path = ROOT / "pyproject.toml"
    text = path.read_text()
    start = text.index("[tool.importlinter]")
    rest = re.search(r"^\[(?!\[?tool\.importlinter)", text[start + 1 :], re.M)
    end = start + 1 + rest.start() if rest else len(text)
    new = text[:start] + CONTRACTS + ("\n" + text[end:] if rest else "")
    if new != text:
        path.write_text(new)


def readme_tree() -> None:
    path = ROOT / "README.md"
    text = path.read_text()
    match = re.search(r"```\ninspectc/\n.*?\ntui/inspectc_tui/[^\n]*\n```", text, re.S)
    if match is None:
        print("relayout: README has no tree block (```inspectc/ ... ```): update How it works by hand")
        return
    if match[0] != README_TREE:
        path.write_text(text[: match.start()] + README_TREE + text[match.end() :])


def apply_patches() -> list[str]:
    missed = []
    for rel, old, new in PATCHES:
        path = ROOT / rel
        text = path.read_text()
        if old in text:
            path.write_text(text.replace(old, new))
        elif re.sub(r"\s", "", new) not in re.sub(r"\s", "", text):  # ruff may have re-wrapped it
            missed.append(f"{rel}: {old.splitlines()[0][:70]!r}")
    return missed


def leftovers(files: list[Path]) -> list[str]:
    """Places that still say report/ or readers/ as a folder word, for a human to read."""
    found = []
    pattern = re.compile(r"(?<![\w.-])(?:inspectc/)?(?:report|readers)/|inspectc\.(?:report|readers)\b")
    for path in files:
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:90]}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="say what would move; change nothing")
    parser.add_argument("--no-format", action="store_true", help="skip ruff and the picture")
    args = parser.parse_args()
    os.chdir(ROOT)
    moves, unmapped = planned_moves()
    if unmapped:
        print("relayout: no row in TABLE for these files; add one each, then run again:", file=sys.stderr)
        for path in unmapped:
            print(f"  {path}", file=sys.stderr)
        return 2
    for old, new in moves:
        print(f"git mv {old} {new}")
    if args.dry_run:
        return 0
    for folder, doc in NEW_PACKAGES.items():
        (ROOT / folder).mkdir(exist_ok=True)
        init = ROOT / folder / "__init__.py"
        if doc is not None and not init.exists():
            init.write_text(doc)
            git("add", str(init.relative_to(ROOT)))
    for old, new in moves:
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    for package in OLD_PACKAGES:
        folder = ROOT / package.replace(".", "/")
        if folder.is_dir():
            tracked = git("ls-files", str(folder.relative_to(ROOT))).split()
            if tracked == [f"{folder.relative_to(ROOT)}/__init__.py"]:
                git("rm", "-q", tracked[0])
                tracked = []
            if not tracked:
                shutil.rmtree(folder)  # only caches are left
    paths = path_table()
    files = text_files()
    for path in files:
        text = path.read_text()
        new = rewrite_text(text, paths)
        if new != text:
            path.write_text(new)
    write_contracts()
    readme_tree()
    missed = apply_patches()
    if not args.no_format:
        ruff = (
            [sys.executable, "-m", "ruff"]
            if importlib.util.find_spec("ruff")
            else [shutil.which("ruff") or "ruff"]
        )
        targets = ["inspectc", "tui", "tests", "benchmarks", "scripts", "samples"]
        try:
            subprocess.run([*ruff, "check", "--select", "I", "--fix", "-q", *targets], cwd=ROOT, check=False)
            subprocess.run([*ruff, "format", "-q", *targets], cwd=ROOT, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"relayout: ruff did not run ({exc}): run `ruff check --select I --fix` and `ruff format`")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tui")]))
        picture = subprocess.run([sys.executable, "scripts/arch_picture.py"], cwd=ROOT, env=env, check=False)
        if picture.returncode != 0:
            print("relayout: scripts/arch_picture.py failed; run it by hand for docs/arch.svg")
    for line in missed:
        print(f"relayout: patch not applied (text changed?): {line}")
    left = leftovers(files)
    if left:
        print(f"relayout: {len(left)} lines still name report/ or readers/ as a folder (prose; read them):")
        for line in left:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
