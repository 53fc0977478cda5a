"""inspectc's own frames in a user's stack: the rule is :mod:`inspectc.model.decode.own` (the
readers apply it too); the builder takes it from here."""

from __future__ import annotations

from inspectc.model.decode.own import is_own_frame, users_frames

__all__ = ["is_own_frame", "users_frames"]
