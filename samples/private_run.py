"""A model whose report holds what a user would not paste (tests/test_share_leaks.py).

Run with ``MY_DB_PASSPHRASE`` (blanks), ``MY_QUOTED_SECRET`` (a quote) and ``MY_AUTH_BLOB``
(backslashes) set (and ``MY_TORCH_PASSWORD``: torch copies it into its repro script, a quote
made ``"``): each reaches a guard as a Python repr writes it (``'a\\\\b'``) and a guard
shorter than 60 columns is padded, so its length shows unless share hides it. A second
shape recompiles the frame: the recompile reason quotes the user's line. The source line of
``scale`` carries a marker that ``share --no-source`` must leave out everywhere.
"""

import os

import torch

SECRETS = tuple(os.environ.get(k, "") for k in ("MY_DB_PASSPHRASE", "MY_QUOTED_SECRET", "MY_AUTH_BLOB"))
DB_SECRET = "Tr0ub4dor-horse-99"  # a secret-named global the model reads: a guard quotes it


class PayrollNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.payroll_head = torch.nn.Linear(8, 4)
        self.lookup = {"qz-internal-marker": 3.0}

    def forward(self, x: torch.Tensor, phrase: str, quoted: str, blob: str) -> torch.Tensor:
        if " " in phrase and "'" in quoted and "\\" in blob:
            x = x + 1
        if DB_SECRET.endswith("99"):  # G['DB_SECRET'] == '...' in the guards
            x = x * 2
        h = torch.relu(x) * self.lookup["qz-internal-marker"]  # marker_qz_source_line
        return self.payroll_head(h).sum(dim=-1)


model = torch.compile(PayrollNet())
for rows in (4, 6):  # the second shape recompiles: its reason names the user's line
    print(model(torch.ones(rows, 8), *SECRETS).sum().item())
