"""The page's overview for a notebook cell: one ``<div>``, its styles scoped to it, no script
(a notebook's output runs none of ours), so the notebook's own page keeps its look."""

from __future__ import annotations

import re

from inspectc.render.html.assets import STYLE
from inspectc.render.html.sections import overview_html, pygments_css
from inspectc.render.sections import Page

SCOPE = ".inspectc-report"


def scoped_style(style: str = STYLE, scope: str = SCOPE) -> str:
    """*style* with every selector under *scope* (``:root`` and ``body`` become the scope)."""

    def scope_rule(match: re.Match[str]) -> str:
        selectors = (s.strip() for s in match.group(2).split(","))
        out = []
        for s in selectors:
            if s.startswith("@") or s in ("from", "to") or s.endswith("%"):
                out.append(s)
            elif s in ("body", ":root", "*"):
                out.append(scope if s != "*" else f"{scope} *")
            else:
                out.append(f"{scope} {s.replace(':root', '')}".rstrip())
        return match.group(1) + ", ".join(out) + " {"

    return re.sub(r"(^|[{}]\s*)([^{}@][^{}]*?)\s*\{", scope_rule, style)


def render_fragment(page: Page) -> str:
    """The overview of *page* (what ``inspectc html`` opens on) for a notebook cell."""
    css = scoped_style(STYLE + "\n" + pygments_css())
    return f'<div class="inspectc-report">\n<style>\n{css}\n</style>\n{overview_html(page)}</div>\n'
