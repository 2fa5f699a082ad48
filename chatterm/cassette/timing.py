"""When each piece of a recorded body arrived, and how to play it back at that pace."""

from __future__ import annotations

import re

from chatterm.cassette.model import Response
from chatterm.decode.body import EVENTSTREAM, JSON, NDJSON, SSE, body_kind

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
    ends: list[int] = []
    if kind == SSE:
        ends = [m.end() for m in _EVENT_END.finditer(body)]
    elif kind == NDJSON:
        at = body.find(b"\n")
        while at >= 0:
            ends.append(at + 1)
            at = body.find(b"\n", at + 1)
    elif kind == EVENTSTREAM:
        at = 0
        while at + 4 <= len(body):
            size = int.from_bytes(body[at : at + 4], "big")
            if size <= 0:
                break
            at = min(at + size, len(body))
            ends.append(at)
    if not ends or ends[-1] != len(body):
        ends.append(len(body))
    return [end for end in ends if end > 0] or [len(body)]


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


def offsets_from_chunks(chunks: list[tuple[float, int]], body: bytes, kind: str) -> list[tuple[float, int]]:
    """Per-event offsets from the (arrival time, end offset) of each network chunk that carried the body."""
    if not chunks:
        return []
    ends = event_ends(body, kind)
    result: list[tuple[float, int]] = []
    chunk = 0
    for end in ends:
        while chunk < len(chunks) - 1 and chunks[chunk][1] < end:
            chunk += 1
        result.append((round(chunks[chunk][0], 4), end))
    return result
