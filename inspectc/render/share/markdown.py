"""The Markdown summary for a bug report (``inspectc share``). Pure: report in, text out.

What it shows, in the order a maintainer reads it: the environment (like
``torch.utils.collect_env``, short), failed frames, graph breaks deduplicated by place and
reason, recompiles, the slowest kernels, then the frame table. Bulky parts sit in
``<details>`` blocks. The text never exceeds GitHub's 65,536-character limit for an issue
body: items are dropped in a fixed order and a note says what was left out.

Everything from the report is data: inline text is escaped (HTML entities and Markdown
punctuation), code sits in fences longer than any backtick run it contains.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from inspectc.analysis.resume import shown_function
from inspectc.analysis.text import no_mentions, one_line
from inspectc.analysis.trie import break_trie, render_trie
from inspectc.render.rank_render import describe
from inspectc.render.share.info import (  # noqa: F401 - re-exported for html.py and cli/share.py
    DETAILS_CAP,
    LINE_CAP,
    STACK_CAP,
    TOP_KERNELS,
    KernelColumns,
    ShareInfo,
    break_details,
    break_where,
    cap,
    clean,
    frame_name,
    gather,
    kernel_columns,
    location,
    plural,
    redaction_notes,
)
from inspectc.version import __version__

GITHUB_LIMIT = 65_536
_NOTE_RESERVE = 700  # room kept for the truncation note

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!{}])")


def md_text(text: str | None, width: int = LINE_CAP) -> str:
    """One line of report text, safe as Markdown inline text (and inside a table cell)."""
    line = one_line(clean(text), width)
    line = html.escape(line, quote=False)
    return no_mentions(_MD_SPECIAL.sub(r"\\\1", line))


def md_code(text: str | None, width: int = LINE_CAP) -> str:
    """Inline code span that survives any backticks in *text* (not for table cells)."""
    line = one_line(clean(text), width) or " "
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def md_fence(text: str, lang: str = "text") -> str:
    body = clean(text).rstrip("\n")
    longest = max((len(m) for m in re.findall(r"^\s*(`{3,}|~{3,})", body, re.MULTILINE)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body}\n{fence}\n"


def md_details(summary: str, body: str, lang: str = "text") -> str:
    summary_html = no_mentions(html.escape(one_line(clean(summary), 120)))
    return f"<details><summary>{summary_html}</summary>\n\n{md_fence(cap(body, DETAILS_CAP), lang)}\n</details>\n"


@dataclass(slots=True)
class _Item:
    section: str
    line: str
    details: str = ""


def _items(info: ShareInfo) -> list[_Item]:
    base = info.base
    items: list[_Item] = []
    for f in info.failures:
        assert f.failure is not None
        fail = f.failure
        where = location(fail.filename or f.filename, fail.line or f.line, base)
        line = (
            f"- {md_code(frame_name(f))} {md_code((f.function or '?') + '()')} at {md_code(where)}: "
            f"**{md_text(fail.fail_type or 'failed', 80)}**: {md_text(fail.reason)}\n"
        )
        details = ""
        if fail.reason and (len(fail.reason) > LINE_CAP or "\n" in fail.reason.strip()):
            details = md_details(f"full error of {frame_name(f)}", fail.reason)
        items.append(_Item("failed", line, details))
    for g in info.groups:
        gid = f" \\[{md_text(g.gb_id, 20)}\\]" if g.gb_id else ""
        frames = ", ".join(str(c) for c in g.compile_ids[:4]) + (", …" if g.count > 4 else "")
        line = (
            f"- **{g.count}×** {md_code(break_where(g, base))}: {md_text(g.reason)}{gid}"
            f" (frames {md_text(frames, 80)})\n"
        )
        summary = f"details of {break_where(g, base)}"
        items.append(_Item("breaks", line, md_details(summary, break_details(g, base))))
    for f in info.recompiled:
        where = location(f.filename, f.line, base)
        first = f.recompiles[0]
        earlier = (
            f" (guard of {md_code(str(first.earlier_compile_id))} failed)" if first.earlier_compile_id else ""
        )
        line = (
            f"- {md_code(frame_name(f))} {md_code((f.function or '?') + '()')} at {md_code(where)}: "
            f"{md_text(first.guard or first.text)}{earlier}\n"
        )
        full = "\n".join(r.text for r in f.recompiles)
        details = ""
        if len(f.recompiles) > 1 or len(full) > LINE_CAP or "\n" in full.strip():
            details = md_details(f"all {len(f.recompiles)} recompile reasons of {frame_name(f)}", full)
        items.append(_Item("recompiles", line, details))
    return items


def _stacks_part(info: ShareInfo) -> str:
    """The run's graph breaks as one stack trie: which call sites lead to which breaks."""
    if not info.groups:
        return ""
    where = lambda filename, line: location(filename, line, info.base)  # noqa: E731
    lines = render_trie(break_trie(info.frames), where)
    return "### Break stacks\n\n" + md_details(
        f"every graph break under the user frames that led to it ({plural(len(lines), 'line')})",
        "\n".join(lines),
    )


def _ranks_part(info: ShareInfo) -> str:
    """What differs between ranks (cache, collectives, frames...): the cause of many hangs."""
    diffs = info.rank_differences
    runtime = (
        md_details(
            "Runtime estimates, collective schedules and parity, per rank",
            "\n".join(info.runtime_lines).strip("\n"),
        )
        if info.runtime_lines
        else ""
    )
    if not diffs:
        return runtime
    lines = [
        f"- **{md_text(d.kind, 30)}** {md_text(d.what, 120)}: {md_text(describe(d), 200)}" for d in diffs[:20]
    ]
    more = f"\n- … {len(diffs) - 20} more\n" if len(diffs) > 20 else "\n"
    return (
        f"### Rank differences ({len(diffs)})\n\n"
        + "\n".join(lines)
        + more
        + (f"\n{runtime}" if runtime else "")
    )


def _kernel_table(info: ShareInfo) -> str:
    if not info.top_kernels:
        if not info.kernels_total:
            return "No kernels were generated (or none recorded).\n"
        return f"{info.kernels_total} kernels; no kernel times recorded (captured with `--no-timings`?).\n"
    cols = kernel_columns(info.top_kernels, info.bench, info.bench_methods)
    rows = [
        "| " + " | ".join(cols.header) + " |",
        "| " + " | ".join("---:" if i in cols.numeric else "---" for i in range(len(cols.header))) + " |",
    ]
    for k in info.top_kernels:
        name, frame, *cells = cols.cells(k)
        rows.append(f"| {md_text(name, 80)} | {md_text(frame, 20)} | " + " | ".join(cells) + " |")
    tail = f"\nTop {len(info.top_kernels)} of {info.kernels_total} kernels by measured time. {cols.legend}\n"
    return "\n".join(rows) + "\n" + tail


def _frame_table(info: ShareInfo) -> str:
    rows = [
        "| frame | function | location | status | breaks | kernels | compile s | cache |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    for f in info.frames:
        seconds = f"{f.metrics.entire_frame_s:.2f}" if f.metrics.entire_frame_s is not None else "-"
        rows.append(
            f"| {md_text(frame_name(f), 20)} | {md_text(shown_function(f), 60)} | "
            f"{md_text(location(f.filename, f.line, info.base), 80)} | {f.status} | "
            f"{len(f.graph_breaks)} | {f.kernel_count} | {seconds} | {md_text(f.cache.get('fx_graph') or '-', 10)} |"
        )
    return "\n".join(rows) + "\n"


_SECTIONS = ("failed", "breaks", "recompiles")


def render_markdown(info: ShareInfo, *, limit: int = GITHUB_LIMIT) -> str:
    """The summary as GitHub Markdown, at most *limit* characters."""
    head, tail, headings = _head(info), _tail(info), _headings(info)
    errors_part = ""
    if info.capture_errors:
        errors_part = "### Capture errors\n\n" + md_details(
            f"{plural(len(info.capture_errors), 'error')} inspectc met while capturing",
            "\n".join(info.capture_errors),
        )
    parts = {
        "kernels": f"### Top kernels by time\n\n{_kernel_table(info)}\n",
        "frames": f"### Frames ({len(info.frames)})\n\n" + _wrap_details("frame table", _frame_table(info)),
        "errors": errors_part,
        "ranks": _ranks_part(info),
        "stacks": _stacks_part(info),
    }
    room = limit - len(head) - len(tail) - _NOTE_RESERVE - sum(len(h) for h in headings.values())
    plan = _Plan(room, _items(info), parts)
    # What a maintainer needs most goes in first; a section's lines stay in order.
    plan.add_lines("failed")
    plan.add_details("failed")
    plan.add_part("ranks")
    plan.add_part("kernels")
    plan.add_lines("recompiles", share=0.2)
    plan.add_lines("breaks", share=0.6)
    plan.add_details("breaks")
    plan.add_details("recompiles")
    plan.add_lines("breaks")
    plan.add_lines("recompiles")
    plan.add_part("stacks")
    plan.add_part("frames")
    plan.add_part("errors")

    body: list[str] = []
    for key in _SECTIONS:
        if key in headings:
            body.append(headings[key])
            for item in plan.kept_items(key):
                details = ("\n" + item.details) if id(item) in plan.details else ""
                body.append(item.line + details + "\n")
    body += [parts[name] for name in parts if name in plan.parts]
    text = head + plan.note(info, limit) + "".join(body) + tail
    assert len(text) <= limit, "share: summary over the limit"  # the plan's budget guarantees it
    return text


class _Plan:
    """Chooses what fits in *room* characters, in the order it is asked for."""

    def __init__(self, room: int, items: list[_Item], parts: dict[str, str]) -> None:
        self.room = room
        self.sections: dict[str, list[_Item]] = {
            key: [i for i in items if i.section == key] for key in _SECTIONS
        }
        self.lines = dict.fromkeys(_SECTIONS, 0)  # leading items of each section kept
        self.details: set[int] = set()
        self.all_parts = parts
        self.parts: set[str] = set()

    def _take(self, cost: int) -> bool:
        if cost > self.room:
            return False
        self.room -= cost
        return True

    def add_lines(self, key: str, share: float = 1.0) -> None:
        allowance = int(self.room * share)
        items = self.sections[key]
        while self.lines[key] < len(items):
            cost = len(items[self.lines[key]].line) + 1
            if cost > allowance or not self._take(cost):
                return
            allowance -= cost
            self.lines[key] += 1

    def add_details(self, key: str) -> None:
        for item in self.kept_items(key):
            if item.details and id(item) not in self.details and self._take(len(item.details) + 1):
                self.details.add(id(item))

    def add_part(self, name: str) -> None:
        part = self.all_parts[name]
        if part and self._take(len(part)):
            self.parts.add(name)

    def kept_items(self, key: str) -> list[_Item]:
        return self.sections[key][: self.lines[key]]

    def note(self, info: ShareInfo, limit: int) -> str:
        left: list[str] = []
        labels = {
            "failed": "failed frames",
            "breaks": "graph-break groups",
            "recompiles": "recompiled frames",
        }
        for key, label in labels.items():
            dropped = len(self.sections[key]) - self.lines[key]
            if dropped:
                left.append(f"{dropped} of {len(self.sections[key])} {label}")
        details = sum(
            1 for key in _SECTIONS for i in self.kept_items(key) if i.details and id(i) not in self.details
        )
        if details:
            left.append(plural(details, "detail block"))
        part_labels = {
            "kernels": "the top kernels",
            "frames": "the frame table",
            "errors": "the capture errors",
            "stacks": "the break stacks",
        }
        left += [
            label for name, label in part_labels.items() if self.all_parts[name] and name not in self.parts
        ]
        if not left:
            return ""
        where = f" (`inspectc tui {info.bundle_name}`)" if info.bundle_name else ""
        note = (
            f"> **Shortened to fit GitHub's {limit:,}-character limit.** Left out: {', '.join(left)}. "
            f"Everything is in the attached bundle{where}.\n\n"
        )
        return note[:_NOTE_RESERVE]


def _headings(info: ShareInfo) -> dict[str, str]:
    found = {}
    if info.failures:
        found["failed"] = f"### Failed frames ({len(info.failures)})\n\n"
    if info.groups:
        total = sum(g.count for g in info.groups)
        found["breaks"] = f"### Graph breaks ({len(info.groups)} unique, {total} in all)\n\n"
    if info.recompiled:
        found["recompiles"] = f"### Recompiles ({plural(len(info.recompiled), 'frame')})\n\n"
    return found


def _wrap_details(summary: str, markdown: str) -> str:
    return f"<details><summary>{html.escape(summary)}</summary>\n\n{markdown}\n</details>\n\n"


def _head(info: ShareInfo) -> str:
    parts = [f"## {md_text(info.title, 200)}\n\n", f"{md_text(info.headline)}\n\n"]
    env = "\n".join(f"{label + ':':<10}{clean(value)[:200]}" for label, value in info.environment)
    parts.append("<details open><summary>Environment</summary>\n\n" + md_fence(env) + "\n</details>\n\n")
    run = "\n".join(f"{label + ':':<10}{one_line(clean(value), 400)}" for label, value in info.run_lines)
    parts.append(md_fence(run) + "\n")
    return "".join(parts)


def _tail(info: ShareInfo) -> str:
    lines = ["\n---\n\n"]
    for note in info.notes:
        lines.append(f"{md_text(note)}  \n")
    if info.bundle_name:
        repros = f", {plural(len(info.repros), 'runnable repro')} (`repros/`)" if info.repros else ""
        lines.append(
            f"Bundle {md_code(info.bundle_name, 120)}: the report{repros} and this summary; "
            f"open it with {md_code('inspectc tui ' + info.bundle_name, 160)} or "
            f"{md_code('inspectc export ' + info.bundle_name + ' --json', 160)}.  \n"
        )
    lines.append(f"Made with inspectc {__version__} (`inspectc share`).\n")
    return "".join(lines)
