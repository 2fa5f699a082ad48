"""Answers in each provider's own wire shape (Anthropic Messages, Gemini, Ollama), for the fault server.

Each function gives the bytes of a streamed answer made of `words`, ending as the provider ends it (`end=True`),
or cut where the provider would have said it was done (`end=False`), and with its own finish reason.
"""

from __future__ import annotations

import json
from typing import Any


def _sse(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


def anthropic(words: list[str], end: bool = True, stop_reason: str = "end_turn") -> list[bytes]:
    """An Anthropic Messages stream; without its end there is neither a `stop_reason` nor `message_stop`."""
    message: dict[str, Any] = {
        "id": "msg_fault",
        "type": "message",
        "role": "assistant",
        "model": "fault-claude",
        "content": [],
    }
    message["usage"] = {"input_tokens": 5, "output_tokens": 1}
    events = [
        _sse({"type": "message_start", "message": message}, "message_start"),
        _sse(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            "content_block_start",
        ),
    ]
    for word in words:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": word}}
        events.append(_sse(delta, "content_block_delta"))
    if end:
        events.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        finish = {"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 8}}
        events.append(_sse(finish, "message_delta"))
        events.append(_sse({"type": "message_stop"}, "message_stop"))
    return events


def anthropic_overloaded() -> list[bytes]:
    """An Anthropic stream that reports an overload before any of the answer."""
    message: dict[str, Any] = {
        "id": "msg_fault",
        "type": "message",
        "role": "assistant",
        "model": "fault-claude",
        "content": [],
    }
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    return [_sse({"type": "message_start", "message": message}, "message_start"), _sse(error, "error")]


def gemini(words: list[str], end: bool = True, finish_reason: str = "STOP") -> list[bytes]:
    """A Gemini `streamGenerateContent?alt=sse` stream; without its end no chunk carries a `finishReason`."""
    chunks = []
    for number, word in enumerate(words, start=1):
        candidate: dict[str, Any] = {"content": {"parts": [{"text": word}], "role": "model"}, "index": 0}
        if end and number == len(words):
            candidate["finishReason"] = finish_reason
        chunks.append(_sse({"candidates": [candidate], "modelVersion": "fault-gemini"}))
    return chunks


def ollama(words: list[str], end: bool = True, done_reason: str = "stop") -> list[bytes]:
    """An Ollama `/api/chat` NDJSON stream; without its end no line says `done: true`."""
    lines = []
    for word in words:
        line = {"model": "fault-llama", "message": {"role": "assistant", "content": word}, "done": False}
        lines.append(json.dumps(line).encode() + b"\n")
    if end:
        last = {"model": "fault-llama", "message": {"role": "assistant", "content": ""}, "done": True}
        last |= {"done_reason": done_reason, "prompt_eval_count": 5, "eval_count": 8}
        lines.append(json.dumps(last).encode() + b"\n")
    return lines
