"""The redactor's pattern searched alternative by alternative (:mod:`inspectc.share.alternation`)
finds exactly what the one combined regular expression finds: the same spans, by the same
rule, on a real report's texts and on generated texts dense with overlapping candidates."""

from __future__ import annotations

import pytest
from conftest import REPORTS

from inspectc.share import alternation
from inspectc.share.check import report_texts
from inspectc.share.redact import Redactor

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

REDACTOR = Redactor.for_report(
    hostnames=["gpu-node-17", "vm"],
    paths=["/home/alice/proj/train.py", "/mnt/bo/data"],
    users=["alice", "bo"],
    secrets=["hunter2hunter2", "sk-live-0123456789abcdef"],
    this_machine=False,
)
# Pieces that start, end and overlap matches of many rules at once.
PIECES = [
    "/home/alice/x",
    "/mnt/bo/y",
    " token=abc123def456ghi789",
    "password: 'hunter2hunter2'",
    '\\"hunter2hunter2\\"',
    "10.1.2.3",
    "fe80::1ff:fe23:4567:890a",
    "gpu-node-17.acme.internal",
    "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
    "mysql -u root -p s3cr3tpass",
    "torchinductor_alice",
    "fx_graph_cache_3f9a0c2b1d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6",
    "https://user:pw@host.example.com/x?sig=0123456789abcdef0123",
    "vm",
    " ",
    "\n",
    "/",
    "'",
    '"',
    "=",
    "x" * 40,
]


def spans(matches: object) -> list[tuple[int, int, str | None]]:
    return [(m.start(), m.end(), m.lastgroup) for m in matches]  # type: ignore[attr-defined]


def test_a_real_reports_texts_give_the_same_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern = Redactor.for_report(this_machine=False).pattern
    texts = [text for _, text in report_texts(REPORTS / "mlp_train.inspectc")]
    texts.append("\n".join(texts))  # one long text: the alternatives one by one
    texts.append("\n".join(t + " " + PIECES[n % len(PIECES)] for n, t in enumerate(texts[:-1])))
    monkeypatch.setattr(alternation, "SPLIT_AT", 0)
    found = 0
    for text in texts:
        whole = spans(pattern.whole.finditer(text))
        assert spans(pattern.finditer(text)) == whole
        found += len(whole)
    assert found > 1000  # the texts hold matches: the comparison can fail


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=60))
def test_generated_texts_give_the_same_matches(pieces: list[str]) -> None:
    text = "".join(pieces)
    pattern = REDACTOR.pattern
    saved = alternation.SPLIT_AT
    alternation.SPLIT_AT = 0  # (no monkeypatch fixture under @given)
    try:
        assert spans(pattern.finditer(text)) == spans(pattern.whole.finditer(text))
    finally:
        alternation.SPLIT_AT = saved


def test_redacting_a_long_text_matches_the_combined_pattern() -> None:
    text = (" ".join(PIECES) + " ") * 200  # apart (a host inside a word is no host); past SPLIT_AT
    assert len(text) > alternation.SPLIT_AT
    redactor = Redactor.for_report(
        hostnames=["gpu-node-17"], users=["alice"], secrets=["hunter2hunter2"], this_machine=False
    )
    expected = [(m.start(), m.end(), m.group(0)) for m in redactor.pattern.whole.finditer(text)]
    assert [(m.start(), m.end(), m.group(0)) for m in redactor.pattern.finditer(text)] == expected
    out = redactor.sub(text)
    assert "hunter2hunter2" not in out and "alice" not in out and "gpu-node-17" not in out
