"""A training script that carries secrets the way real jobs do (tests/test_share_secrets.py).

Run as ``secrets_run.py --password hunter2 --db-pass dbpass-77zz`` with ``MY_API_TOKEN`` set:
the password reaches a guard (``L['pw'] == 'hunter2'``), the environment token reaches another,
a graph break's message names a cluster path, and the exception names a URL with
credentials, an email, an IP address and a bearer token. ``inspectc share`` must remove all.
"""

import argparse
import os

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--password", default="")
parser.add_argument("--db-pass", default="")
args = parser.parse_args()
api_token = os.environ.get("MY_API_TOKEN", "")


@torch.compile(backend="eager")
def step(x: torch.Tensor, pw: str, tok: str) -> torch.Tensor:
    if pw == "hunter2":  # a constant string compared: the guard holds the password
        x = x + 1
    x = x * 2
    torch._dynamo.graph_break(msg="checkpoint at /fsx/jdoe_q/ckpt/step1 not found")
    if tok.startswith("tk"):
        x = x - 1
    return x.sin()


print(step(torch.ones(3), args.password, api_token).sum().item())
# Token shapes are put together at run time: no real-looking token sits in this file.
tokens = " ".join(p + c * n for p, c, n in (("ghp_", "x", 36), ("hf_", "y", 30), ("AKIA", "Q", 16)))
tokens += " " + " ".join(p + c * n for p, c, n in (("sk-", "z", 30), ("xoxb-", "1", 20)))
raise RuntimeError(
    "upload to https://bob:pa55w0rd@10.20.30.40/bucket failed for alice.smith@example.com"
    " (Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdef, host 10.20.30.41, peer fd12:3456:789a::1)"
    f" with DB_PASSWORD=qwerty-9931 and {tokens}; see /checkpoint/mary_q/run1, /lustre/lu_q/a,"
    " /gpfs/gp_q/a, /nfs/nf_q/a, /mnt/mn_q/a, /Users/us_q/a, C:\\Users\\wi_q\\a, /home/ho_q/a,"
    " /data/users/du_q/a"
)
