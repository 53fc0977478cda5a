"""THE one function that makes report text safe for a terminal: :func:`safe`. Stdlib only.

A report comes from a stranger, so every string in it is data. A terminal interprets some
characters: ESC starts CSI (``ESC[2J`` clears the screen, ``ESC[1A`` moves the cursor up and
can make a prompt show one command while another runs), OSC (OSC 52 writes the clipboard,
OSC 8 plants links), DCS/APC/PM strings; C1 controls (``\\x9b`` is a one-byte CSI) do the
same, and bidi overrides (U+202E) and other invisible format characters change what the
reader sees. :func:`safe` shows each such character visibly instead, as Python writes it:
``\\x1b``, ``\\x9b``, ``\\n`` (unless kept), ``<U+202E>``. The rest of the sequence is then
inert text. Any script, emoji and their joiners (ZWJ, ZWNJ) are kept.

It sits in the model layer so that every layer above (store's consent prompt, analysis,
render, the CLI's printers) uses this one function; :data:`JSON_UNSAFE` is the same set for
JSON, where a value must stay exact and is escaped as ``\\uXXXX`` instead.
"""

from __future__ import annotations

import re

# Characters a terminal acts on or that are invisible: C0 and C1 controls and DEL; every
# format character (Unicode category Cf) but the joiners ZWNJ/ZWJ that emoji and scripts
# need; line and paragraph separators; lone surrogates; noncharacters. Written out (the Cf
# list of Unicode 15) because building it from unicodedata costs a second at import;
# tests/test_receive_terminal.py checks it against unicodedata.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_CONTROL = "\x00-\x1f\x7f-\x9f"
_OTHER = "\u2028\u2029\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
UNSAFE = _CONTROL + _FORMAT + _OTHER  # a regular-expression character class body
_UNSAFE_CHAR = re.compile(f"[{UNSAFE}]")
_ALL_SAFE = re.compile(f"[^{UNSAFE}]*")
# In JSON, C0 controls are escaped by json.dumps already; the rest is escaped by json_text.
JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_FORMAT}{_OTHER}]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def visible(ch: str) -> str:
    """One unsafe character as text: ``\\x1b``, ``\\n``, ``<U+202E>``."""
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def safe(text: object, keep: str = "") -> str:
    """*text* (report text, usually a ``str``) safe to write to a terminal.

    Every control character, escape sequence introducer, bidi override and invisible
    format character is shown visibly (:func:`visible`); *keep* lists characters to let
    through anyway (``"\\n\\t"`` for multi-line text). ``None`` is ``""``.
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    if _ALL_SAFE.fullmatch(text):
        return text
    return _UNSAFE_CHAR.sub(lambda m: m.group() if m.group() in keep else visible(m.group()), text)


def is_safe(text: str, keep: str = "") -> bool:
    """True when :func:`safe` would leave *text* as it is."""
    return all(ch in keep for ch in _UNSAFE_CHAR.findall(text))
