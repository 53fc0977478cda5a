"""inspectc_tui: a Textual browser for inspectc report files (no torch needed)."""

__version__ = "0.1.0"
