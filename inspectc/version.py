"""The version of inspectc, in a module of its own: every package reads it without importing
``inspectc`` (whose ``__init__`` imports capture and report, so reading it from there made
import circles)."""

__version__ = "0.2.0"
