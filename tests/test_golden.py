"""Golden reports (samples/reports) keep no absolute path of the machine that made them.

samples/make_reports.py rewrites the checkout, the venv, the home and the Inductor cache
folder into names that mean the same anywhere; this reads every text of every table
(compressed payloads too) and looks for a machine's folder.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspectc.store.open import open_report
from inspectc.store.schema import decompress

MACHINE_PATH = re.compile(r"(?<![\w.<>~-])/(?:work|root|home|Users|tmp|scratch|data/users)/[^\s\"'\\]*")


def texts(path: Path) -> Iterator[str]:
    db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in db.execute(f"SELECT * FROM {table}"):  # noqa: S608
                for value in row:
                    if isinstance(value, str):
                        yield value
                    elif isinstance(value, bytes):
                        yield decompress(value) or ""
    finally:
        db.close()


def test_golden_reports_hold_no_absolute_path_of_their_machine(golden: Path) -> None:
    reports = sorted(golden.glob("*.inspectc"))
    assert reports
    for report in reports:
        found = sorted({m.group(0) for text in texts(report) for m in MACHINE_PATH.finditer(text)})
        assert not found, f"{report.name}: {found[:5]}"
        with open_report(report) as r:  # still a report that opens, with relative user paths
            assert r.frames and all(not f.filename or not f.filename.startswith("/") for f in r.frames)


@pytest.mark.parametrize("text", ["/work/main/a.py", "x /root/.cache/y", "'/home/me/t.py'"])
def test_the_check_sees_a_machine_path(text: str) -> None:
    assert MACHINE_PATH.search(text)
