"""A corpus of planted secrets, and a script that carries them into every field of a report.

Each :class:`Plant` is one shape a user's run may hold (provider tokens, key blocks, webhook
URLs, secret-named flags and assignments, tool passwords, private paths and host names). The
values are put together at run time from pieces, so no real-looking credential sits in the
repository (a secret scanner would flag this file). :func:`script` writes a program that
holds every value in its source, passes them through a compiled function (guards), a graph
break message, a buffer name and the exception it ends with; :func:`argv` and :func:`env`
carry more through the command line and the environment. tests/test_share_planted.py and
benchmarks/bench_share_recall.py use it.
"""

from __future__ import annotations

import base64
import json
import random
import socket
import string
from dataclasses import dataclass


@dataclass(frozen=True)
class Plant:
    shape: str  # what it is (a rule name or a provider)
    text: str  # what is planted (the secret in its context)
    secret: str  # the part that must not ship


def _r(n: int, alphabet: str = string.ascii_letters + string.digits, seed: int = 0) -> str:
    rng = random.Random(f"{n}{alphabet}{seed}")
    return "".join(rng.choice(alphabet) for _ in range(n))


_HEX = "0123456789abcdef"
_B64 = string.ascii_letters + string.digits + "+/"


def _pem(kind: str) -> str:
    body = "\n".join(_r(64, _B64, seed=i + len(kind)) for i in range(3))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def plants() -> list[Plant]:
    """At least 40 shapes, each with a value unique to it."""
    claims = json.dumps({"sub": _r(12, seed=2), "iat": 1700000000})
    jwt = ".".join(_b64url(part) for part in ('{"alg":"HS256","typ":"JWT"}', claims)) + "." + _r(43, seed=3)
    openssh = _pem("OPENSSH ")
    p = [
        Plant("github token", "ghp_" + _r(36, seed=4), "ghp_" + _r(36, seed=4)),
        Plant(
            "github pat",
            "github_pat_" + _r(22, seed=5) + "_" + _r(59, seed=6),
            "github_pat_" + _r(22, seed=5),
        ),
        Plant(
            "aws key",
            "AKIA" + _r(16, string.ascii_uppercase + "234567", 7),
            "AKIA" + _r(16, string.ascii_uppercase + "234567", 7),
        ),
        Plant("aws secret", "aws_secret_access_key=" + _r(40, _B64, 8), _r(40, _B64, 8)),
        Plant("azure account key", "AccountName=acme;AccountKey=" + _r(86, _B64, 9) + "==", _r(86, _B64, 9)),
        Plant(
            "azure sas",
            "https://acme.blob.core.windows.net/c/b?sv=2022-11-02&sig="
            + _r(43, _B64, 10).replace("/", "%2F")
            + "%3D&se=1",
            _r(43, _B64, 10)[:20],
        ),
        Plant("gcp client secret", "GOCSPX-" + _r(28, seed=11), "GOCSPX-" + _r(28, seed=11)),
        Plant("google oauth", "ya29.a0" + _r(60, seed=12), "ya29.a0" + _r(60, seed=12)),
        Plant("google api key", "AIza" + _r(35, seed=13), "AIza" + _r(35, seed=13)),
        Plant("stripe secret", "sk_live_" + _r(24, seed=14), "sk_live_" + _r(24, seed=14)),
        Plant("stripe restricted", "rk_live_" + _r(24, seed=15), "rk_live_" + _r(24, seed=15)),
        Plant(
            "slack bot token",
            "xoxb-" + _r(11, string.digits, 16) + "-" + _r(13, string.digits, 17) + "-" + _r(24, seed=18),
            "xoxb-" + _r(11, string.digits, 16),
        ),
        Plant(
            "slack webhook",
            "https://hooks.slack.com/services/T"
            + _r(8, seed=19)
            + "/B"
            + _r(8, seed=20)
            + "/"
            + _r(24, seed=21),
            _r(24, seed=21),
        ),
        Plant(
            "discord webhook",
            "https://discord.com/api/webhooks/" + _r(18, string.digits, 22) + "/" + _r(68, seed=23),
            _r(68, seed=23),
        ),
        Plant("jwt", jwt, jwt),
        Plant("openssh private key", openssh, openssh.split("\n")[1]),
        Plant("rsa private key", _pem("RSA "), _pem("RSA ").split("\n")[2]),
        Plant("ec private key", _pem("EC "), _pem("EC ").split("\n")[3]),
        Plant("hf token", "hf_" + _r(34, seed=24), "hf_" + _r(34, seed=24)),
        Plant("openai key", "sk-proj-" + _r(48, seed=25), "sk-proj-" + _r(48, seed=25)),
        Plant("anthropic key", "sk-ant-api03-" + _r(80, seed=26), "sk-ant-api03-" + _r(80, seed=26)),
        Plant("gitlab token", "glpat-" + _r(20, seed=27), "glpat-" + _r(20, seed=27)),
        Plant("npm token", "npm_" + _r(36, seed=28), "npm_" + _r(36, seed=28)),
        Plant(
            "pypi token", "pypi-AgEIcHlwaS5vcmc" + _r(60, seed=29), "pypi-AgEIcHlwaS5vcmc" + _r(60, seed=29)
        ),
        Plant("twilio api key", "SK" + _r(32, _HEX, 30), "SK" + _r(32, _HEX, 30)),
        Plant("sendgrid key", "SG." + _r(22, seed=31) + "." + _r(43, seed=32), "SG." + _r(22, seed=31)),
        Plant("databricks token", "dapi" + _r(32, _HEX, 33), "dapi" + _r(32, _HEX, 33)),
        Plant("shopify token", "shpat_" + _r(32, _HEX, 34), "shpat_" + _r(32, _HEX, 34)),
        Plant("mailchimp key", _r(32, _HEX, 35) + "-us6", _r(32, _HEX, 35) + "-us6"),
        Plant(
            "telegram bot token", _r(9, string.digits, 36) + ":AA" + _r(33, seed=37), ":AA" + _r(33, seed=37)
        ),
        Plant("square secret", "sq0csp-" + _r(43, seed=38), "sq0csp-" + _r(43, seed=38)),
        Plant(
            "basic auth url",
            "https://deploy:" + _r(14, seed=39) + "@registry.example.com/v2",
            _r(14, seed=39),
        ),
        Plant("bearer header", "Authorization: Bearer " + _r(40, seed=40), _r(40, seed=40)),
        Plant("camelCase flag", "--dbPassword " + _r(12, seed=41), _r(12, seed=41)),
        Plant("kebab plural flag", "--client-secrets=" + _r(12, seed=42), _r(12, seed=42)),
        Plant("plural keys flag", "--api-keys " + _r(12, seed=43), _r(12, seed=43)),
        Plant("snake plural env", "APP_SECRETS=" + _r(12, seed=44), _r(12, seed=44)),
        Plant("camelCase assignment", "clientSecret = '" + _r(12, seed=45) + "'", _r(12, seed=45)),
        Plant("mysql -p", "mysql -u root -p " + _r(12, seed=46) + " prod", _r(12, seed=46)),
        Plant("mysql -pGLUED", "mysqldump -uroot -p" + _r(12, seed=47) + " prod", _r(12, seed=47)),
        Plant("sshpass -p", "sshpass -p " + _r(12, seed=48) + " ssh deploy@build", _r(12, seed=48)),
        Plant("redis-cli -a", "redis-cli -h cache -a " + _r(12, seed=49) + " ping", _r(12, seed=49)),
        Plant("password was", "login failed: password was " + _r(12, seed=50), _r(12, seed=50)),
        Plant(
            "unc host",
            "\\\\fs-" + _r(6, string.ascii_lowercase, 51) + "\\share\\data",
            "fs-" + _r(6, string.ascii_lowercase, 51),
        ),
        Plant(
            "unc user",
            "\\\\files\\users\\u" + _r(7, string.ascii_lowercase, 52) + "\\ckpt",
            "u" + _r(7, string.ascii_lowercase, 52),
        ),
        Plant(
            "file url host",
            "file://nas" + _r(5, string.ascii_lowercase, 53) + "/exports/x",
            "nas" + _r(5, string.ascii_lowercase, 53),
        ),
        Plant(
            "media user",
            "/media/m" + _r(7, string.ascii_lowercase, 54) + "/usb/data",
            "m" + _r(7, string.ascii_lowercase, 54),
        ),
        Plant(
            "internal host",
            "db-" + _r(5, string.ascii_lowercase, 55) + ".corp.internal",
            "db-" + _r(5, string.ascii_lowercase, 55),
        ),
        Plant(
            "email",
            "e" + _r(6, string.ascii_lowercase, 56) + "@example.com",
            "e" + _r(6, string.ascii_lowercase, 56) + "@",
        ),
        Plant(
            "private ip",
            "10.23." + str(random.Random(57).randint(2, 250)) + ".77",
            "10.23." + str(random.Random(57).randint(2, 250)) + ".77",
        ),
    ]
    return p


def machine_host() -> Plant:
    host = socket.gethostname()
    return Plant("machine host name", f"connected from {host}", host)


# the camelCase and plural environment names capture must hash (their values reach guards)
ENV_NAMES = ("dbPassword", "clientSecret", "APP_SECRETS", "x-api-key")


def env() -> dict[str, str]:
    return {name: f"envval-{_r(12, seed=60 + i)}" for i, name in enumerate(ENV_NAMES)}


def argv() -> list[str]:
    """Secret-named flags (camelCase, kebab, plural) and a tool's command line."""
    return [
        "--dbPassword",
        "argv-" + _r(10, seed=70),
        "--client-secrets=" + "argv-" + _r(10, seed=71),
        "--api-keys",
        "argv-" + _r(10, seed=72),
        "--note",
        "mysql -u root -p argv-" + _r(10, seed=73),
    ]


def argv_secrets() -> list[str]:
    return ["argv-" + _r(10, seed=70 + i) for i in range(4)]


def script(texts: list[str], buffer_name: str) -> str:
    """A program that holds *texts* in its source and carries them into a guard, a graph break
    message, a buffer name and the exception it ends with."""
    return f'''"""Planted secrets in every field (written by tests/planted.py)."""
import os
import torch

PLANTED = {texts!r}
ENV = [os.environ.get(k, "") for k in {list(ENV_NAMES)!r}]


class Holder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer({buffer_name!r}, torch.ones(4))

    def forward(self, x, values, envs):
        for v in values + envs:
            if v.startswith(v[:2]):  # a guard on each string: L['values'][i] == '...'
                x = x + 1
        torch._dynamo.graph_break(msg=" | ".join(values))
        return x * getattr(self, {buffer_name!r})


model = torch.compile(Holder())
print(model(torch.ones(4), PLANTED, ENV).sum().item())
raise RuntimeError("upload failed: " + " | ".join(PLANTED))
'''
