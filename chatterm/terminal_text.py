"""Showing model text on a terminal harmlessly.

Model text may hold escape sequences (clear screen, OSC 52 clipboard writes, OSC 8 links, cursor moves).
On a terminal every control character except newline and tab is shown as a visible symbol instead of
being obeyed; piped output and files keep the text exactly.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x7F:
        return "\u2421"  # ␡
    if code >= 0x80:
        return f"\\x{code:02x}"
    return chr(0x2400 + code)  # ␛, ␇, ␈, ␍ ...


def neutralize(text: str) -> str:
    """Text safe to write to a terminal: control characters become visible symbols."""
    return _CONTROL.sub(_visible, text)


SHORT = 60
"""The most characters of a value from a file shown inside a message."""
MESSAGE = 400
"""The most characters of a message (a toast, an error or warning line): room for a provider's explanation, not for
a file's contents."""


def shortened(text: str, most: int = SHORT) -> str:
    """`text` cut in the middle to at most `most` characters, an ellipsis where it was cut: both ends of a message are
    kept (what it is about, and what to do)."""
    if len(text) <= most:
        return text
    head = (most - 1) // 2
    return f"{text[:head]}\u2026{text[len(text) - (most - 1 - head):]}"
