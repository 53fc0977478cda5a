"""Privacy for sharing: what in report text is private, and one pattern that replaces it all.

A :class:`Redactor` is one compiled pattern built from what this machine says (home,
``getpass.getuser()``, ``socket.gethostname()``) *and* everything the report recorded, on
every rank (each run's host name, working directory, argv and sources, the home parts of
every path, ``torchinductor_NAME`` cache folders), so a report captured elsewhere is
cleaned too. It replaces home directories (``/home``, ``/Users``, ``C:\\Users``, and the
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

from inspectc.trace.records import SOURCE_FREE_EVENTS

HOME = "~"
USER = "<user>"
HOST = "<host>"
TOKEN = "<token>"
HASH = "<hash>"
SECRET = "<secret>"

# A user name inside a path: up to a character that ends a path part.
_NAME = r"(?:[^/\\\s'\"`<>:;,|()\[\]{}]|\\u[0-9a-fA-F]{4})+"  # \uXXXX: JSON-escaped
_GENERIC_HOMES = (
    rf"/(?:home|Users)/{_NAME}",
    rf"[A-Za-z]:(?:\\\\|\\)Users(?:\\\\|\\){_NAME}",  # Windows, also JSON-escaped
)
# Shared clusters: the folder is not a home (kept), the name in it is a user's.
_USER_FOLDERS = (
    rf"(?<=/data/users/){_NAME}",
    rf"(?<=/scratch/users/){_NAME}",
    rf"(?<=/scratch/)(?!users/){_NAME}",
)
_HOME_USER = re.compile(
    rf"(?:/(?:home|Users)/|/data/users/|/scratch/users/|/scratch/(?!users/)|[A-Za-z]:(?:\\\\|\\)Users(?:\\\\|\\))({_NAME})"
)
_CACHE_USER_NAME = re.compile(rf"torchinductor_({_NAME})")
# Names are replaced as whole words, where "_" also separates words: torch's default cache
# folder is /tmp/torchinductor_<user>.
_BEFORE = r"(?<![^\W_])"
_AFTER = r"(?![^\W_])"
_CACHE_USER = rf"(?<=torchinductor_){_NAME}"  # any user's, even one the report never names
# Access tokens by their published shapes (Hugging Face, GitHub, AWS, OpenAI/Anthropic, Slack,
# GitLab, Google API keys, npm, PyPI).
TOKEN_SHAPES = (
    r"hf_[A-Za-z0-9]{20,}",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"sk-(?:[A-Za-z0-9_-]{2,}-)?[A-Za-z0-9_-]{20,}",
    r"xox[abposr]-[A-Za-z0-9-]{10,}",
    r"glpat-[A-Za-z0-9_-]{20,}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"npm_[A-Za-z0-9]{36}",
    r"pypi-[A-Za-z0-9_-]{50,}",
)
_TOKEN = rf"(?<![A-Za-z0-9])(?:{'|'.join(TOKEN_SHAPES)})(?![A-Za-z0-9])"
# Content hashes: md5/sha hex (32+), Inductor's base32 cache names (cabc...: 50+ lowercase).
_HASH = r"(?<![A-Za-z0-9])(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])(?:[0-9a-f]{32,}|[0-9a-z]{50,})(?![A-Za-z0-9])"
# Options whose value is a secret, in argv: --token X, --hf-token=X, API_KEY=X.
SECRET_OPTION = re.compile(
    r"^(?!.*tokens$)-{0,2}[\w.-]*(?:token|secret|passw(?:or)?d|api[_-]?key|credential)[\w.-]*$", re.I
)
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
KINDS = {"t": "token", "h": "home directory", "u": "user name", "n": "host name", "x": "content hash"}
_REPLACEMENT = {"t": TOKEN, "h": HOME, "u": USER, "n": HOST, "x": HASH}


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
    counts: Counter[str] = field(default_factory=Counter, compare=False)

    @classmethod
    def for_report(
        cls,
        *,
        hostnames: Iterable[str | None] = (),
        paths: Iterable[str | None] = (),
        users: Iterable[str | None] = (),
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
            if host := socket.gethostname():
                hosts.add(host)
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
        )

    # -- matching ----------------------------------------------------------------------
    @property
    def pattern(self) -> re.Pattern[str]:
        return _compile(self.homes, self.users, self.hosts, self.segments)

    def _replacement(self, match: re.Match[str]) -> str:
        kind = (match.lastgroup or "x")[0]
        self.counts[KINDS[kind]] += 1
        return _REPLACEMENT[kind]

    def sub(self, text: str) -> str:
        return self.pattern.sub(self._replacement, text)

    def sub_mapped(self, text: str, offsets: Iterable[int]) -> tuple[str, dict[int, int]]:
        """Redact *text* and say where each old offset lands in the new text."""
        wanted = sorted(set(offsets))
        mapping: dict[int, int] = {}
        out: list[str] = []
        pos = shift = i = 0
        for match in self.pattern.finditer(text):
            start, end = match.span()
            rep = self._replacement(match)
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
        what += [f"access tokens → {TOKEN}", f"content hashes → {HASH}"]
        if "user name" in self.skipped:
            what.append(
                f"a user name that is a shared account (such as root) or under {MIN_USER} characters"
                " is kept in text (not in paths)"
            )
        return what

    def tally(self) -> str:
        """What was replaced, counted by kind: ``3 home directories, 1 token``."""
        parts = [f"{n} {_plural(kind, n)}" for kind, n in sorted(self.counts.items(), key=lambda kv: -kv[1])]
        return ", ".join(parts) or "nothing"


def _plural(kind: str, n: int) -> str:
    if n == 1:
        return kind
    if kind.endswith("y"):
        return kind[:-1] + "ies"
    return kind + ("es" if kind.endswith(("s", "sh", "ch", "x")) else "s")


_CACHE: dict[tuple[tuple[str, ...], ...], re.Pattern[str]] = {}


def _compile(
    homes: tuple[str, ...], users: tuple[str, ...], hosts: tuple[str, ...], segments: tuple[str, ...]
) -> re.Pattern[str]:
    key = (homes, users, hosts, segments)
    pattern = _CACHE.get(key)
    if pattern is None:
        parts = [rf"(?P<t>{_TOKEN})"]
        parts += [rf"(?P<h{i}>{_either(h)}(?![\w.-]))" for i, h in enumerate(homes)]
        parts += [rf"(?P<hg{i}>{p})" for i, p in enumerate(_GENERIC_HOMES)]
        parts += [rf"(?P<uf{i}>{p})" for i, p in enumerate(_USER_FOLDERS)]
        parts.append(rf"(?P<ug>{_CACHE_USER})")
        parts += [rf"(?P<n{i}>(?i:{_BEFORE}{_either(h)}{_AFTER}))" for i, h in enumerate(hosts)]
        parts += [rf"(?P<u{i}>{_BEFORE}{_either(u)}{_AFTER})" for i, u in enumerate(users)]
        # A short or odd user name is still private as a whole path part (/mnt/bo/x).
        parts += [rf"(?P<us{i}>(?<=[/\\]){_either(u)}(?=[/\\\"'\s]|$))" for i, u in enumerate(segments)]
        parts.append(rf"(?P<x>{_HASH})")
        pattern = _CACHE[key] = re.compile("|".join(parts))
    return pattern


def _either(value: str) -> str:
    """*value* as a pattern, also in its JSON-escaped form (``\\u00e9``, doubled backslashes)."""
    escaped = json.dumps(value)[1:-1]
    if escaped == value:
        return re.escape(value)
    return f"(?:{re.escape(escaped)}|{re.escape(value)})"


def rank_runs(report: Any) -> list[dict[str, Any]]:
    """The run records of a merged report's inputs (its ``ranks`` meta), as plain dicts."""
    try:
        ranks = json.loads(report.meta.get("ranks") or "[]")
    except (ValueError, RecursionError):
        return []
    return [r for r in ranks if isinstance(r, dict)] if isinstance(ranks, list) else []


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def redactor_for(report: Any, *, this_machine: bool = True) -> Redactor:
    """A :class:`Redactor` for an open :class:`~inspectc.report.reader.Report`: every rank's
    host, directory, argv and sources, every path of every frame."""
    run = report.run
    hostnames: list[str | None] = [run.hostname]
    paths: list[str | None] = [run.cwd, *run.argv, *run.options.sources, str(report.path)]
    for entry in rank_runs(report):
        found = entry.get("run")
        other: dict[str, Any] = found if isinstance(found, dict) else {}
        hostnames.append(other.get("hostname") if isinstance(other.get("hostname"), str) else None)
        paths += list(_strings(other)) + list(_strings(entry.get("path")))
    for frame in report.frames:
        paths.append(frame.filename)
        paths += [s.filename for s in frame.user_stack]
        for gb in frame.graph_breaks:
            paths.append(gb.filename)
            paths += [s.filename for s in gb.user_stack]
    for event in report.events(limit=100_000):  # file names torch logged (cache folders)
        paths += [s for s in _strings(event.metadata) if "/" in s or "\\" in s]
    return Redactor.for_report(hostnames=hostnames, paths=paths, this_machine=this_machine)


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
            redactor.counts[KINDS["n"]] += 1
            out[key] = HOST
        elif key == "argv" and isinstance(value, list):
            out[key] = [
                redactor.sub(a) if isinstance(a, str) else a for a in hide_secret_options(value, redactor)
            ]
        else:
            out[key] = json.loads(redactor.sub(json.dumps(value)))
    return out


def hide_secret_options(argv: list[Any], redactor: Redactor | None = None) -> list[Any]:
    """*argv* with the values of ``--token X``, ``--api-key=X``, ``HF_TOKEN=X`` hidden."""
    out = list(argv)
    for i, arg in enumerate(out):
        if not isinstance(arg, str):
            continue
        name, eq, value = arg.partition("=")
        if eq and value and SECRET_OPTION.match(name):
            out[i] = f"{name}={SECRET}"
        elif SECRET_OPTION.match(arg) and arg.startswith("-") and i + 1 < len(out):
            if isinstance(out[i + 1], str) and not out[i + 1].startswith("-"):
                out[i + 1] = SECRET
            else:
                continue
        else:
            continue
        if redactor is not None:
            redactor.counts["secret option"] += 1
    return out
