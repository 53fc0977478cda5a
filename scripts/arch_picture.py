"""Draw inspectc's one-way flow from its real imports: docs/arch.svg (and docs/arch.dot).

The edges are read off the code (grimp, import-linter's engine: every import, also those
inside functions), folded to the packages of the layers contract in pyproject.toml (read from it), so the
picture in docs/architecture.md cannot drift from the code. An arrow A -> B: A imports
B. Run it after a change of layout (needs grimp and Graphviz's ``dot`` for the SVG):

    python scripts/arch_picture.py
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import graphviz
import grimp
import tomllib

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs"
# What each package is for, in its box; a package of the contract not named here shows its name.
LABELS = {
    "inspectc.api": "api.py\nnotebook API: capture(), open()",
    "inspectc.cli": "cli/\none module per command group",
    "inspectc_tui": "tui/\nTextual browser",
    "inspectc.share": "share/\nredaction, secret check, bundles",
    "inspectc.capture": "capture/\nthe only torch user; import of logs",
    "inspectc.render": "render/\nsections -> terminal, Markdown, HTML,\nJSON, dot, Perfetto, repro",
    "inspectc.analysis": "analysis/\nbreaks, costs, remedies, diff,\nranks, check, roofline",
    "inspectc.trace": "trace/\ntorch's records -> model\n(raw keys only here)",
    "inspectc.store": "store/\nthe SQLite file: one writer,\none opener, migrations",
    "inspectc.model": "model/\ntyped report, no I/O;\ndecode/: torch's shapes as kept",
}
# Every package may use these two leaves; their arrows would hide the flow, so they are not drawn.
LEAVES = {"inspectc.errors", "inspectc.version"}
EXTERNAL = {"torch": "torch", "triton": "triton", "textual": "textual"}


def contract_layers() -> list[list[tuple[str, str]]]:
    """(package, label) by layer, top to bottom: pyproject.toml's layers contract, as written."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c.get("type") == "layers")
    found = []
    for layer in layers:
        names = [n.strip() for n in re.split(r"[|:]", layer) if n.strip() and n.strip() not in LEAVES]
        if names:
            found.append([(n, LABELS.get(n, n.split(".")[-1])) for n in names])
    return found


LAYERS = contract_layers()


def package_of(module: str, packages: list[str]) -> str | None:
    for package in packages:
        if module == package or module.startswith(package + "."):
            return package
    return None


def edges() -> set[tuple[str, str]]:
    graph = grimp.build_graph("inspectc", "inspectc_tui", include_external_packages=True, cache_dir=None)
    packages = [p for layer in LAYERS for p, _ in layer] + list(EXTERNAL) + sorted(LEAVES)
    found = set()
    for module in graph.modules:
        source = package_of(module, packages)
        if source is None or source in EXTERNAL:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            target = package_of(imported, packages)
            if target is not None and target != source and target not in LEAVES and source not in LEAVES:
                found.add((source, target))
    return found


def picture() -> graphviz.Digraph:
    dot = graphviz.Digraph(
        "inspectc", graph_attr={"rankdir": "TB", "nodesep": "0.5", "fontname": "Helvetica"}
    )
    dot.attr(
        "node", shape="box", style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica", fontsize="11"
    )
    for layer in LAYERS:
        with dot.subgraph() as same:
            same.attr(rank="same")
            for name, label in layer:
                same.node(name, label)
    dot.node("leaves", "errors.py, version.py\n(any package may use them)", style="rounded,dashed")
    dot.edge(LAYERS[-1][0][0], "leaves", style="invis")
    dot.attr("node", shape="ellipse", fillcolor="#fbeeee")
    for name, label in EXTERNAL.items():
        dot.node(name, label)
    for source, target in sorted(edges()):
        dot.edge(source, target, color="#b03030" if target in EXTERNAL else "#404040")
    return dot


def main() -> int:
    OUT.mkdir(exist_ok=True)
    dot = picture()
    (OUT / "arch.dot").write_text(dot.source)
    if shutil.which("dot") is None:
        print("wrote docs/arch.dot (no Graphviz `dot` here for the SVG)", file=sys.stderr)
        return 0
    (OUT / "arch.svg").write_bytes(dot.pipe(format="svg"))
    print("wrote docs/arch.dot and docs/arch.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
