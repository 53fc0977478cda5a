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
# Words that make a name secret wherever they are one of its parts (``MY_AUTH_BLOB``,
# ``clientSecret``); capture hashes the values of such argv flags and environment variables,
# which only ever removes those exact values (being generous costs nothing).
_PART_WORDS = frozenset(
    "password passwords passwd passphrase pass token secret secrets credential credentials creds"
    " auth authorization cookie apikey apikeys sessionid sessiontoken privatekey pgpassword sshpass"
    " apitoken authtoken accesstoken refreshtoken jwt accountkey".split()
)
# A name that *ends* in a secret word: what text rules go by (``--dbPassword``, ``clientSecret``,
# ``--client-secrets``, ``--api-keys``, ``APP_SECRETS``, ``MYSQL_PWD``). Words split at ``_``,
# ``-``, ``.`` and camelCase; ``token_type_ids``, ``past_key_values``, ``max_tokens`` and
# ``eos_token`` are not secret names, and ``key`` counts only after a word that makes it one.
_KEY_QUALIFIERS = (
    "api|private|access|secret|signing|client|account|encryption|master|licen[cs]e|subscription|ssh"
    "|storage|service|app|auth|session|shared|webhook|admin|consumer|deploy|hmac|pgp|gpg|sas"
)
_TOKEN_QUALIFIERS = "api|auth|access|refresh|bearer|session|id|csrf|oauth|bot|personal[_.-]?access"
# Tokens of a tokenizer, not credentials (``eos_token = 2``, ``first_token_tensor``)
_TEXT_TOKENS = (
    "bos eos pad unk sep cls mask max min num first last next prev special start end new added sos"
    " image video audio vision boi eoi stop tool think decoder input output sample"
).split()
_NOT_TEXT_TOKEN = "".join(rf"(?<!{w}token)(?<!{w}[_.-]token)" for w in _TEXT_TOKENS)  # after "token"
_FINAL = (
    r"(?i:pass(?:words?|wd|phrases?)?|pgpassword|sshpass|secrets?|credentials?|creds?|authorization"
    rf"|auth|cookies?|jwt|sessionid|connection[_.-]?strings?|(?:{_KEY_QUALIFIERS})[_.-]?keys?"
    rf"|(?:{_TOKEN_QUALIFIERS})[_.-]?tokens?)"
    rf"|(?i:token{_NOT_TEXT_TOKEN})|(?<=[\w.-][_.-])(?i:pwd)|(?<=[a-z0-9])PWD"
)
# the final word starts the name, or follows a separator, or a camelCase hump
_HUMP = r"(?:(?<=[_.-])|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]))"
SECRET_KEY_NAME = rf"(?:[A-Za-z0-9_.-]*?{_HUMP})?(?:{_FINAL})(?![A-Za-z0-9_])"
# The same name's last word alone, where it ends a name (what text rules search for: a
# match starts at the word, not at every character of every name before it)
_FIRST = "abcdegh-jlmoprstw"  # the first letters of the words above (a quick test first)
SECRET_NAME_END = rf"(?=(?i:[{_FIRST}]))(?:{_HUMP}|(?<![A-Za-z0-9]))(?:{_FINAL})(?![A-Za-z0-9_])"
_KEY_NAME_RE = re.compile(rf"-{{0,2}}{SECRET_KEY_NAME}")
_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_NOT_SECRET = frozenset({"true", "false", "none", "null", "yes", "no"})


def is_secret_name(name: str) -> bool:
    """``--db-pass``, ``HF_TOKEN``, ``api_key``, ``clientSecret``, ``MY_AUTH_BLOB``: yes;
    ``max_tokens``, ``keyboard``, ``PWD``: no. Generous: one secret word among its parts is
    enough (capture hashes such values; text rules use :data:`SECRET_KEY_NAME`)."""
    if _KEY_NAME_RE.fullmatch(name):
        return True
    parts = [p.lower() for p in _PARTS.findall(name.lstrip("-"))]
    return len(parts) > 1 and "pwd" in parts or any(p in _PART_WORDS for p in parts)


# Tools whose short flag takes a password (``mysql -p X``, ``mysql -pX``, ``sshpass -p X``),
# by the program's base name; a glued value only where the tool reads it so.
TOOL_PASSWORD_FLAGS: dict[str, str] = {
    **dict.fromkeys(
        "mysql mysqldump mysqladmin mysqlimport mysqlshow mariadb mariadb-dump mongo mongosh mongodump"
        " mongorestore mongoexport mongoimport sshpass".split(),
        "-p",
    ),
    **dict.fromkeys("redis-cli keydb-cli".split(), "-a"),
    **dict.fromkeys("sqlcmd bcp zip unzip mosquitto_pub mosquitto_sub".split(), "-P"),
    **dict.fromkeys("ldapsearch ldapmodify ldapadd ldapdelete".split(), "-w"),
}
_GLUED = frozenset({"-p"})  # mysql's -pSECRET; sshpass -pSECRET too


def secret_positions(argv: list[str]) -> list[tuple[int, str]]:
    """Where *argv* holds a secret: (index, the value at the end of that argument) for
    ``--password X``, ``--api-key=X``, ``HF_TOKEN=X`` and known tools' password flags."""
    found: list[tuple[int, str]] = []
    tool_flag: str | None = None
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        base = arg.replace("\\", "/").rsplit("/", 1)[-1]
        if base in TOOL_PASSWORD_FLAGS:
            tool_flag = TOOL_PASSWORD_FLAGS[base]
        if eq and value and is_secret_name(name):
            found.append((i, value))
        elif (
            not eq and arg.startswith("-") and (is_secret_name(arg) or arg == tool_flag) and i + 1 < len(argv)
        ):
            # (``--gh=<token>`` holds its own value: the next argument is not its value)
            if argv[i + 1] and not argv[i + 1].startswith("-"):
                found.append((i + 1, argv[i + 1]))
        elif tool_flag in _GLUED and arg.startswith(tool_flag or "") and len(arg) > 2 and not eq:
            found.append((i, arg[2:]))
    return found


def secret_values(argv: Iterable[str], environ: Mapping[str, str]) -> list[str]:
    """Values of secret-named flags in *argv* and of secret-named variables in *environ*."""
    found = [value for _, value in secret_positions(list(argv))]
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
