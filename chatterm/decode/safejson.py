"""JSON from outside, parsed with its nesting bounded.

Python's JSON parser recurses once per level of nesting, and so does code that walks what it built: one line of
100,000 `[` ends in a RecursionError wherever it is read (a stream, a recorded body, an error body), and how deep a
document may go before that depends on how deep the stack already is (the app's is deeper than `ask`'s). So JSON
nested deeper than a fixed limit is refused, the same wherever it is read.

The nesting is measured only when the text holds more opening brackets than the limit, which a provider's chunk
all but never does (two `str.count` calls); then on the parsed data, container by container, not on the text
character by character (a scan of the text that skips strings costs twice the parse).
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 100
"""Nesting allowed in a chunk of a stream, a response body or a request: a provider's deepest is about ten."""


class TooDeep(ValueError):
    """JSON nested deeper than allowed; the message says how deep is allowed."""


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """`json.loads`, refusing (`TooDeep`, a ValueError) JSON nested deeper than `limit`."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeep(f"nested more than {limit} levels deep") from None
    openers = text.count("[") + text.count("{") if isinstance(text, str) else text.count(b"[") + text.count(b"{")
    if openers > limit and deeper_than(data, limit):
        raise TooDeep(f"nested more than {limit} levels deep")
    return data


def deeper_than(data: Any, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` deep in `data` (walked without recursion)."""
    stack = [(data, 1)] if isinstance(data, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
