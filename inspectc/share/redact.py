"""Privacy for sharing: what in report text is private, and one pattern that replaces it all.

A :class:`Redactor` is one compiled pattern built from what this machine says (home,
``getpass.getuser()``, ``socket.gethostname()``) *and* everything the report recorded, on
every rank (each run's host name, working directory, argv and sources, the home parts of
every path, ``torchinductor_NAME`` cache folders), so a report captured elsewhere is
cleaned too (:mod:`.found` gathers those). It replaces home directories (``/home``, ``/Users``, ``C:\\Users``, and the
name in ``/data/users/NAME``, ``/scratch/NAME``), user names (as words, and as any path
part), host names, well-known token shapes (``hf_``, ``ghp_``, ``github_pat_``, ``AKIA``,
``sk-``, ``xoxb-``...) and content hashes (md5/sha hex, Inductor's cache names), which are
derived from the original text and so could be checked against guesses. It counts what
it replaced, by kind. The copy of the report file is made by :mod:`.copy`.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import socket
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from inspectc.model import secrets as run_secrets
from inspectc.model.decode.record_keys import SOURCE_FREE_EVENTS
from inspectc.model.limits import TextBudget
from inspectc.share.alternation import Alternation
from inspectc.share.rules import NAME as _NAME
from inspectc.share.rules import RULES, Rule, group_regex

HOME = "~"
USER = "<user>"
HOST = "<host>"
TOKEN = "<token>"
HASH = "<hash>"
SECRET = "<secret>"

_HOME_USER = re.compile(
    rf"(?:/(?:home|Users)/|/data/users/|/scratch/users/|/scratch/(?!users/)|[A-Za-z]:(?:\\\\|\\)Users(?:\\\\|\\))({_NAME})"
)
_CACHE_USER_NAME = re.compile(rf"torchinductor_({_NAME})")
# Names are replaced as whole words, where "_" also separates words: torch's default cache
# folder is /tmp/torchinductor_<user>.
_BEFORE = r"(?<![^\W_])"
_AFTER = r"(?![^\W_])"
REDACTED_STR = "<redacted str>"  # a run secret in quotes: a guard keeps its shape
# Shared system accounts are not personal; replacing them as words would mangle text
# ("root" is also a guard tree's word). Paths under their homes are still replaced.
GENERIC_ACCOUNTS = frozenset(
    {
        "root",
        "user",
        "users",
        "admin",
        "runner",
        "ubuntu",
        "ec2-user",
        "jovyan",
        "vscode",
        "codespace",
        "nobody",
    }
)
MIN_USER = 3  # shorter names would hit ordinary words; their home paths are still replaced
MIN_HOST = 2
# With --no-source these event payloads are kept (they hold no source); all others are blanked.
DATA_EVENTS = SOURCE_FREE_EVENTS
LEFT_OUT = "# left out by `inspectc share --no-source`\n"
KINDS = {"h": "home directory", "u": "user name", "n": "host name", "s": "run secret"}
_REPLACEMENT = {"h": HOME, "u": USER, "n": HOST, "s": SECRET}
PLACEHOLDERS = frozenset({*_REPLACEMENT.values(), *(r.placeholder for r in RULES), REDACTED_STR, TOKEN, HASH})


def _current_user() -> str | None:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return None


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces homes by ``~``, users by ``<user>``, hosts by ``<host>``, tokens, hashes.

    :attr:`counts` says how many of each kind it replaced (``KINDS`` names them).
    """

    homes: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    segments: tuple[str, ...] = ()  # user names replaced wherever they are a whole path part
    skipped: tuple[str, ...] = ()  # kinds ("user name", "host name") found but not replaced as words
    secrets: tuple[str, ...] = ()  # the run's own secret values (argv flags, environment)
    rules: tuple[Rule, ...] = RULES  # the table, plus any --redact-rules
    # (field, rule) -> removed values, for --show-redactions and the counts (never written)
    removed: dict[tuple[str, str], set[str]] = field(default_factory=dict, compare=False)
    where: list[str] = field(default_factory=lambda: ["report"], compare=False)
    # issue 38: what this redactor may still work through (share sets it; None: no limit)
    budget: TextBudget | None = field(default=None, compare=False)

    @property
    def counts(self) -> Counter[str]:
        """Removals by rule: a value counts once in each field it was removed from (the same
        password in a guard and in argv is two; twice in one guard tree is one)."""
        found: Counter[str] = Counter()
        for (_, rule), values in self.removed.items():
            found[rule] += len(values)
        return found

    @classmethod
    def for_report(
        cls,
        *,
        hostnames: Iterable[str | None] = (),
        paths: Iterable[str | None] = (),
        users: Iterable[str | None] = (),
        secrets: Iterable[str] = (),
        extra_rules: tuple[Rule, ...] = (),
        this_machine: bool = True,
    ) -> Redactor:
        """Values from the report (its host names, paths, users) plus this machine's, if asked."""
        homes: set[str] = set()
        found: set[str] = {u for u in users if u}
        hosts: set[str] = {h for h in hostnames if h}
        if this_machine:
            home = os.path.expanduser("~")
            if home and home not in ("/", "~"):
                homes.add(home.rstrip("/\\"))
            if user := _current_user():
                found.add(user)
            hosts |= machine_hosts()
        for path in paths:
            for match in _HOME_USER.finditer(path or ""):
                found.add(match.group(1))
            for match in _CACHE_USER_NAME.finditer(path or ""):
                found.add(match.group(1))
        hosts |= {h.split(".", 1)[0] for h in hosts}
        hosts -= {"", "localhost", *_REPLACEMENT.values()}  # a redacted report names <host>
        found -= set(_REPLACEMENT.values())
        personal = {u for u in found if u.lower() not in GENERIC_ACCOUNTS}
        words = {u for u in personal if len(u) >= MIN_USER}
        good_hosts = {h for h in hosts if len(h) >= MIN_HOST}
        skipped = [
            kind
            for kind, seen, kept in (("user name", found, words), ("host name", hosts, good_hosts))
            if seen - kept
        ]
        return cls(
            homes=tuple(sorted(homes, key=len, reverse=True)),
            users=tuple(sorted(words, key=len, reverse=True)),
            hosts=tuple(sorted(good_hosts, key=len, reverse=True)),
            segments=tuple(sorted(personal - words, key=len, reverse=True)),
            skipped=tuple(skipped),
            secrets=tuple(
                sorted({v for v in secrets if len(v) >= run_secrets.MIN_SECRET}, key=len, reverse=True)
            ),
            rules=RULES + tuple(extra_rules),
        )

    # -- matching ----------------------------------------------------------------------
    @property
    def pattern(self) -> Alternation:
        return _compile(self.homes, self.users, self.hosts, self.segments, self.secrets, self.rules)

    def at(self, where: str) -> None:
        """Name the field the next replacements come from (``--show-redactions`` lists it)."""
        self.where[0] = where

    def kind(self, match: re.Match[str]) -> str:
        """The rule that *match* (of :attr:`pattern`) matched, by name."""
        group = match.lastgroup or "x"
        if group[0] == "r":
            return self.rules[int(group[1:])].name
        return KINDS[group[0]]

    def _replacement(self, match: re.Match[str]) -> str:
        group = match.lastgroup or "x"
        kind = self.kind(match)
        keep = ""
        if group[0] == "r":
            index = int(group[1:])
            keep = (match.group(f"k{index}") if f"k{index}" in match.re.groupindex else None) or ""
            placeholder = self.rules[index].placeholder
        elif group[0] == "s":
            placeholder = REDACTED_STR if match.group(f"q{group[1:]}") else SECRET
        else:
            placeholder = _REPLACEMENT[group[0]]
        self.note(kind, match.group(0)[len(keep) :])
        return keep + placeholder

    def note(self, rule: str, value: str) -> None:
        """Record that *rule* removed *value* from the current field (see :attr:`counts`)."""
        self.removed.setdefault((self.where[0], rule), set()).add(value)

    def sub(self, text: str) -> str:
        return self.sub_mapped(text, ())[0]

    def sub_mapped(self, text: str, offsets: Iterable[int]) -> tuple[str, dict[int, int]]:
        """Redact *text* and say where each old offset lands in the new text.

        Text laid out around a removed value would still tell its length: a guard padded to
        60 columns, the carets under a traceback's code line. So on a line where something
        was replaced, a later run of three or more blanks becomes two, and a caret line just
        below it is dropped."""
        if self.budget is not None:
            self.budget.spend(len(text))
        edits = [(m.start(), m.end(), self._replacement(m)) for m in self.pattern.finditer(text)]
        if edits:
            edits = _without_layout(text, edits)
        wanted = sorted(set(offsets))
        mapping: dict[int, int] = {}
        out: list[str] = []
        pos = shift = i = 0
        for start, end, rep in edits:
            while i < len(wanted) and wanted[i] <= start:
                mapping[wanted[i]] = wanted[i] + shift
                i += 1
            while i < len(wanted) and wanted[i] < end:  # inside a match: after its replacement
                mapping[wanted[i]] = start + shift + len(rep)
                i += 1
            out += (text[pos:start], rep)
            pos = end
            shift += len(rep) - (end - start)
        for offset in wanted[i:]:
            mapping[offset] = offset + shift
        out.append(text[pos:])
        return "".join(out), mapping

    def sub_plain(self, value: Any) -> Any:
        """A plain JSON value (dicts, lists, strings) with every string in it redacted."""
        if isinstance(value, str):
            return self.sub(value)
        if isinstance(value, dict):
            return {self.sub(k) if isinstance(k, str) else k: self.sub_plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.sub_plain(v) for v in value]
        return value

    def found_in(self, text: str) -> list[str]:
        """The sensitive strings in *text* (tests and ``share --check`` use this)."""
        return [m.group(0) for m in self.pattern.finditer(text)]

    def describe(self) -> list[str]:
        """What gets replaced, in words for the summary (never the names themselves)."""
        what = [f"home directories → {HOME}"]
        if self.hosts:
            what.append(f"host name → {HOST}")
        else:
            what.append(f"the run's host name → {HOST} (too short to replace in text)")
        if self.users:
            what.append(f"user name → {USER}")
        if self.secrets:
            what.append(f"the run's secret argv and environment values → {SECRET}")
        what += [
            f"access tokens → {TOKEN}",
            "credentials (bearer, URL, secret-named flags and assignments) → <secret>",
            "emails, IP addresses, user names in cluster folders",
            f"content hashes → {HASH}",
        ]
        what += [f"{r.name} → {r.placeholder}" for r in self.rules[len(RULES) :]]
        if "user name" in self.skipped:
            what.append(
                f"a user name that is a shared account (such as root) or under {MIN_USER} characters"
                " is kept in text (not in paths)"
            )
        return what

    def tally(self) -> str:
        """What was removed, by rule, most first: ``home: 3, run secret: 1``."""
        parts = [f"{rule}: {n}" for rule, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        return ", ".join(parts) or "nothing"


_PADDING = re.compile(r" {3,}")
_CARETS = re.compile(r"[ \t]*[\^~]+[ \t]*(?:\r?\n|$)")


def _without_layout(text: str, edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """*edits* plus what hides the removed values' lengths (see :meth:`Redactor.sub_mapped`)."""
    extra: list[tuple[int, int, str]] = []
    done = -1  # the end of the last line handled
    for _, end, _ in edits:
        if end <= done:
            continue
        eol = text.find("\n", end)
        eol = len(text) if eol < 0 else eol
        extra += [(m.start(), m.end(), "  ") for m in _PADDING.finditer(text, end, eol)]
        if (carets := _CARETS.match(text, eol + 1)) is not None and eol < len(text):
            extra.append((carets.start(), carets.end(), ""))
        done = eol
    if not extra:
        return edits
    merged = sorted(edits + extra)
    kept = [merged[0]]
    for edit in merged[1:]:  # an added edit inside a replaced value (blanks in a secret) goes
        if edit[0] >= kept[-1][1]:
            kept.append(edit)
        elif edit in edits:  # a replaced value wins over layout
            kept[-1] = edit
    return kept


_CACHE: dict[tuple[tuple[Any, ...], ...], Alternation] = {}


def _compile(
    homes: tuple[str, ...],
    users: tuple[str, ...],
    hosts: tuple[str, ...],
    segments: tuple[str, ...],
    secrets: tuple[str, ...],
    rules: tuple[Rule, ...],
) -> Alternation:
    key = (homes, users, hosts, segments, secrets, rules)
    pattern = _CACHE.get(key)
    if pattern is None:
        # The run's secrets first: one in '...' or \\"...\\" (JSON-escaped) takes its quotes,
        # so a guard reads `== <redacted str>`; a bare JSON string's quotes stay.
        parts = [rf"(?P<s{i}>(?P<q{i}>'|\\\")?{_either(v)}(?(q{i})(?P=q{i})))" for i, v in enumerate(secrets)]
        parts += [rf"(?P<h{i}>{_either(h)}(?![\w.-]))" for i, h in enumerate(homes)]
        parts += [group_regex(r, i) for i, r in enumerate(rules)]
        # with the domain after it: gpu-node-17.acme.internal whole, not <host>.acme.internal
        parts += [
            rf"(?P<n{i}>(?i:{_BEFORE}{_either(h)}(?:\.[a-z][a-z0-9-]*)*{_AFTER}))"
            for i, h in enumerate(hosts)
        ]
        parts += [rf"(?P<u{i}>{_BEFORE}{_either(u)}{_AFTER})" for i, u in enumerate(users)]
        # A short or odd user name is still private as a whole path part (/mnt/bo/x).
        parts += [rf"(?P<us{i}>(?<=[/\\]){_either(u)}(?=[/\\\"'\s]|$))" for i, u in enumerate(segments)]
        pattern = _CACHE[key] = Alternation(parts)
    return pattern


def _either(value: str) -> str:
    """*value* as a pattern, also in the forms text holds it in: JSON-escaped (``\\u00e9``,
    doubled backslashes), inside a Python repr (a guard's ``'a\\\\b'``), and those JSON-escaped again."""
    as_json = json.dumps(value)[1:-1]
    as_repr = repr(value)[1:-1]
    forms = {value, as_json, as_repr, json.dumps(as_repr)[1:-1], json.dumps(as_json)[1:-1]}
    if len(forms) == 1:
        return re.escape(value)
    return "(?:" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + ")"


def scrub_run(run: Any, redactor: Redactor) -> Any:
    """A run record (plain dict) redacted: host name hidden whatever its length, secret
    option values in argv hidden, versions kept as they are (a torch commit is no secret)."""
    if not isinstance(run, dict):
        return run
    out: dict[str, Any] = {}
    for key, value in run.items():
        if key in ("torch_version", "triton_version", "cuda_version", "python_version"):
            out[key] = value
        elif key == "hostname" and value:
            redactor.note(KINDS["n"], str(value))
            out[key] = HOST
        elif key == "argv" and isinstance(value, list):
            out[key] = [
                redactor.sub(a) if isinstance(a, str) else a for a in hide_secret_options(value, redactor)
            ]
        else:
            out[key] = redactor.sub_plain(value)
    return out


def hide_secret_options(argv: list[Any], redactor: Redactor | None = None) -> list[Any]:
    """*argv* with the values of ``--token X``, ``--api-key=X``, ``HF_TOKEN=X`` and of the
    password flags of known tools (``mysql -p X``) hidden."""
    out = list(argv)
    for i, value in run_secrets.secret_positions([a if isinstance(a, str) else "" for a in out]):
        arg = out[i]
        out[i] = arg[: len(arg) - len(value)] + SECRET
        if redactor is not None:
            redactor.note("secret option", value)
    return out


def machine_hosts() -> set[str]:
    """This machine's names: ``socket.gethostname()``, and every name ``/etc/hosts`` gives an
    address that one has (its FQDN, aliases). No DNS lookup: it could hang without network."""
    host = socket.gethostname()
    names = {host} if host else set()
    try:
        with open("/etc/hosts", encoding="utf-8", errors="replace") as fh:
            lines = [line.split("#", 1)[0].split() for line in fh.read(1 << 20).splitlines()]
    except OSError:
        return names
    short = {n.split(".", 1)[0].lower() for n in names}
    addresses = {f[0] for f in lines if len(f) > 1 and {n.split(".", 1)[0].lower() for n in f[1:]} & short}
    for fields in lines:
        if len(fields) > 1 and fields[0] in addresses:
            names |= {n for n in fields[1:] if not _LOOPBACK_NAME.match(n)}
    return names


_LOOPBACK_NAME = re.compile(r"(?i)(?:localhost|ip6-\w+|broadcasthost)(?:\.|$)")
