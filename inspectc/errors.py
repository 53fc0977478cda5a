"""The one error hierarchy of inspectc, every error and only errors: the CLI turns these into
one line on stderr."""

from __future__ import annotations


class InspectcError(Exception):
    """Base of every error inspectc reports to a user (exit code 2 unless said otherwise)."""

    exit_code = 2


class UsageError(InspectcError):
    """The command line or the arguments of an API call are wrong."""


class ReportError(InspectcError):
    """A report file is missing, not a report, corrupt, truncated or from a newer schema."""


class RankConflict(UsageError):
    """A record names another rank than the log it is in (import refuses, never merges)."""

    def __init__(self, file_rank: int, record_rank: int) -> None:
        super().__init__(f"records of rank {record_rank} in the log of rank {file_rank}")
        self.file_rank = file_rank
        self.record_rank = record_rank


class GraphvizMissing(InspectcError):
    """Graphviz's ``dot`` is needed to write SVG/PNG/PDF and is not on PATH."""


class RenderError(InspectcError):
    """``dot`` ran and failed (or ran past its time)."""


class TuiMissing(InspectcError):
    """Textual (or another of the TUI's dependencies) is not installed."""


class TorchMissing(InspectcError):
    """torch is not importable in this Python."""


class ReproError(InspectcError):
    """The kernel cannot be reproduced from this report (no source, symbolic shapes...)."""


class ReportBusy(InspectcError):
    """Another live ``inspectc run`` is writing the report named by ``-o``."""


class SecretsFlagged(InspectcError):
    """``share``'s independent detector (detect-secrets) flags what it was about to write."""
