"""The account of every structured-trace record a report was built from. Stdlib only.

The builder (``trace/account.py``) writes one ``inspectc_account`` event per process: how many
records it read, and per event name how many the model used and how many it kept raw (only
in the events table). :func:`read_account` sums them over a report's processes (ranks). A
report made before the account existed has none, nor has a run killed before capture
finished (the account is written at the end): :attr:`Account.recorded` is False.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

ACCOUNT_EVENT = "inspectc_account"


@dataclass(frozen=True, kw_only=True, slots=True)
class Account:
    recorded: bool = False  # False: the report predates the account
    records: int = 0
    used: dict[str, int] = field(default_factory=dict)  # event name -> records used
    kept_raw: dict[str, int] = field(default_factory=dict)  # event name -> records kept raw
    # per process: compile phases (chromium spans), inputs and expressions logged outside a compile
    outside_compiles: tuple[dict[str, Any], ...] = ()

    @property
    def used_count(self) -> int:
        return sum(self.used.values())

    @property
    def kept_raw_count(self) -> int:
        return sum(self.kept_raw.values())

    def figures(self) -> str:
        """ "4,120 records: 4,117 used, 3 kept raw" """
        if not self.recorded:
            return "records: not accounted (made before inspectc kept an account, or its run was killed)"
        if not self.records:  # compiles in processes the script started are theirs, not its
            return "0 records: torch logged no compile in this process"
        return f"{self.records:,} records: {self.used_count:,} used, {self.kept_raw_count:,} kept raw"

    def line(self) -> str:
        """ "4,120 records: 4,117 used, 3 kept raw: foo ×2, bar ×1" """
        text = self.figures()
        if self.kept_raw:
            text += ": " + ", ".join(f"{name} ×{n:,}" for name, n in _most(self.kept_raw))
        return text

    def plain(self) -> dict[str, Any]:
        return {
            "recorded": self.recorded,
            "records": self.records,
            "used": self.used_count,
            "kept_raw": self.kept_raw_count,
            "used_by_name": dict(_most(self.used)),
            "kept_raw_by_name": dict(_most(self.kept_raw)),
            "outside_compiles": list(self.outside_compiles),
        }


def read_account(bodies: list[Any]) -> Account:
    """The sum of the ``inspectc_account`` payloads (parsed JSON); ill-formed parts are skipped."""
    used: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    records = 0
    found = False
    outside: list[dict[str, Any]] = []
    for body in bodies:
        if not isinstance(body, dict):
            continue
        found = True
        if isinstance(body.get("outside_compiles"), dict) and body["outside_compiles"]:
            outside.append(body["outside_compiles"])
        count = body.get("records")
        records += count if isinstance(count, int) else 0
        for target, key in ((used, "used"), (kept, "kept_raw")):
            part = body.get(key)
            for name, n in part.items() if isinstance(part, dict) else ():
                if isinstance(name, str) and isinstance(n, int):
                    target[name] += n
    return Account(
        recorded=found, records=records, used=dict(used), kept_raw=dict(kept), outside_compiles=tuple(outside)
    )


def _most(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
