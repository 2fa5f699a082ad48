"""When each piece of a recorded body arrived, and how to play it back at that pace."""

from __future__ import annotations

import re

from chatterm.cassette.model import Response
from chatterm.decode.body import EVENTSTREAM, JSON, NDJSON, SSE, BodyDecoder, body_kind
from chatterm.events import Content, Reasoning, ToolCallDelta

DEFAULT_GAP = 0.02
"""Seconds between events when a recording says nothing of its pace (about 50 tokens a second)."""

_GO_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9}
_GO_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_EVENT_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")


def parse_go_duration(text: object) -> float | None:
    """Seconds in a Go duration string such as `192.518875ms` or `1m2.5s`; None if it is not one."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text) / 1e9  # go-vcr format 1 may hold nanoseconds
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.strip()
    parts = _GO_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text.lstrip("+"):
        return None
    return sum(float(number) * _GO_UNITS[unit] for number, unit in parts)


def format_go_duration(seconds: float) -> str:
    """A Go duration string, as go-vcr writes it."""
    if seconds >= 1:
        return f"{seconds:.9f}".rstrip("0").rstrip(".") + "s"
    return f"{seconds * 1000:.6f}".rstrip("0").rstrip(".") + "ms"


def event_ends(body: bytes, kind: str) -> list[int]:
    """Offsets just past each event of a body (an SSE event, an NDJSON line, a binary frame)."""
    ends = _complete_ends(body, kind)
    if not ends or ends[-1] != len(body):
        ends.append(len(body))
    return [end for end in ends if end > 0] or [len(body)]


def _complete_ends(body: bytes, kind: str) -> list[int]:
    """The ends of the events of `body` that are complete (not the unfinished one at its end)."""
    ends: list[int] = []
    if kind == SSE:
        ends = [m.end() for m in _EVENT_END.finditer(body)]
        if ends and ends[-1] == len(body):
            ends.pop()  # "\r\n" at the very end may be one line end or two: the next bytes tell
    elif kind == NDJSON:
        at = body.find(b"\n")
        while at >= 0:
            ends.append(at + 1)
            at = body.find(b"\n", at + 1)
    elif kind == EVENTSTREAM:
        at = 0
        while at + 4 <= len(body):
            size = int.from_bytes(body[at : at + 4], "big")
            if size <= 0 or at + size > len(body):
                break
            at += size
            ends.append(at)
    return ends


def schedule(response: Response) -> list[tuple[float, bytes]]:
    """The pieces of a body with the time (seconds from the request) each should be sent at."""
    body = response.body
    if response.offsets:
        pieces: list[tuple[float, bytes]] = []
        start = 0
        for at, end in response.offsets:
            end = min(max(end, start), len(body))
            if end > start:
                pieces.append((max(at, 0.0), body[start:end]))
            start = end
        if start < len(body):
            pieces.append((response.offsets[-1][0], body[start:]))
        return pieces
    kind = body_kind(response.content_type, body[:64])
    ends = event_ends(body, kind) if kind != JSON else [len(body)]
    gap = response.duration / len(ends) if response.duration else DEFAULT_GAP
    pieces, start = [], 0
    for number, end in enumerate(ends, start=1):
        pieces.append((gap * number, body[start:end]))
        start = end
    return pieces


def thinking_time(response: Response) -> float | None:
    """Seconds from the first reasoning to the first of the answer (or the end), as recorded: what the reasoning
    pane's title said live. None when the recording holds no reasoning or no timing of its events."""
    if not response.offsets:
        return None
    decoder = BodyDecoder(body_kind(response.content_type, response.body[:64]))
    started = None
    pieces = schedule(response)
    for at, piece in pieces:
        for event in decoder.feed(piece):
            if isinstance(event, Reasoning) and started is None:
                started = at
            elif isinstance(event, (Content, ToolCallDelta)) and started is not None:
                return at - started
    return pieces[-1][0] - started if started is not None else None


def offsets_from_chunks(chunks: list[tuple[float, int]], body: bytes, kind: str) -> list[tuple[float, int]]:
    """Per-event offsets from the (arrival time, end offset) of each network chunk that carried the body."""
    return EventTimes().update(chunks, body, kind)


class EventTimes:
    """The per-event offsets of a body that is still arriving, brought up to date in time proportional to what
    arrived since the last update: a streaming answer is saved every second, and rescanning the whole body each
    time would make saving a long answer quadratic."""

    def __init__(self) -> None:
        self._reset("")

    def _reset(self, kind: str) -> None:
        self._kind = kind
        self._complete: list[tuple[float, int]] = []
        self._start = 0
        """Where the first event not known to be complete begins."""
        self._chunk = 0

    def update(self, chunks: list[tuple[float, int]], body: bytes, kind: str) -> list[tuple[float, int]]:
        """Offsets for `body` as it is now, from the (arrival time, end offset) of each chunk that carried it; each
        event is stamped with the arrival of the chunk that completed it."""
        if not chunks:
            return []
        if kind != self._kind:  # (told from the first bytes when the headers do not say: it can change once)
            self._reset(kind)
        for end in _complete_ends(body[self._start :], kind):
            end += self._start
            if end > 0:
                self._complete.append((self._arrival(chunks, end), end))
        if self._complete:
            self._start = self._complete[-1][1]
        result = list(self._complete)
        if len(body) > self._start or not result:
            result.append((self._arrival(chunks, len(body)), len(body)))
        return result

    def _arrival(self, chunks: list[tuple[float, int]], end: int) -> float:
        while self._chunk < len(chunks) - 1 and chunks[self._chunk][1] < end:
            self._chunk += 1
        return round(chunks[self._chunk][0], 4)
