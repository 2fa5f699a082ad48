"""A session file cut short by a kill during a save, read as far as it got.

chatterm writes a session in place after its finished turns (`growing_file`): a process killed in the middle of a
save leaves those turns whole and a start of what followed them (the answer that was streaming, the branch switches,
the trailer). Such a file is in chatterm's layout (`interactions:`, then items each starting with `- request:` at the
first column, chatterm's notes on the first one) without the `version: 1` that every save ends with. It is read up
to its last complete item, with its branch switches when they came through whole, and nothing is said about it: the
next save of the session writes it whole again. Only what follows the last item boundary is parsed to tell what came
through; the items before it were finished before the save began. Any other file is left as it is to its reader,
whose error says what is wrong with it (a cassette cut short that chatterm did not save is news).
"""

from __future__ import annotations

from chatterm.cassette.dataio import load_yaml
from chatterm.cassette.model import RecordingError, mapping
from chatterm.cassette.vcr import EXTRA, is_vcr, read_vcr

_HEAD = b"interactions:\n- request:\n"
_START = len(b"interactions:\n")
_ITEM = b"\n- request:\n"
_TRAILER = b"\nversion: 1\n"
_TOP_NOTES = b"\n" + EXTRA.encode() + b":\n"
"""chatterm's top-level notes (the branch switches), after the items."""
_NOTES = b"\n    " + EXTRA.encode() + b":\n"
"""chatterm's notes on an item's response."""


def mended(data: bytes) -> bytes:
    """A session file cut short, as far as it got and ended as a save ends it; any other file as it is."""
    if not is_torn(data):
        return data
    whole = data[: data.rfind(b"\n") + 1]  # (a line cut short says nothing)
    last = whole.rfind(_ITEM) + 1
    notes = whole.find(_TOP_NOTES, last)
    items_end = notes + 1 if notes >= 0 else len(whole)
    keep = items_end if _one_item(whole[last:items_end]) else last
    if keep <= _START:
        return data  # (not one item came through)
    top = whole[items_end:] if keep == items_end and notes >= 0 else b""
    return whole[:keep] + (top if _notes_read(top) else b"") + b"version: 1\n"


def is_torn(data: bytes) -> bool:
    """Whether `data` is a session chatterm saved that a save did not finish."""
    if not data.startswith(_HEAD) or data.endswith(_TRAILER):
        return False
    second = data.find(_ITEM, _START)
    return data.find(_NOTES, _START, second if second >= 0 else len(data)) >= 0


def _one_item(item: bytes) -> bool:
    """Whether `item` reads as one exchange, its notes (if it came as far as them) a mapping."""
    try:
        parsed = load_yaml((b"interactions:\n" + item).decode("utf-8"), "<session>")
        if not is_vcr(parsed) or len(read_vcr(parsed, "<session>").interactions) != 1:
            return False
        response = mapping(mapping(parsed["interactions"][0]).get("response"))
        return EXTRA not in response or isinstance(response[EXTRA], dict)
    except (RecordingError, UnicodeDecodeError, TypeError, ValueError, AttributeError, KeyError, IndexError):
        return False


def _notes_read(top: bytes) -> bool:
    """Whether the top-level notes came through as notes."""
    if not top:
        return False
    try:
        return EXTRA in mapping(load_yaml(top.decode("utf-8"), "<session>"))
    except (RecordingError, UnicodeDecodeError):
        return False
