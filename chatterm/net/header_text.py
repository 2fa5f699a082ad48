"""What text a header can carry, and the whitespace a paste adds around a key that goes in one.

A header value is ASCII without control characters: httpx encodes it as ASCII and the HTTP layer refuses a control
character. A key holding anything else cannot be sent, so it is refused before any request, by where the character
is, never by the key. What a copy and paste adds around a key (spaces, tabs, line ends, no-break and other Unicode
spaces, zero-width spaces, a byte order mark) is no part of it and is dropped wherever a key is read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_AROUND = re.compile(r"^[\s\u200b-\u200d\u2060\ufeff]+|[\s\u200b-\u200d\u2060\ufeff]+$")
"""Whitespace as Unicode counts it, and the invisible characters a paste brings that it does not count."""


def without_paste(value: str) -> str:
    """The value without the whitespace and invisible characters around it."""
    return _AROUND.sub("", value)


def unsendable(value: str) -> str | None:
    """Where the first character a header cannot carry is in `value`, in words ("U+00FC (not ASCII) at position
    5"), or None when the whole value can be sent. The character is named by its code point only: the value may be a
    secret, and the character may not be printable."""
    for position, char in enumerate(value, 1):
        code = ord(char)
        if code > 0x7E or code < 0x20:
            kind = "a control character" if code < 0x20 or code == 0x7F else "not ASCII"
            return f"U+{code:04X} ({kind}) at position {position}"
    return None


def cannot_carry(value: str) -> str | None:
    """The words every refusal of a value no header can carry uses after what holds it ("holds a character no HTTP
    header can carry: " and where, `unsendable`), or None when the value can be sent."""
    where = unsendable(value)
    return None if where is None else f"holds a character no HTTP header can carry: {where}"


def header_problem(headers: Mapping[str, str]) -> str | None:
    """One line naming the first header of a request whose name or value holds a character no header can carry
    (the value is never shown), or None."""
    for name, value in headers.items():
        if (problem := cannot_carry(name)) is not None:
            return f"a header name {problem}"
        if (problem := cannot_carry(value)) is not None:
            return f"the {name} header {problem} of its value"
    return None
