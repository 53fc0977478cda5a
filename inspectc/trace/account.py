"""The account of every structured-trace record: used by the model, or kept raw.

The builder settles each record it is fed here, by its event name (``artifact:<name>`` and
``graph_dump:<name>`` by their own name). A record is *used* when something of the model
reads it: a frame field, a graph, a kernel, the run records (exported programs, AOT compiles,
artifacts catalogued per compile id, links), the string table, the compile phases and inputs.
It is *kept raw* when nothing reads it: a name the builder does not know, or a record it could
not read (no payload where one is needed, a payload that does not parse). Every record is in
the report's ``events`` table either way.

:meth:`RecordAccount.write` stores the figures as one ``inspectc_account`` event per
process (so ``merge`` keeps them, each with its rank); readers sum them
(``report.account.read_account``). No torch.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from inspectc.model.account import ACCOUNT_EVENT
from inspectc.trace.sink import Sink


def account_name(name: str, metadata: dict[str, Any]) -> str:
    """The name a record is counted under: ``graph_dump:<name>`` like ``artifact:<name>``."""
    if name == "graph_dump":
        body = metadata.get("graph_dump")
        if isinstance(body, dict) and isinstance(body.get("name"), str):
            return f"graph_dump:{body['name']}"
    return name


class RecordAccount:
    """Counts per event name, used and kept raw."""

    __slots__ = ("kept_raw", "used")

    def __init__(self) -> None:
        self.used: Counter[str] = Counter()
        self.kept_raw: Counter[str] = Counter()

    def settle(self, name: str, used: bool) -> None:
        (self.used if used else self.kept_raw)[name] += 1

    @property
    def records(self) -> int:
        return sum(self.used.values()) + sum(self.kept_raw.values())

    def write(self, writer: Sink, rank: int | None, outside: dict[str, Any]) -> None:
        """One ``inspectc_account`` event; *outside*: phases and inputs logged outside a compile.
        Written with no records too: a run that compiled nothing is accounted, not 'killed'."""
        body = {
            "records": self.records,
            "used": dict(self.used),
            "kept_raw": dict(self.kept_raw),
            "outside_compiles": outside,
        }
        writer.add_event(
            name=ACCOUNT_EVENT,
            metadata={ACCOUNT_EVENT: {"version": 1}},
            payload=json.dumps(body),
            compile_id=None,
            rank=rank,
            ts=None,
        )
