"""Which names hold secrets, and the run's secrets kept as salted hashes (never as values).

Capture records, in the report's ``run_secrets`` meta, a random salt and the salted SHA-256
and length of each value of a secret-looking argv flag (``--password X``, ``--api-key=X``)
and environment variable (``MY_API_TOKEN``, ``DB_PASS``). The values themselves are never
written: environment values were not in the report before, and a report file is copied
around. ``inspectc share`` finds text in the report whose salted hash matches and removes it
everywhere; the bundle it writes carries no hashes at all (a short password's hash could be
brute-forced).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import secrets as _random
from collections.abc import Iterable, Mapping
from typing import Any

META_KEY = "run_secrets"
MIN_SECRET = 5  # shorter values ("1", "true") would hit ordinary text everywhere
_WORDS = (
    "password|passwd|passphrase|pass|token|secret|credentials?|auth|authorization"
    "|cookie|apikey|sessionid|sessiontoken|privatekey"
    # one-word names tools use (libpq, sshpass, Azure connection strings, bearer tokens)
    "|pgpassword|sshpass|apitoken|authtoken|accesstoken|jwt|accountkey|connection[_-]?string"
)
# A name part by part (``_``, ``-``, ``.`` separate): ``MY_API_TOKEN``, ``db-pass``; ``key`` and
# ``session``, ``pwd`` count after another part or dash (``api_key``, ``--pwd``), never alone
# (``PWD`` is the working directory).
SECRET_NAME = rf"(?i:(?:[a-z0-9]+[_.-])*(?:(?:{_WORDS})|(?<=[_.-])(?:key|session|pwd))(?:[_.-][a-z0-9]+)*)"
_NAME_RE = re.compile(rf"-{{0,2}}{SECRET_NAME}")
_NOT_SECRET = frozenset({"true", "false", "none", "null", "yes", "no"})


def is_secret_name(name: str) -> bool:
    """``--db-pass``, ``HF_TOKEN``, ``api_key``: yes; ``max_tokens``, ``keyboard``: no."""
    return _NAME_RE.fullmatch(name) is not None


def secret_values(argv: Iterable[str], environ: Mapping[str, str]) -> list[str]:
    """Values of secret-named flags in *argv* and of secret-named variables in *environ*."""
    found: list[str] = []
    args = list(argv)
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if eq and is_secret_name(name):
            found.append(value)
        elif arg.startswith("-") and is_secret_name(arg) and i + 1 < len(args):
            if not args[i + 1].startswith("-"):
                found.append(args[i + 1])
    found += [v for k, v in environ.items() if is_secret_name(k)]
    return sorted({v for v in found if len(v) >= MIN_SECRET and v.lower() not in _NOT_SECRET})


def digest(salt: str, value: str) -> str:
    return hashlib.sha256((salt + "\0" + value).encode("utf-8", "surrogatepass")).hexdigest()


def hashed(values: Iterable[str]) -> dict[str, Any]:
    """The ``run_secrets`` meta: a fresh salt, and each value's salted hash and length."""
    salt = _random.token_hex(16)
    return {"salt": salt, "values": sorted([digest(salt, v), len(v)] for v in set(values))}


def parse_meta(text: str | None) -> tuple[str, dict[int, set[str]]] | None:
    """(salt, length -> hashes) from a ``run_secrets`` meta, or None when absent or odd."""
    try:
        data = json.loads(text or "null")
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("salt"), str):
        return None
    by_len: dict[int, set[str]] = {}
    for entry in data.get("values") or []:
        if (
            isinstance(entry, list)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and isinstance(entry[1], int)
        ):
            by_len.setdefault(entry[1], set()).add(entry[0])
    return (data["salt"], by_len) if by_len else None


# Where a secret may sit in text: a run between quotes or blanks, or between punctuation.
# Values of base64 keys hold / + = (AWS secret keys): two more runs keep them whole, in brackets
# (``[KEY]``, ``(KEY)``), after ``=`` (``?sig=KEY&x=1``) and with a trailing ``=``.
_CANDIDATES = (
    re.compile(r"[^\s'\"`]+"),
    re.compile(r"[^\s'\"`,;()\[\]{}<>=:@/\\&?]+"),
    re.compile(r"[^\s'\"`,;()\[\]{}<>&?=]+"),
    re.compile(r"[^\s'\"`,;()\[\]{}<>&?]+"),
)
# A quoted string as Python's repr or JSON writes it: a value with blanks, quotes or
# backslashes (``'correct horse'``, a repr's doubled ``\\``) is found by its decoded text.
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'" + r'|"(?:[^"\\\n]|\\.)*"')
_QUOTED_CAP = 1 << 20  # longer literals are not decoded (tokens still are)
_NESTING = 3  # a guard's string in a JSON string in JSON text (in a JSON string)


def matches(text: str, salt: str, by_len: Mapping[int, set[str]], _depth: int = 0) -> set[str]:
    """The substrings of *text* (whole tokens, by two tokenizations, and the decoded text of
    quoted strings, nested up to three deep) whose salted hash is recorded."""
    found: set[str] = set()

    def check(candidate: str, seen_as: str | None = None) -> None:
        hashes = by_len.get(len(candidate))
        if hashes and candidate not in found and digest(salt, candidate) in hashes:
            found.add(seen_as or candidate)

    for pattern in _CANDIDATES:
        for m in pattern.finditer(text):
            token = m.group(0)
            for candidate in {token, token.strip(".,;:!?")}:
                check(candidate)
    if _depth < _NESTING and ("'" in text or '"' in text):
        for m in _QUOTED.finditer(text):
            value = _unquote(m.group(0)) if len(m.group(0)) <= _QUOTED_CAP else None
            if value is not None:
                check(value)
                if '"' in value:  # torch's repro scripts write an env value's ' as " (env vars string)
                    check(value.replace('"', "'"), seen_as=value)
                found |= matches(value, salt, by_len, _depth + 1)
    return found


def _unquote(literal: str) -> str | None:
    """The text of one quoted string literal (data only: the pattern admits nothing else)."""
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None
