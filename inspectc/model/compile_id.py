"""The compile id: which compile of which frame, parsed once where it is read, then typed.

Stdlib only and nothing of the model, so model/plain.py reads stored ids with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from inspectc.model.limits import small_int


@dataclass(frozen=True, kw_only=True, slots=True)
class CompileId:
    """Which compile of which frame: parsed once where it is read, then carried typed.

    ``frame``/``compile`` are Dynamo's ``frame_id``/``frame_compile_id``; ``attempt`` counts
    restarts of one compile (``0/0_1``); ``autograd`` is compiled autograd's id (``!1/0/0``);
    ``rank`` is the process's rank in a distributed run (None otherwise).
    """

    rank: int | None = None
    autograd: int | None = None
    frame: int | None = None
    compile: int | None = None
    attempt: int = 0
    occurrence: int = 1  # the n-th compile of this id in one process (torch._dynamo.reset())

    @property
    def text(self) -> str:
        """The id as Dynamo prints it (without the attempt): "0/1" or "!2/0/1"."""
        core = f"{self.frame}/{self.compile}" if self.frame is not None else ""
        if self.autograd is not None:
            return f"!{self.autograd}/{core}" if core else f"!{self.autograd}"
        return core or "?"

    def __str__(self) -> str:
        return self.text + self._suffix

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)  # f"{cid:<8}" pads the text

    @property
    def known(self) -> bool:
        """It names a compile (a graph loaded from the cache, an AOT compile's kernel: no)."""
        return self.frame is not None or self.autograd is not None

    @property
    def label(self) -> str:
        """The id for a table of several ranks: "r1 0/1" (just "0/1" with no rank)."""
        return f"r{self.rank} {self}" if self.rank is not None else str(self)

    @property
    def _suffix(self) -> str:
        again = f"#{self.occurrence}" if self.occurrence > 1 else ""
        return again + (f"_{self.attempt}" if self.attempt else "")

    @property
    def index(self) -> str:
        """Which compile of its frame, as text: "1" of "0/1", "0#2" of "0/0#2", "!2/1" of "!2/0/1"."""
        if self.compile is None:
            return str(self)
        tail = f"{self.compile}{self._suffix}"
        return f"!{self.autograd}/{tail}" if self.autograd is not None else tail

    @property
    def sort_key(self) -> tuple[int, ...]:
        """A total order by number, a missing part first: rank, autograd, frame, compile,
        occurrence, attempt ("0/10" after "0/9"; Dynamo's ids before compiled autograd's)."""
        return (
            _or_minus(self.rank),
            _or_minus(self.autograd),
            _or_minus(self.frame),
            _or_minus(self.compile),
            self.occurrence,
            self.attempt,
        )

    def __lt__(self, other: CompileId) -> bool:
        return self.sort_key < other.sort_key  # a total order: a missing part sorts first

    def without_rank(self) -> CompileId:
        """The same compile with no rank: the key that joins one compile across ranks."""
        return replace(self, rank=None) if self.rank is not None else self

    def with_rank(self, rank: int | None) -> CompileId:
        return replace(self, rank=rank) if self.rank != rank else self

    def same_compile(self, other: CompileId) -> bool:
        """The same compile of the same frame, whatever the rank either names."""
        return (self.autograd, self.frame, self.compile, self.attempt, self.occurrence) == (
            other.autograd,
            other.frame,
            other.compile,
            other.attempt,
            other.occurrence,
        )

    @classmethod
    def parse(cls, text: str, rank: int | None = None) -> CompileId:
        """Read "0/1", "0/1_2", "!2/0/1", "!2" or "0/0#2"; anything else keeps only the rank."""
        body, _, attempt = text.partition("_")
        body, _, again = body.partition("#")
        autograd: int | None = None
        if body.startswith("!"):
            head, _, body = body[1:].partition("/")
            autograd = _int_or_none(head)
        frame, _, compile_ = body.partition("/")
        return cls(
            rank=rank,
            autograd=autograd,
            frame=_int_or_none(frame),
            compile=_int_or_none(compile_),
            attempt=_int_or_none(attempt) or 0,
            occurrence=_int_or_none(again) or 1,
        )


def ranked(cid: object, rank: int | None) -> CompileId:
    """*cid* with *rank*, for a record's ``__post_init__``; a stored id that is not one (a
    null in an untrusted report) is a TypeError, which the report's reader turns into one line."""
    if not isinstance(cid, CompileId):
        raise TypeError(f"compile id is {type(cid).__name__}, not an id")
    return cid.with_rank(rank)


def ranked_or_none(cid: object, rank: int | None) -> CompileId | None:
    return None if cid is None else ranked(cid, rank)


_ID_PREFIX = re.compile(r"^!?\d+/\d+(?:/\d+)?:\s*")


def without_id_prefix(text: str) -> str:
    """*text* without the compile id torch puts before a recompile reason ("0/1: L['x'] ...")."""
    return _ID_PREFIX.sub("", text)


def _or_minus(value: int | None) -> int:
    return -1 if value is None else value


def _int_or_none(text: str) -> int | None:
    # ASCII digits only ("²".isdigit() is True, int("²") raises) and no 4,300-digit id
    return small_int(text)
