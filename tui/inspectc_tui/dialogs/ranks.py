"""`r`: what differs between the ranks of a distributed run (every kind ``summary`` lists:
frames, recompiles, breaks, kernels, caches, collective schedules and parity, execution
order, tensor metadata, runtime estimates), one row each with every rank's value; below it,
each graph's runtime estimate per rank, the ranks grouped by collective sequence and the
collectives parity (``analysis/rank_runtime.py``, the summary's lines)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from inspectc.analysis.ranks import RankDifference
from inspectc_tui.text import literal


def ranks_table(diffs: Sequence[RankDifference], rank_count: int) -> Table | Text:
    if rank_count < 2:
        return Text("One rank: nothing to compare.", style="dim")
    if not diffs:
        return Text(
            f"The {rank_count} ranks compiled the same frames, breaks, kernels, caches and collectives.",
            style="green",
        )
    table = Table(expand=True, show_lines=True)
    table.add_column("kind", style="bold yellow", no_wrap=True)
    table.add_column("what", ratio=2)
    table.add_column("ranks differing", no_wrap=True)
    table.add_column("per rank", ratio=3)
    for d in diffs:
        values = Text("\n").join(
            Text.assemble((f"rank {rank}: ", "cyan"), literal(_value(v), one_line=True))
            for rank, v in d.per_rank.items()
        )
        table.add_row(Text(d.kind), literal(d.what), Text(", ".join(map(str, d.ranks_with))), values)
    return table


def _value(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value[:6])) + (", …" if len(value) > 6 else "") or "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


class RanksScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,r", "dismiss", "Close")]

    def __init__(
        self, diffs: Sequence[RankDifference], rank_count: int, runtime_lines: Sequence[str] = ()
    ) -> None:
        super().__init__()
        self.diffs = list(diffs)
        self.rank_count = rank_count
        self.runtime_lines = list(runtime_lines)

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = f"rank differences ({len(self.diffs)})"
            scroll.border_subtitle = "Esc to close"
            yield Static(ranks_table(self.diffs, self.rank_count), id="rank-differences")
            if self.runtime_lines:
                yield Static(literal("\n".join(self.runtime_lines).strip("\n")), id="rank-runtime")
