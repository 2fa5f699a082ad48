"""Known secrets and the forms they take in text, masked in every text chatterm writes or shows.

A key is found not only as itself: a URL percent-encodes it (some encoders every character but letters and digits,
or every character), and JSON writes it escaped (`\\"`, `\\\\`, `\\/` for `/` by some servers). `text_forms` is the one
list of those forms, for the screen, stdout, the export and every file alike: a form the screen masks in an answer's
text is in the answer's body, and in a session file, as a JSON string holds it, escaped once more, so each form is
listed as a JSON string holds it too.

Text that arrives in pieces (an answer streamed event by event) is masked by `TextMask`, which holds back the end of
what it was given while that end could still be the start of a key.
"""

from __future__ import annotations

import functools
import json
import re
import string
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

MASK = "REDACTED"
_PERCENT = re.compile(r"%[0-9A-F]{2}")
_LETTERS_AND_DIGITS = string.ascii_letters + string.digits
MIN_LENGTH = 6
"""Shorter strings are not masked: they would mask ordinary words."""


def known(*groups: Iterable[str | None]) -> tuple[str, ...]:
    """The secrets of several sources in one tuple, in order, without repeats or empty or too short values."""
    seen: dict[str, None] = {}
    for group in groups:
        for secret in group:
            if secret and len(secret) >= MIN_LENGTH:
                seen.setdefault(secret, None)
    return tuple(seen)


def percent_encoded(secret: str, keep: str = "") -> str:
    """The secret with every character but those in `keep` percent-encoded (its UTF-8 bytes, hex in capitals)."""
    return "".join(char if char in keep else "".join(f"%{byte:02X}" for byte in char.encode()) for char in secret)


def encoded(secret: str) -> set[str]:
    """The secret as is and as URLs write it: the characters a URL cannot hold percent-encoded (`+` for a space),
    every character but letters and digits, or every character; the hex digits in capitals or in small letters."""
    forms = {quote(secret, safe=""), quote(secret), quote_plus(secret, safe="")}
    forms |= {percent_encoded(secret, _LETTERS_AND_DIGITS), percent_encoded(secret)}
    return {secret} | forms | {_PERCENT.sub(lambda escape: escape[0].lower(), form) for form in forms}


def in_json(text: str) -> set[str]:
    """The text as it is inside a JSON string: escaped, with non-ASCII characters as `\\u` escapes or not, with `/`
    as `\\/` (as PHP and some Java servers write it) or not."""
    escaped = {json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}
    return escaped | {form.replace("/", "\\/") for form in escaped}


@functools.lru_cache(maxsize=64)
def text_forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    """Every form the secrets may take in a text, longest first (so a longer form is masked whole): each secret as
    is and URL-encoded (`encoded`), each of those in a JSON string (a provider's JSON, as its text shows it), and each
    of those in a JSON string again (the same text in the body of the answer, in a JSON or YAML file)."""
    forms: set[str] = set()
    for secret in known(secrets):
        shown = {escaped for form in encoded(secret) for escaped in {form, *in_json(form)}}
        forms |= shown | {held for form in shown for held in in_json(form)}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


@functools.lru_cache(maxsize=64)
def byte_forms(secrets: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(form.encode("utf-8") for form in text_forms(secrets))


def mask_text(text: str, secrets: tuple[str, ...]) -> str:
    """The text with every form of every secret replaced by MASK."""
    for form in text_forms(secrets):
        if form in text:
            text = text.replace(form, MASK)
    return text


def mask_bytes(data: bytes, secrets: tuple[str, ...]) -> bytes:
    for form in byte_forms(secrets):
        if form in data:
            data = data.replace(form, MASK.encode())
    return data


def pending(text: str, forms: tuple[str, ...]) -> int:
    """The length of the longest end of `text` that is the start of a form but not a whole one (0 when none)."""
    longest = 0
    for form in forms:
        start = max(len(text) - len(form) + 1, 0)
        at = text.find(form[0], start)
        while at >= 0 and len(text) - at > longest:
            if form.startswith(text[at:]):
                longest = len(text) - at
                break
            at = text.find(form[0], at + 1)
    return longest


class TextMask:
    """Masks text that arrives in pieces: a key cut across two pieces is masked whole.

    `feed` returns what can be shown now; the end that could still become a key is held until the next piece tells,
    or until `flush`.
    """

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self.secrets = secrets
        self.forms = text_forms(secrets)
        self.held = ""
        self.found = False
        """A key was masked."""

    def feed(self, text: str) -> str:
        if self.held:
            text, self.held = self.held + text, ""
        for form in self.forms:
            if form in text:
                text = text.replace(form, MASK)
                self.found = True
        keep = pending(text, self.forms) if self.forms else 0
        if keep:
            self.held = text[-keep:]
            return text[:-keep]
        return text

    def flush(self) -> str:
        held, self.held = self.held, ""
        return held
