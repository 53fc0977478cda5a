"""A page's text as its reader sees it: tags dropped, entities undone, every deflated body
inflated (bounded), the page's own stylesheet and script left out (they hold no report text).
``share --check`` scans this, not the page's markup or its base64."""

from __future__ import annotations

import base64
import binascii
import zlib
from html.parser import HTMLParser

INFLATE_CAP = 256 << 20  # characters of inflated bodies read from one page


class _Reader(HTMLParser):
    def __init__(self, budget: int) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.budget = budget
        self._skip = 0  # inside the page's own <style> or <script>: not report text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        for name, value in attrs:
            if name == "data-z" and value:
                self._inflate(value)
            elif name in ("title", "data-json", "href") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)

    def _inflate(self, value: str) -> None:
        try:
            packed = base64.b64decode(value, validate=True)
            unpacker = zlib.decompressobj(-15)
            raw = unpacker.decompress(packed, max(self.budget, 0))
        except (binascii.Error, zlib.error, ValueError):
            self.parts.append("[a body that does not inflate]")
            return
        self.budget -= len(raw)
        text = raw.decode("utf-8", "replace")
        inner = _Reader(self.budget)
        inner.feed(text)
        inner.close()
        self.budget = inner.budget
        self.parts.append("\n".join(inner.parts))
        if unpacker.unconsumed_tail:
            self.parts.append("[more than the inflate cap: not read]")


def page_text(page: str, cap: int = INFLATE_CAP) -> str:
    """The text of an HTML *page* with its deflated bodies inflated (at most *cap* in all)."""
    reader = _Reader(cap)
    reader.feed(page)
    reader.close()
    return "\n".join(reader.parts)
