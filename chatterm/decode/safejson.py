"""JSON from outside, parsed with its nesting bounded.

Python's JSON parser recurses once per level of nesting, and so does code that walks what it built: one line of
100,000 `[` ends in a RecursionError wherever it is read (a stream, a recording, an error body), and how deep a
document may go before that depends on how deep the stack already is (the app's is deeper than `ask`'s). So text
nested deeper than a fixed limit is refused before it is parsed, the same wherever it is read.

The nesting is counted only when the text holds more opening brackets than the limit, which a provider's chunk
all but never does: the count is two `str.count` calls, the scan that skips strings runs only past it.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 100
"""Nesting allowed in a chunk of a stream or a request: a provider's deepest is about ten."""

_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class TooDeep(ValueError):
    """JSON nested deeper than allowed; the message says how deep is allowed."""


def too_deep(text: str | bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the brackets of `text` (outside its strings) nest deeper than `limit`."""
    if isinstance(text, bytes):
        if text.count(b"[") + text.count(b"{") <= limit:
            return False
        text = text.decode("utf-8", "replace")  # (brackets, quotes and backslashes stay where they were)
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """`json.loads`, refusing (`TooDeep`, a ValueError) text nested deeper than `limit`."""
    if too_deep(text, limit):
        raise TooDeep(f"nested more than {limit} levels deep")
    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeep(f"nested too deeply to be parsed (more than {limit} levels allowed)") from None
