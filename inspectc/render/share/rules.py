"""The one table of redaction rules: what ``share`` removes and ``share --check`` looks for.

Each :class:`Rule` is data: a name, a regular expression, the placeholder that replaces a
match, and a description. A rule may keep a leading part of its match (the flag name of
``--password X``, the ``Bearer `` of a header) in a group named ``keep``. The redactor
(:mod:`.redact`) and the checker (:mod:`.scan`) compile the same table into one pattern,
so what one removes the other looks for. Placeholders hold no hash and no length.

User rules (``--redact-rules FILE``) are read, never executed: one rule a line,
``name = regex`` (blank lines and ``#`` comments skipped); the placeholder is ``<name>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from inspectc.errors import UsageError
from inspectc.model.secrets import SECRET_NAME


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    regex: str
    placeholder: str
    description: str


# A user name inside a path: up to a character that ends a path part.
NAME = r"(?:[^/\\\s'\"`<>:;,|()\[\]{}&]|\\u[0-9a-fA-F]{4})+"  # \uXXXX: JSON-escaped
_CLUSTER = ("fsx", "checkpoint", "lustre", "gpfs", "nfs", "mnt", "data/users", "scratch/users")
# A value: quoted ('...', "...", or \"...\" inside JSON text; not opening on a blank or
# comma: that is a list's next item) or up to a blank or quote.
# None/null/booleans and empty strings are no secrets (Inductor's `*_custom_pass: None`).
_VALUE = (
    r"(?!(?:None|null|True|False|true|false)(?![\w-]))"
    r"(?:\\\"(?![<,\s])[^\"\n]+?\\\"|\"(?![<,\s])[^\"\n\\]+\"|'(?![<,\s])[^'\n]+'|(?![<\"'\\])[^\s'\",;&\\]+)"
)
_HEX = r"[0-9A-Fa-f]{1,4}"
_NOT_A_FILE = r"(?<!\.py)(?<!\.pyi)(?<!\.c)(?<!\.cc)(?<!\.cpp)(?<!\.h)(?<!\.hpp)(?<!\.cu)(?<!\.cuh)"
# A key whose last part names a secret (DB_SECRET, db_password, api_key), stricter than
# SECRET_NAME: torch's own JSON keys (frame_key, cache_key, post_grad_pass_time_us) are data.
_SECRET_KEY = (
    r"(?i:(?:[a-z0-9]+[_.-])*(?:password|passwd|passphrase|secret|token|credentials?|apikey"
    r"|(?:api|private|access|secret|signing)[_-]?key|(?:auth|session)[_-]?token))"
)
_SPACED = rf"(?:{NAME}(?: {NAME}){{1,3}}(?=\\|/)|{NAME})"  # "Jane Doe/" whole; else one word

RULES: tuple[Rule, ...] = (
    Rule("hf token", r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{20,}", "<token>", "Hugging Face tokens"),
    Rule(
        "github token",
        r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
        "<token>",
        "GitHub tokens",
    ),
    Rule(
        "aws key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])", "<token>", "AWS access keys"
    ),
    Rule(
        "openai key",
        r"(?<![A-Za-z0-9])sk-(?:[A-Za-z0-9_-]{2,}-)?[A-Za-z0-9_-]{20,}",
        "<token>",
        "OpenAI/Anthropic keys",
    ),
    Rule("slack token", r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}", "<token>", "Slack tokens"),
    Rule(
        "other token",
        r"(?<![A-Za-z0-9])(?:glpat-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,})",
        "<token>",
        "GitLab, Google, npm, PyPI tokens",
    ),
    Rule(
        "bearer token",
        r"(?P<keep>(?i:\b(?:bearer|basic|token))\s+)(?![<\"'])[A-Za-z0-9._~+/=-]{8,}",
        "<token>",
        "credentials after Bearer, Basic or Token",
    ),
    Rule(
        "url credentials",
        # a scheme starts where a run of scheme characters does (not at each \b inside
        # one: "a.a.a..." made that quadratic)
        # up to the last @ of the run: a password may hold a raw @ or / (postgres://u:p@ss/x@db)
        # (at most 256 characters: a scan to the line's end from every scheme was quadratic)
        r"(?P<keep>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://)[^\s'\"<>\\]{1,256}@",
        "<userinfo>@",
        "credentials in URLs",
    ),
    Rule(
        "secret flag",
        rf"(?P<keep>(?<![\w-])--?{SECRET_NAME}(?:=|\s+))(?!-){_VALUE}",
        "<secret>",
        "values of flags named like a password, token or key",
    ),
    Rule(
        "secret assignment",
        # a source file's ":" is its line (auth.py:10, token_utils.py:5), not a value
        rf"(?P<keep>(?<![\w.-]){SECRET_NAME}\s*(?:=(?!=)|{_NOT_A_FILE}:)\s*(?:(?i:bearer|basic)\s+)?)(?!(?i:bearer|basic)\s){_VALUE}",
        "<secret>",
        "values assigned to names like a password, token or key",
    ),
    Rule(
        "secret key",
        # a quoted key named like a secret, then its value: a guard's G['DB_SECRET'] == '...',
        # G['CONFIG']['db_password'] == '...', JSON's "password": "..."
        rf"(?P<keep>(?:'|\\\"|\")(?<=['\"]){_SECRET_KEY}(?:'|\\\"|\")\]?\s*(?:==|=(?!=)|:)\s*)(?!(?i:bearer|basic)\s){_VALUE}",
        "<secret>",
        "values under keys named like a password, token or key (guards, JSON)",
    ),
    Rule(
        "email",
        r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@(?!self\.)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])",
        "<email>",
        "email addresses",
    ),
    Rule(
        "ipv4",
        r"(?<![\d.])(?!127\.|0\.0\.0\.0)(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?!\.?\d)",
        "<ip>",
        "IPv4 addresses (not loopback)",
    ),
    Rule(
        "ipv6",
        rf"(?<![0-9A-Fa-f:])(?:(?:{_HEX}:){{7}}{_HEX}|(?:{_HEX}:){{1,6}}:{_HEX}(?::{_HEX}){{0,5}}|{_HEX}::{_HEX}(?::{_HEX}){{1,5}})(?![0-9A-Za-z:])",
        "<ip>",
        "IPv6 addresses",
    ),
    Rule(
        "home",
        # a name with blanks ("Jane Doe") when a folder follows it; Windows' "users" in any case
        rf"/(?:home|Users)/{_SPACED}|[A-Za-z]:(?:\\\\|\\)(?i:users)(?:\\\\|\\){_SPACED}",
        "~",
        "home directories",
    ),
    Rule(
        "cluster user",
        "(?:" + "|".join(rf"(?<=/{p}/)" for p in _CLUSTER) + rf"|(?<=/scratch/)(?!users/)){NAME}",
        "<user>",
        "user names in cluster folders (fsx, checkpoint, lustre, gpfs, nfs, mnt, data/users, scratch)",
    ),
    Rule("cache user", rf"(?<=torchinductor_){NAME}", "<user>", "user names in Inductor cache folders"),
    Rule(
        "content hash",
        r"(?<![A-Za-z0-9])(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])(?:[0-9a-f]{32,}|[0-9a-z]{50,})(?![A-Za-z0-9])",
        "<hash>",
        "content hashes (md5/sha hex, Inductor cache names)",
    ),
)


def group_regex(rule: Rule, index: int) -> str:
    """*rule* as one alternative of the combined pattern: ``(?P<rI>...)``, ``keep`` renamed."""
    return f"(?P<r{index}>{rule.regex.replace('(?P<keep>', f'(?P<k{index}>')})"


def load_rules(path: str | Path) -> tuple[Rule, ...]:
    """Rules from a ``name = regex`` file; a bad line is a :class:`UsageError` naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read redaction rules {path}: {exc}") from None
    found: list[Rule] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, eq, regex = line.partition("=")
        name, regex = name.strip(), regex.strip()
        if not eq or not re.fullmatch(r"[\w .-]{1,40}", name) or not regex:
            raise UsageError(f"{path}:{number}: expected `name = regex`")
        try:
            compiled = re.compile(regex)
        except re.error as exc:
            raise UsageError(f"{path}:{number}: bad regex ({exc})") from None
        if compiled.match(""):
            raise UsageError(f"{path}:{number}: the regex matches empty text")
        if re.search(r"\\[1-9]|\(\?P=", regex):
            raise UsageError(f"{path}:{number}: back-references are not allowed")
        if set(compiled.groupindex) - {"keep"}:
            raise UsageError(f"{path}:{number}: only the named group (?P<keep>...) is allowed")
        found.append(Rule(name, regex, f"<{name}>", f"user rule from {Path(path).name}"))
    return tuple(found)
