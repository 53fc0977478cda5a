"""The one error hierarchy of inspectc: the CLI turns these into one line on stderr."""

from __future__ import annotations


class InspectcError(Exception):
    """Base of every error inspectc reports to a user (exit code 2 unless said otherwise)."""

    exit_code = 2


class UsageError(InspectcError):
    """The command line or the arguments of an API call are wrong."""


class ReportError(InspectcError):
    """A report file is missing, not a report, corrupt, truncated or from a newer schema."""


class CaptureError(InspectcError):
    """Capture could not start (never raised once the user's program runs)."""


class ReportBusy(InspectcError):
    """Another live ``inspectc run`` is writing the report named by ``-o``."""
