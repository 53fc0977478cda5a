"""The second opinion: Yelp's ``detect-secrets``, run over text ``share`` is about to ship.

A checker built from the redactor's own rules cannot find what the redactor missed, so
``share`` and ``share --check`` also run every plugin detect-secrets has (provider patterns:
AWS, Azure, GitHub, GitLab, JWT, npm, OpenAI, private keys, PyPI, SendGrid, Slack, Stripe,
Twilio...; the keyword and basic-auth checks; Base64 and hex entropy at the library's own
thresholds) over each text, line by line, with the library's own false-positive filters.

Texts are :class:`Doc` objects: lines, each with the place it came from (a bundle member's
line, a report cell's JSON path). They are written, ASCII-escaped, into a private temporary
folder and scanned with detect-secrets' public ``SecretsCollection.scan_file``; a finding
is reported by place and plugin, never by value.

What torch itself writes is not a secret, and the entropy checks would flag some of it:
the hashes Inductor and Triton name their cache entries and kernels by are replaced by
``share`` (rule ``content hash``) before the check runs; :data:`TORCH_NOISE` lists the few
shapes left that are known to be torch's (a quoted FX/Triton name is never a credential).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

# Plugins whose findings on a quoted identifier made of words are dropped: a kernel, buffer or
# config name is long and varied but is no credential (provider plugins still see every value).
_ENTROPY = ("Base64 High Entropy String", "Hex High Entropy String")
TORCH_NOISE = re.compile(
    # an identifier of three or more words, each all lower or all upper case (a random key
    # mixes cases within its parts): ``triton_poi_fused_add_0``, ``force_disable_cudagraph_TESTING_ONLY``
    r"(?:[a-z0-9]+|[A-Z0-9]+)(?:_(?:[a-z0-9]+|[A-Z0-9]+)){2,}"
)
# A file system path (a run's cwd, a temp folder: ``/tmp/inspectc-tests-broj_wbz/captures``)
# reads as high entropy to the Base64 check by the random names in it; a path whose parts are
# each short and plain is a place, not a credential (a 25+ character part is still flagged).
_PLAIN_PATH = re.compile(r"(?:~|/)?(?:/[A-Za-z0-9._-]{1,24})+/?")
_ASCII_CAP = 1 << 16  # characters of one line given to the plugins (a minified blob is cut)


@dataclass(frozen=True, slots=True)
class Flag:
    """One finding: where it is and which detect-secrets plugin found it (never the value)."""

    where: str
    detector: str

    def line(self) -> str:
        return f"{self.detector} in {self.where}"


@dataclass(slots=True)
class Doc:
    """A text to scan: its lines, and for each line the place it came from."""

    name: str  # a file name; its suffix tells detect-secrets what kind of text it is
    lines: list[str] = field(default_factory=list)
    places: list[str] = field(default_factory=list)

    def add(self, place: str, text: str) -> None:
        for n, line in enumerate(text.splitlines() or [""], 1):
            self.lines.append(line)
            self.places.append(f"{place}, line {n}" if "\n" in text else place)


def version() -> str:
    try:
        return metadata.version("detect-secrets")
    except metadata.PackageNotFoundError:
        return "?"


@lru_cache(maxsize=1)
def plugin_classes() -> dict[str, Any]:
    """Every plugin detect-secrets ships, by class name."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    mapping: dict[str, Any] = get_mapping_from_secret_type_to_class()
    return {plugin.__name__: plugin for plugin in mapping.values()}


def describe() -> str:
    """``detect-secrets 1.5.0: 27 plugins (AWSKeyDetector, ...)`` for ``--check``'s verdict."""
    names = sorted(plugin_classes())
    return f"{len(names)} detectors (detect-secrets {version()}: {', '.join(names)})"


def _settings() -> dict[str, Any]:
    plugins: list[dict[str, Any]] = []
    for name in sorted(plugin_classes()):
        entry: dict[str, Any] = {"name": name}
        if name == "Base64HighEntropyString":
            entry["limit"] = 4.5  # the library's defaults, as `detect-secrets scan` uses them
        elif name == "HexHighEntropyString":
            entry["limit"] = 3.0
        plugins.append(entry)
    return {"plugins_used": plugins, "filters_used": []}  # the default filters stay on


def scan(docs: Iterable[Doc]) -> list[Flag]:
    """What detect-secrets finds in *docs*, each once per place and plugin, in order.

    A line that occurs many times (a guard in every frame, a graph before and after a pass)
    is scanned once, as one file per kind of text; each finding is reported at every place
    its line came from."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import transient_settings

    kinds: dict[str, dict[str, list[str]]] = {}  # suffix -> unique line -> its places
    for doc in docs:
        lines = kinds.setdefault(Path(doc.name).suffix or ".txt", {})
        for line, where in zip(doc.lines, doc.places):
            lines.setdefault(_ascii(line.strip()), []).append(where)
    found: list[Flag] = []
    with tempfile.TemporaryDirectory(prefix="inspectc-check-") as tmp, transient_settings(_settings()):
        for suffix, lines in kinds.items():
            unique = list(lines)
            name = f"text{suffix}"
            (Path(tmp) / name).write_text("\n".join(unique) + "\n", encoding="ascii")
            collection = SecretsCollection(root=tmp)
            collection.scan_file(name)
            for _, secret in collection:
                if secret.type in _ENTROPY and _noise(secret.secret_value or ""):
                    continue
                found += [Flag(where, secret.type) for where in lines[unique[secret.line_number - 1]]]
    order = {where: n for n, where in enumerate(w for doc in docs for w in doc.places)}
    return sorted(set(found), key=lambda f: (order.get(f.where, 0), f.detector))


def _noise(value: str) -> bool:
    """An entropy finding on what torch writes: a name of words, or a plain path. The value
    keeps the backslash of an escaped quote (``\\"name\\"`` inside a JSON string)."""
    value = value.strip("\\")
    return bool(TORCH_NOISE.fullmatch(value) or _PLAIN_PATH.fullmatch(value))


def _ascii(line: str) -> str:
    """*line* as ASCII (detect-secrets opens files in the locale's encoding): other
    characters as ``\\uXXXX`` escapes, which no secret pattern is made of."""
    line = line[:_ASCII_CAP]
    return line if line.isascii() else line.encode("ascii", "backslashreplace").decode("ascii")
