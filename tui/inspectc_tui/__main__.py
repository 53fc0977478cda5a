"""``python -m inspectc_tui REPORT`` (and ``inspectc tui REPORT``): browse a report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from inspectc.errors import InspectcError
from inspectc.report.open import open_report


def run_tui(path: str) -> int:
    """Check *path* opens (one clear error line if not), then run the app.

    A directory (per-rank reports, merged when loaded) is checked by the loader, which
    shows any error in the app.
    """
    if not Path(path).is_dir():
        open_report(path).close()
    from inspectc_tui.app import InspectcApp

    InspectcApp(path).run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="inspectc-tui", description="Browse an inspectc report.")
    parser.add_argument("report", help="a report, a share bundle (.zip) or a directory of rank reports")
    args = parser.parse_args(argv)
    try:
        return run_tui(args.report)
    except InspectcError as exc:
        print(f"inspectc: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
