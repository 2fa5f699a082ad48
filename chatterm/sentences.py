"""chatterm's own words after a message from outside (a provider's error, a server's reason), punctuated once.

A provider's message may end as a sentence does or not at all; what chatterm adds reads as the next sentence after
one that ends, and as a clause after one that does not.
"""

from __future__ import annotations

SENTENCE_ENDS = (".", "!", "?", "…")
CLAUSE_ENDS = ";:, \t\r\n"


def then(message: str, more: str) -> str:
    """`message` followed by `more` (lower case, as a clause): "Busy; retrying", "Busy. Retrying"."""
    told = message.rstrip(CLAUSE_ENDS)
    if not told:
        return more
    if told.endswith(SENTENCE_ENDS):
        return f"{told} {more[:1].upper()}{more[1:]}"
    return f"{told}; {more}"
