"""The offline `demo` profile: the recordings shipped with chatterm, served in-process, each prompt answered with
the closest of them (`demo_catalogue`), or with a short answer saying what the demo is when none is close.

A recording is played turn after turn each time it is chosen: one that holds an error and its retry answers the
first request with the error and the retry with the answer, as the provider did.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chatterm.cassette.demo_catalogue import CATALOGUE, CONFIGURE, MODEL, closest
from chatterm.cassette.exchange import chat_turns
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Response
from chatterm.cassette.replay import Matcher
from chatterm.cassette.serve import ReplayServer

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"
FALLBACK_GAP = 0.01
"""Seconds between the words of the answer given when no recording is close (at the demo's speed, its pace)."""
_PIECE = re.compile(r"\s*\S+\s*")


def fallback_text() -> str:
    """The answer to a prompt no recording is close to: what the demo is, how to leave it, what to try."""
    tries = "\n".join(f"- {entry.prompt} ({entry.shows})" for entry in CATALOGUE)
    return (
        "This is chatterm's **offline demo**: no model answers here, only a few conversations recorded with "
        "chatterm and shipped with it, and none of them is close to your prompt.\n\n"
        f"{CONFIGURE}\n\nPrompts the demo answers:\n\n{tries}\n"
    )


def fallback_interaction(text: str | None = None) -> Interaction:
    """`text` (the fallback answer by default) as a recorded OpenAI stream, a word at a time."""
    chunks: list[bytes] = []
    for part in _PIECE.findall(fallback_text() if text is None else text):
        chunks.append(_event({"choices": [{"index": 0, "delta": {"content": part}, "finish_reason": None}]}))
    chunks.append(_event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    chunks.append(b"data: [DONE]\n\n")
    offsets, end = [], 0
    for number, chunk in enumerate(chunks, start=1):
        end += len(chunk)
        offsets.append((round(number * FALLBACK_GAP, 4), end))
    response = Response(200, {"content-type": ["text/event-stream"]}, b"".join(chunks), "OK", offsets=offsets)
    return Interaction(None, response)


def _event(payload: dict[str, Any]) -> bytes:
    framed = {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "model": MODEL, **payload}
    return b"data: " + json.dumps(framed, ensure_ascii=False).encode() + b"\n\n"


def last_prompt(body: Any) -> str:
    """The text of the last user message of a chat request ("" when it has none)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class DemoMatcher(Matcher):
    """Answers each request with the next turn of the recording closest to its last prompt."""

    def __init__(self, recordings: dict[str, Recording]) -> None:
        super().__init__(Recording("vcr", [i for recording in recordings.values() for i in recording.interactions]))
        self._turns = {name: chat_turns(recording.interactions) for name, recording in recordings.items()}
        self._next = dict.fromkeys(recordings, 0)
        self._fallback = fallback_interaction()

    def match(self, body: Any) -> Interaction | None:
        entry = closest(last_prompt(body))
        turns = self._turns.get(entry.file) if entry is not None else None
        if entry is None or not turns:
            return self._fallback
        played = self._next[entry.file]
        self._next[entry.file] = played + 1
        return turns[played % len(turns)]


def demo_recordings() -> dict[str, Recording]:
    """The shipped recordings the catalogue names, by file name."""
    return {entry.file: load_recording(DEMO_DIR / entry.file) for entry in CATALOGUE}


def demo_server(speed: float = 1.0) -> ReplayServer:
    """The demo's server (not started), answering at `speed` times the recorded pace."""
    recordings = demo_recordings()
    matcher = DemoMatcher(recordings)
    combined = Recording("vcr", [i for recording in recordings.values() for i in recording.interactions])
    return ReplayServer(combined, speed=speed, matcher=matcher)
