"""``python -m inspectc_tui REPORT [--follow]`` (and ``inspectc tui``): browse a report,
or follow one that ``inspectc run`` is still writing."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from inspectc.errors import InspectcError
from inspectc.model.terminal import safe
from inspectc.store.open import open_report

FOLLOW_HELP = "follow a report that `inspectc run` is still writing: frames appear as they land"


def run_tui(path: str, *, follow: bool = False) -> int:
    """Check *path* opens (one clear error line if not), then run the app.

    An empty path is refused here (``Path("")`` is the current folder). A directory (per-rank reports, merged when loaded) is checked by the loader, which
    shows any error in the app. Followed, a report not there yet is waited for (the run
    creates it when capture starts).
    """
    if not path or (not Path(path).is_dir() and not (follow and not Path(path).exists())):
        open_report(path).close()
    from inspectc_tui.app import InspectcApp

    InspectcApp(path, follow=follow).run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="inspectc-tui", description="Browse an inspectc report.")
    parser.add_argument("report", help="a report, a share bundle (.zip) or a directory of rank reports")
    parser.add_argument("--follow", action="store_true", help=FOLLOW_HELP)
    args = parser.parse_args(argv)
    try:
        return run_tui(args.report, follow=args.follow)
    except InspectcError as exc:
        print(f"inspectc: {safe(str(exc))}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
