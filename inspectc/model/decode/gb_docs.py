"""A graph break's page in torch's graph-break registry (``torch/_dynamo/exc.py``
``get_gbid_documentation_link``: one page per id of ``graph_break_registry.json``). Stdlib only."""

from __future__ import annotations

import re

GRAPH_BREAK_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/"
_DOC_LINK = re.compile(r"please visit:\s*(https?://\S+)")
_GB_NUMBER = re.compile(r"^GB(\d{1,18})$")


def doc_url(raw: str | None, gb_id: str | None) -> str | None:
    """A break's page in torch's graph-break registry: as torch printed it in the break's
    text, else made from its id (``GB0124`` -> ``.../gb/gb0124.html``)."""
    found = _DOC_LINK.search(raw or "")
    if found:
        return found.group(1).rstrip(".")
    match = _GB_NUMBER.match(gb_id or "")
    return f"{GRAPH_BREAK_SITE}gb{match.group(1)}.html" if match else None
