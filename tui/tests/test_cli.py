"""`inspectc tui` from the command line, and what the TUI imports (no torch, ever)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_missing_report_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "inspectc", "tui", str(tmp_path / "nope.inspectc")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"inspectc: no such report: {tmp_path / 'nope.inspectc'}"


def test_without_textual_it_says_how_to_install(sin_report: Path) -> None:
    for blocked in ("textual", "inspectc_tui"):
        result = _python(
            f"import sys; sys.modules[{blocked!r}] = None\n"
            "from inspectc.cli.main import main\n"
            f"sys.exit(main(['tui', {str(sin_report)!r}]))"
        )
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "pip install 'inspectc[tui]'" in lines[0]


def test_capture_side_needs_no_textual() -> None:
    result = _python(
        "import sys; sys.modules['textual'] = None; sys.modules['inspectc_tui'] = None\n"
        "from inspectc.cli.main import build_parser\n"
        "build_parser().parse_args(['summary', 'x'])\n"
        "print('ok')"
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_the_tui_never_imports_torch() -> None:
    result = _python(
        "import sys\n"
        "import inspectc_tui.app, inspectc_tui.__main__\n"
        "bad = sorted(m for m in ('torch', 'triton', 'inspectc.capture.session') if m in sys.modules)\n"
        "print(bad)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
