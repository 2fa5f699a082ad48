"""What the sessions list shows of one session file, read within bounds.

A session file is a vcrpy cassette as chatterm writes it: `interactions:`, items that each start with `- request:`
at the start of a line, `version: 1`. Its row needs little of it: the first prompt (in the first request's body),
the profile and model of the last answer (chatterm's notes at the end of the last item: the model that answered,
else the one asked; or the last request's model), the name the user gave it if any (`title` in chatterm's notes on
the first item), and the number of turns (`exchange.turn_count`, from each item's method, address and `retried`
note, and its body only where those leave it open). So a file in that layout is cut at those lines and only those
parts are parsed: each is one YAML scalar or a small mapping, whatever the size of the answers around them. Anything
else is parsed whole, and only while it is small: a file of any size or shape costs about what reading its bytes
does, and a bad one is a row that says why rather than a list that waits.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatterm.cassette.dataio import load_yaml, read_bytes
from chatterm.cassette.exchange import RETRIED, told_by_address, turn_count
from chatterm.cassette.load import parse_recording
from chatterm.cassette.model import Interaction, Recording, RecordingError, Request, Response
from chatterm.cassette.torn import mended
from chatterm.cassette.vcr import EXTRA, body_bytes

WHOLE_LIMIT = 1024 * 1024
"""The largest file parsed whole to be listed (one not in chatterm's layout): YAML dense with nodes parses at about a
megabyte a second."""
NO_PROMPT = "(no prompt recorded)"
TITLE = "title"
"""The key of the name a user gave a session, in chatterm's notes on its first item (where the title is read)."""
ANSWERED = "answered"
"""The key of the model that gave an answer (the provider's word), in chatterm's notes beside the one asked."""
_HEAD = b"interactions:\n- request:\n"
_FIRST = len(b"interactions:\n")
_ITEM = b"\n- request:\n"
_TRAILER = b"\nversion: 1\n"
_TOP_NOTES = b"\n" + EXTRA.encode() + b":\n"
"""chatterm's top-level notes (a session's branch switches), after the items: the only line at the first column
between the first item and the trailer."""
_RESPONSE = b"\n  response:\n"
_NOTES = b"\n    " + EXTRA.encode() + b":\n"
Row = tuple[str, str, str, int]
"""Title, profile, model, number of turns."""
Span = tuple[bytes, int, int]
"""Where one item lies: the bytes that hold it, its start and its end."""
_METHOD = b"\n    method: "
_URI = b"\n    uri: "
_KEY = re.compile(rb"\n    [A-Za-z_]+:")
"""The next key of a request or a response (at their indent), where the value before it ends."""


@dataclass
class SessionInfo:
    path: Path
    title: str
    modified: float
    profile: str
    model: str
    turns: int
    error: str | None = None
    """Why the file cannot be opened, for a corrupt session (it is listed, not hidden)."""

    @property
    def date(self) -> str:
        try:
            return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))
        except (OverflowError, ValueError, OSError):  # a file dated where the calendar does not reach
            return "?"


def first_prompt(recording: Recording) -> str:
    for interaction in recording.interactions:
        if interaction.request is not None and (prompt := prompt_of(interaction.request)) is not None:
            return prompt
    return NO_PROMPT


def prompt_of(request: Request) -> str | None:
    """The first user message of a request that is text, on one line; None if there is none."""
    for message in request.messages:
        if isinstance(message, dict) and message.get("role") == "user" and isinstance(message.get("content"), str):
            return " ".join(message["content"].split())
    return None


def read_row(path: Path, modified: float) -> SessionInfo:
    """The row of a session file (`modified`: its change time, from the caller's stat); of one a save did not
    finish, as far as it got (`torn`)."""
    try:
        data = mended(read_bytes(path))
        row = quick_row(data, path.name)
        if row is None:
            if len(data) > WHOLE_LIMIT:
                size = f"{len(data) / 2**20:.1f} MiB"
                raise RecordingError(f"{path}: not a session chatterm wrote, too large ({size}) to read for the list")
            row = row_of(parse_recording(data, str(path)))
    except RecordingError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        return SessionInfo(path, path.name, modified, "", "", 0, error=f"{path.name}: {reason}")
    title, profile, model, turns = row
    return SessionInfo(path, title[:80], modified, profile, model, turns)


def row_of(recording: Recording) -> Row:
    interactions = recording.interactions
    meta = interactions[-1].meta if interactions else {}
    model = meta.get(ANSWERED) or meta.get("model") or next(
        (i.request.model for i in reversed(interactions) if i.request and i.request.model), ""
    )
    named = given_title(interactions[0].meta) if interactions else None
    title = named or first_prompt(recording)
    return title, str(meta.get("profile") or ""), str(model or ""), turn_count(interactions)


def given_title(notes: dict[str, Any]) -> str | None:
    """The name a user gave a session, from chatterm's notes on its first item; None when it has none."""
    title = notes.get(TITLE)
    return (" ".join(title.split()) or None) if isinstance(title, str) else None


def quick_row(data: bytes, name: str) -> Row | None:
    """The row of a file in chatterm's layout from its first and last items only; None when it needs more."""
    if not (data.startswith(_HEAD) and data.endswith(_TRAILER)):
        return None
    return _row(_items(data), name)


def items_row(items: list[bytes], name: str) -> Row | None:
    """The row `quick_row` reads from a file in chatterm's layout that holds `items` (each one item, as
    `vcr_yaml.ItemWriter` renders it), read from the items themselves: a saver indexes what it writes unjoined."""
    if not items or not all(item.startswith(_ITEM[1:]) for item in items):
        return None
    return _row([(item, 0, len(item)) for item in items], name)


def _items(data: bytes) -> list[Span]:
    """Where each item of a file in chatterm's layout lies."""
    spans = []
    end = _items_end(data)
    start = _FIRST
    while start < end:
        after = data.find(_ITEM, start, end)
        stop = after + 1 if after >= 0 else end
        spans.append((data, start, stop))
        start = stop
    return spans


def _row(items: list[Span], name: str) -> Row | None:
    head, last = _text(items[0]), _text(items[-1])
    first = _request(head, name)
    first_notes = _notes(head, name)
    named = given_title(first_notes) if first_notes is not None else None
    title = named or (prompt_of(first) if first is not None else None)
    notes = _notes(last, name)
    exchanges = _exchanges(items, name)
    if title is None or notes is None or exchanges is None:
        return None
    model = notes.get(ANSWERED) or notes.get("model")
    if not model:
        request = _request(last, name)
        model = request.model if request is not None else None
        if not model and len(items) > 1:
            return None  # (an earlier request may name it)
    return title, str(notes.get("profile") or ""), str(model or ""), turn_count(exchanges)


def _text(item: Span) -> bytes:
    data, start, stop = item
    return data[start:stop]


def _exchanges(items: list[Span], name: str) -> list[Interaction] | None:
    """The items of a file in chatterm's layout as much as counting turns needs (`exchange.turn_count`): each one's
    method and address, its body only where those do not tell a chat turn from another call, and whether it is an
    attempt that was retried (its notes are read only when they hold the word). None when an item cannot be read so."""
    found = []
    for data, start, stop in items:
        response = data.find(_RESPONSE, start, stop)
        if response < 0:
            return None
        method, url = _scalar(data, _METHOD, start, response, name), _scalar(data, _URI, start, response, name)
        if method is None or url is None:
            return None
        request = Request(method, url)
        if not told_by_address(method, url):
            request = _request(data[start:stop], name) or request
            request.method, request.url = method, url
        notes = data.find(_NOTES, response, stop)
        meta = _notes(data[start:stop], name) if notes >= 0 and data.find(RETRIED.encode(), notes, stop) >= 0 else {}
        if meta is None:
            return None
        found.append(Interaction(request, Response(None), meta=meta))
    return found


def _scalar(data: bytes, key: bytes, start: int, end: int, name: str) -> str | None:
    """The text of the last `key: value` line between `start` and `end` (a plain value as it is, any other parsed)."""
    at = data.rfind(key, start, end)
    if at < 0:
        return None
    stop = data.find(b"\n", at + 1, end + 1)
    value = data[at + len(key) : stop if stop >= 0 else end]
    if value[:1] and value[:1] not in b"'\"[]{}&*!|>%@`#" and b": " not in value and not value.endswith(b" "):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    parsed = _yaml(b"value: " + value, name)
    found = parsed.get("value") if isinstance(parsed, dict) else None
    return found if isinstance(found, str) else None


def first_item(data: bytes) -> tuple[int, int] | None:
    """Where the first item of a file in chatterm's layout lies (its start and end), None for another layout."""
    if not (data.startswith(_HEAD) and data.endswith(_TRAILER)):
        return None
    second = data.find(_ITEM, _FIRST)
    return _FIRST, second + 1 if second >= 0 else _items_end(data)


def _items_end(data: bytes) -> int:
    """Where the items of a file in chatterm's layout end: at its top-level notes if it has any, else the trailer."""
    notes = data.rfind(_TOP_NOTES, 0, len(data) - len(_TRAILER) + 1)
    return notes + 1 if notes >= 0 else len(data) - len(_TRAILER) + 1


def _request(item: bytes, name: str) -> Request | None:
    """An item's request with its body only, read from the body's value alone (one scalar, whatever its size)."""
    end = item.find(_RESPONSE)
    at = item.find(b"\n    body: ", 0, end)
    if end < 0 or at < 0:
        return None
    start = at + len(b"\n    body: ")
    if item[start : start + 1] in (b"{", b"[", b"&", b"*"):
        return None  # (a collection or an alias: not what chatterm writes)
    stop = _KEY.search(item, start, end + 1)
    parsed = _yaml(b"body: " + item[start : stop.start() if stop else end], name)
    body = parsed.get("body") if isinstance(parsed, dict) else None
    return Request("POST", "", body=body_bytes(body)) if isinstance(body, (str, bytes)) else None


def _notes(item: bytes, name: str) -> dict[str, Any] | None:
    """chatterm's notes on an item (the profile, the model) without the event offsets, which may be long; {} when
    it has none, None when they cannot be read in part."""
    response = item.find(_RESPONSE)
    if response < 0:
        return None
    at = item.find(_NOTES, response)
    if at < 0:
        return {}
    notes = item[at + 1 :]
    offsets = notes.find(b"\n      offsets: ")
    if offsets >= 0:
        end = notes.find(b"\n", offsets + 1)
        if notes[end : end + 9] == b"\n        ":
            return None  # (the offsets go on over several lines)
        notes = notes[:offsets] + notes[end:]
    if len(notes) > WHOLE_LIMIT:
        return None
    parsed = _yaml(b"item:\n" + notes, name)
    item_value = parsed.get("item") if isinstance(parsed, dict) else None
    found = item_value.get(EXTRA) if isinstance(item_value, dict) else None
    return found if isinstance(found, dict) else None


def _yaml(text: bytes, name: str) -> Any:
    try:
        return load_yaml(text.decode("utf-8"), name)
    except (RecordingError, UnicodeDecodeError):
        return None
