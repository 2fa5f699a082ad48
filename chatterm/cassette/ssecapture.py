"""Raw Server-Sent Events captures: the bytes of one or more streamed answers, nothing else.

A capture holding several answers is split into one turn per answer at each `data: [DONE]`.
"""

from __future__ import annotations

import base64
import json
import re

from chatterm.cassette.model import Interaction, Recording, Response
from chatterm.decode.body import EVENTSTREAM, NDJSON, SSE, body_kind
from chatterm.decode.eventstream import EventStreamError, FrameDecoder
from chatterm.decode.safejson import loads

_DONE = re.compile(rb"data: ?\[DONE\][ \t]*(?:\r\n|\r|\n)(?:\r\n|\r|\n)?")


def looks_like_sse(data: bytes) -> bool:
    """Decided before any YAML parsing: an SSE file is also valid YAML."""
    for line in data.lstrip(b"\xef\xbb\xbf").splitlines()[:20]:
        if line.strip():
            return body_kind(None, line) == SSE
    return False


def read_sse(data: bytes) -> Recording:
    data = data.removeprefix(b"\xef\xbb\xbf")
    bodies, start = [], 0
    for match in _DONE.finditer(data):
        bodies.append(data[start : match.end()])
        start = match.end()
    if data[start:].strip() or not bodies:
        bodies.append(data[start:])
    interactions = [
        Interaction(
            request=None, response=Response(status=None, headers={"content-type": ["text/event-stream"]}, body=b)
        )
        for b in bodies
    ]
    return Recording(format="sse", interactions=interactions)


def write_sse(recording: Recording) -> bytes:
    """Every answer's body as SSE; a JSON answer becomes one event, so it reads back the same."""
    out = []
    for interaction in recording.interactions:
        body = interaction.response.body
        kind = body_kind(interaction.response.content_type, body[:64])
        if kind == SSE:
            out.append(body if body.endswith(b"\n") else body + b"\n\n")
        elif kind == NDJSON:
            out.extend(b"data: " + line.strip() + b"\n\n" for line in body.splitlines() if line.strip())
        elif kind == EVENTSTREAM:
            out.extend(_frames_as_sse(body))
        elif body.strip():
            try:
                compact = json.dumps(loads(body), ensure_ascii=False).encode()
            except ValueError:
                compact = json.dumps({"error": {"message": body.decode("utf-8", "replace")}}).encode()
            out.append(b"data: " + compact + b"\n\n")
        if not _DONE.search(out[-1] if out else b""):
            out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def _frames_as_sse(body: bytes) -> list[bytes]:
    """Bedrock's binary frames wrap Anthropic events: write those events as SSE."""
    try:
        frames = FrameDecoder().feed(body)
    except (EventStreamError, ValueError, IndexError):
        return []
    events = []
    for frame in frames:
        try:
            payload = loads(frame.payload)
            inner = base64.b64decode(payload["bytes"]) if isinstance(payload, dict) and "bytes" in payload else None
        except (ValueError, TypeError):
            continue
        if inner:
            events.append(b"data: " + inner.strip() + b"\n\n")
    return events
