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
from inspectc.model.secrets import SECRET_KEY_NAME, SECRET_NAME_END


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    regex: str
    placeholder: str
    description: str


# A user name inside a path: up to a character that ends a path part.
NAME = r"(?:[^/\\\s'\"`<>:;,|()\[\]{}&]|\\u[0-9a-fA-F]{4})+"  # \uXXXX: JSON-escaped
_CLUSTER = ("fsx", "checkpoint", "lustre", "gpfs", "nfs", "mnt", "media", "data/users", "scratch/users")
# A value: quoted ('...', "...", or \"...\" inside JSON text; not opening on a blank or
# comma: that is a list's next item) or up to a blank or quote.
# None/null/booleans and empty strings are no secrets (Inductor's `*_custom_pass: None`).
_NOT_A_VALUE = r"(?!(?:None|null|True|False|true|false)(?![\w-]))"
_QUOTED = r"(?:\\\"(?![<,\s])[^\"\n]+?\\\"|\"(?![<,\s])[^\"\n\\]+\"|'(?![<,\s])[^'\n]+')"
_BARE = r"(?![<\"'\\])[^\s'\",;&\\]+"
_VALUE = rf"{_NOT_A_VALUE}(?:{_QUOTED}|{_BARE})"
# After `name = ` or `name: ` (code, logs, exception text) a bare value is a secret only when
# it is not code: no call or subscript (`first_token_tensor = hidden_states[...]`), no
# attribute chain (`token = args.token`), no FX/Dynamo name (`l_token_`, `getitem_3`).
_CODE = r"(?![A-Za-z_][\w.]*\s*[(\[])(?![A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w.-]))"
_FX_NAME = r"(?![lL]_\w*_(?![\w.-])|[a-z_]+_\d+(?![\w.-]))"
_ARG = rf"{_NOT_A_VALUE}(?:{_QUOTED}|{_CODE}{_BARE})"  # NAME=VALUE: an argv, env or config value
_CODE_VALUE = rf"{_NOT_A_VALUE}(?:{_QUOTED}|{_CODE}{_FX_NAME}(?![<\"'\\])[^\s'\",;&\\()\[\]{{}}]+)"
_HEX = r"[0-9A-Fa-f]{1,4}"
_SPACED = rf"(?:{NAME}(?: {NAME}){{1,3}}(?=\\|/)|{NAME})"  # "Jane Doe/" whole; else one word
_EDGE = r"(?<![A-Za-z0-9])"  # a token shape starts a word (``_`` may precede: a buffer name)
_END = r"(?![A-Za-z0-9])"
# Tools whose short flag takes a password: `mysql -p X` / `-pX`, `sshpass -p X`, `redis-cli -a X`
_TOOL_FLAGS = (
    r"(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|mysqlshow|mongo|mongosh|mongodump"
    r"|mongorestore|mongoexport|mongoimport|sshpass|docker\s+login|podman\s+login|helm\s+registry\s+login)"
    r"\b[^\n]{0,200}?[\s'\",]-p|(?:redis-cli|keydb-cli)\b[^\n]{0,200}?[\s'\",]-a"
    r"|(?:sqlcmd|bcp|zip|unzip|7z|mosquitto_pub|mosquitto_sub)\b[^\n]{0,200}?[\s'\",]-P"
    r"|(?:ldapsearch|ldapmodify|ldapadd|ldapdelete)\b[^\n]{0,200}?[\s'\",]-w"
    r"|(?:openssl)\b[^\n]{0,200}?[\s'\",]-pass(?:in|out)?\s+(?:pass|env|file):"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "private key",
        # a PEM block (RSA, EC, DSA, OpenSSH, PGP, encrypted), raw or with its line breaks
        # escaped (JSON, a repr); a block cut short loses everything after its header
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?!-----END)[\s\S]){0,20000}?"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?=['\"`<]|\\\"|$)|(?=\s*\Z))",
        "<private key>",
        "PEM private key blocks (RSA, EC, OpenSSH, PGP)",
    ),
    Rule(
        "jwt",
        rf"{_EDGE}eyJ[A-Za-z0-9_-]{{8,}}\.eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}{_END}",
        "<token>",
        "JSON Web Tokens, with or without Bearer",
    ),
    Rule(
        "webhook",
        r"(?i:https?://)(?:hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{8,}"
        r"|(?:[\w-]+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}"
        r"|[\w-]+\.webhook\.office\.com/[\w@/.-]{20,}|chat\.googleapis\.com/v1/spaces/[^\s'\"<>]{10,})",
        "<webhook>",
        "Slack, Discord, Teams and Google Chat webhook URLs",
    ),
    Rule("hf token", rf"{_EDGE}hf_[A-Za-z0-9]{{20,}}", "<token>", "Hugging Face tokens"),
    Rule(
        "github token",
        rf"{_EDGE}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{20,}})",
        "<token>",
        "GitHub tokens",
    ),
    Rule(
        "aws key", rf"{_EDGE}(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{{16}}{_END}", "<token>", "AWS access keys"
    ),
    Rule(
        "openai key",
        rf"{_EDGE}sk-(?:[A-Za-z0-9_-]{{2,}}-)?[A-Za-z0-9_-]{{20,}}",
        "<token>",
        "OpenAI/Anthropic keys",
    ),
    Rule("slack token", rf"{_EDGE}xox[abposr]-[A-Za-z0-9-]{{10,}}", "<token>", "Slack tokens"),
    Rule(
        "stripe key",
        r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}",
        "<token>",
        "Stripe secret and restricted keys",
    ),
    Rule(
        "google token",
        rf"{_EDGE}(?:ya29\.[0-9A-Za-z_-]{{20,}}|AIza[0-9A-Za-z_-]{{35}}|GOCSPX-[0-9A-Za-z_-]{{20,}}|1//0[0-9A-Za-z_-]{{30,}})",
        "<token>",
        "Google OAuth access and refresh tokens, API keys, GCP client secrets",
    ),
    Rule(
        "azure signature",
        r"(?P<keep>(?i:[?&;]sig=|SharedAccessSignature=[^\s;\"']{0,200}?sig=))[A-Za-z0-9%+/=_-]{16,}",
        "<secret>",
        "Azure SAS signatures (sig=)",
    ),
    Rule(
        "other token",
        rf"{_EDGE}(?:glpat-[A-Za-z0-9_-]{{20,}}|npm_[A-Za-z0-9]{{36}}|pypi-[A-Za-z0-9_-]{{50,}}"
        r"|SK[0-9a-fA-F]{32}|SG\.[\w-]{16,}\.[\w-]{16,}|dapi[0-9a-f]{32}|shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}"
        r"|sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}|[0-9a-f]{32}-us\d{1,2}|xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]+"
        r"|\d{8,10}:AA[0-9A-Za-z_-]{33}|AKC[a-zA-Z0-9]{10,}|[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})"
        + _END,
        "<token>",
        "GitLab, npm, PyPI, Twilio, SendGrid, Databricks, Shopify, Square, Mailchimp, Telegram, Artifactory, Azure AD",
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
        "file url host",
        r"(?P<keep>(?<![A-Za-z0-9+.-])(?i:file)://)(?!/|localhost/|<)[^/\s'\"<>\\]{1,255}(?=/)",
        "<host>",
        "the host of file://HOST/ URLs",
    ),
    Rule(
        "unc host",
        # the path starts the text or follows a blank, a quote or an opening bracket (a repr in
        # JSON doubles every separator too: `\\\\<host>\\\\share` is no UNC start at `share`)
        r"(?P<keep>(?<![^\s'\"(\[,=:])(?:\\\\){1,4})(?!<)[A-Za-z0-9][\w.$-]{0,254}(?=\\)",
        "<host>",
        "the host of UNC paths (\\\\HOST\\share)",
    ),
    Rule(
        "unc user",
        rf"(?P<keep>(?<=[\w$])\\{{1,4}}(?i:users?|homes?|profiles?)\$?\\{{1,4}})(?!<){NAME}",
        "<user>",
        "the user folder of UNC and Windows paths (\\users\\NAME)",
    ),
    Rule(
        "tool password",
        rf"(?P<keep>(?:{_TOOL_FLAGS})(?:\s+|'\s*,\s*'|\"\s*,\s*\"|\\\"\s*,\s*\\\")?)(?![\s<-]){_VALUE}",
        "<secret>",
        "values of the password flags of known tools (mysql -p, sshpass -p, redis-cli -a)",
    ),
    Rule(
        "secret flag",
        rf"(?P<keep>(?<![\w-])--?{SECRET_KEY_NAME}(?:=|\s+))(?!-){_VALUE}",
        "<secret>",
        "values of flags named like a password, token or key",
    ),
    Rule(
        "secret assignment",
        # NAME=VALUE (argv, environment, config, connection strings): any value but code;
        # `name = value`, `name: value`, `password was X` (code, logs, exception text): a value
        # that is not code either, nor an FX/Dynamo name (a source file's ":" is its line:
        # auth.py:10 has no name right before the ":")
        rf"(?P<keep>{SECRET_NAME_END}(?:=(?!=)|(?:\s+=(?!=)|:|\s+(?:was|is)(?:\s+set\s+to)?)\s*)"
        r"(?:(?i:bearer|basic)\s+)?)(?!(?i:bearer|basic)\s)"
        rf"(?:(?<==){_ARG}|(?<!=){_CODE_VALUE})",
        "<secret>",
        "values given to names like a password, token or key (NAME=VALUE, `name = 'x'`, `password was x`)",
    ),
    Rule(
        "secret key",
        # a quoted key named like a secret, then its value: a guard's G['DB_SECRET'] == '...',
        # G['CONFIG']['db_password'] == '...', JSON's "password": "..."
        rf"(?P<keep>(?:'|\\\"|\")(?<=['\"]){SECRET_KEY_NAME}(?:'|\\\"|\")\]?\s*(?:==|=(?!=)|:)\s*)(?!(?i:bearer|basic)\s){_VALUE}",
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
        "internal host",
        r"(?<![\w.@/-])(?=[a-z0-9-]*[0-9-])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)*"
        r"\.(?:internal|local|lan|corp|intranet|intra|localdomain|home\.arpa|cluster)(?![\w-]|\.\w)"
        r"|(?<![\w.@/-])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+\.(?:internal|corp|intranet|localdomain)(?![\w-]|\.\w)",
        "<host>",
        "host names under private domains (.internal, .corp, .lan, .local, .localdomain)",
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
        "user names in cluster and removable-media folders (fsx, checkpoint, lustre, gpfs, nfs, mnt, media, data/users, scratch)",
    ),
    Rule("cache user", rf"(?<=torchinductor_){NAME}", "<user>", "user names in Inductor cache folders"),
    Rule(
        "content hash",
        r"(?<![A-Za-z0-9])(?:(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])(?:[0-9a-f]{32,}|[0-9a-z]{50,})"
        # upper case: Triton's backend_hash (sha256 hex), its cache folders (base32)
        r"|(?=[0-9A-Z]*[0-9])(?=[0-9A-Z]*[A-Z])(?:[0-9A-F]{32,}|[2-7A-Z]{52}))(?![A-Za-z0-9])",
        "<hash>",
        "content hashes (md5/sha hex, Inductor and Triton cache names)",
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
