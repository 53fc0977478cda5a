"""THE way to open a report for reading: a report file, a share bundle, or a rank folder.

Every command and the TUI open what the user names through :func:`open_report`, so one
command never accepts a path that another refuses.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.store import bundle, snapshot
from inspectc.store.bundle import open_single
from inspectc.store.reader import Report, check_path


class _TemporaryReport(Report):
    """A merged report in a temporary folder, removed when it is closed (or at exit)."""

    def __init__(self, path: Path, folder: Path) -> None:
        super().__init__(path)
        self._folder = folder

    def close(self) -> None:
        super().close()
        shutil.rmtree(self._folder, ignore_errors=True)


def open_report(path: str | os.PathLike[str], *, private: bool = False) -> Report:
    """Open *path*: a report, a share bundle (``.zip``), or a folder of per-rank reports.

    Every report is read ``immutable``; :attr:`Report.notices` holds the one line a reader
    shows when a journal or WAL beside one was left unread. With *private* (the TUI, which
    reads lazily for as long as it runs), a report file is read from a private snapshot
    verified at open (a bundle and a folder are private copies already).

    In a folder, the per-rank reports are merged on the fly (into a temporary file); a
    report that already holds several ranks (an earlier merge) is left out when per-rank
    ones are there. Raises :class:`ReportError` with one clear line.
    """
    if not str(path):
        raise ReportError("no report given (an empty path)")
    target = Path(path)
    if target.is_dir():
        return _open_folder(target)
    check_path(target)
    if bundle.is_bundle(target):
        return bundle.open_bundle(target)
    return Report(target, private=private)


def _open_folder(folder: Path) -> Report:
    from inspectc.store import merge  # lazily: a folder is the rare case

    found = merge.per_rank_reports(merge.reports_in(folder))
    if not found:
        raise ReportError(f"{folder} is a directory with no reports (*.inspectc) in it")
    if len(found) == 1:
        return open_single(found[0])
    notices = [line for p in found if (line := snapshot.notice(p))]
    tmp = Path(tempfile.mkdtemp(prefix="inspectc-merge-"))
    atexit.register(shutil.rmtree, tmp, True)
    merged = tmp / "merged.inspectc"
    result = merge.merge_reports(found, merged, argv=None)
    if result.renumbered:  # not one job's ranks: reports of unrelated runs would read as ranks
        shutil.rmtree(tmp, ignore_errors=True)
        names = ", ".join(p.name for p in found[:4]) + (", ..." if len(found) > 4 else "")
        raise ReportError(
            f"{folder}: its {len(found)} reports do not name distinct ranks ({names}): not one"
            " job's ranks; open one report, or inspectc merge them to number them by position"
        )
    report = _TemporaryReport(merged, tmp)
    report.notices[:0] = notices  # each rank's journal, left unread, is said once
    return report
