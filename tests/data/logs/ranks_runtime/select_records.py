"""Copy the records of a few kinds from tlparse's ``tests/inputs/multi_rank_runtime`` logs.

Run: ``python tests/data/logs/ranks_runtime/select_records.py TLPARSE/tests/inputs/multi_rank_runtime``
(stdlib only). Writes ``rank_0.log``, ``rank_4.log`` and ``rank_5.log`` here: their records of
the kinds in ``KEEP``, each record line and its payload lines copied unchanged, in file order
(the rest, chromium events and cache payloads, is 90% of the 11 MB). Rank 4 compiled graph 0/0
without runtime estimates; rank 5 compiled 2 graphs where the others compiled 4.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

KEEP = {
    "str",
    "dynamo_start",
    "compilation_metrics",
    "inductor_output_code",
    "artifact:recompile_reasons",
    "artifact:inductor_collective_schedule",
    "artifact:inductor_runtime_and_tensor_meta",
}
RANKS = (0, 4, 5)
_JSON = re.compile(r"^[VIWEC]\d{4} [^\]]*\] (\{.*)$")


def kind(line: str) -> str | None:
    found = _JSON.match(line)
    if not found:
        return None
    meta = json.loads(found.group(1))
    name = next(iter(meta))
    return f"artifact:{meta[name].get('name')}" if name == "artifact" else name


def main(folder: Path) -> None:
    here = Path(__file__).resolve().parent
    for rank in RANKS:
        out: list[str] = []
        keep = False
        for line in (folder / f"dedicated_log_torch_trace_rank_{rank}.log").read_text().splitlines():
            if not line.startswith("\t"):
                keep = kind(line) in KEEP
            if keep:
                out.append(line)
        (here / f"rank_{rank}.log").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
