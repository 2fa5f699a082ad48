"""A recording as the conversation it holds: the `show --json` schema of CONTRACT.md."""

from __future__ import annotations

from typing import Any

from chatterm.cassette.model import Interaction, Recording
from chatterm.conversation.reply import Reply
from chatterm.decode.body import BodyDecoder, body_kind
from chatterm.decode.errors import http_error
from chatterm.events import StreamError


def reply_of(interaction: Interaction, think_tags: bool = True) -> Reply:
    """Decode a recorded response exactly as the live client would have."""
    response = interaction.response
    reply = Reply(status=response.status)
    decoder = None
    if response.status is not None and response.status >= 400:
        reply.add(http_error(response.status, response.body, response.reason))
    else:
        decoder = BodyDecoder(body_kind(response.content_type, response.body[:64]), think_tags=think_tags)
        reply.extend([*decoder.feed(response.body), *decoder.close()])
    if response.error and reply.error is None:
        status = response.error.get("status")
        reply.add(
            StreamError(
                status=status if isinstance(status, int) else None, message=str(response.error.get("message") or "")
            )
        )
    if interaction.note and reply.error is None and not reply.content and not reply.reasoning:
        reply.add(StreamError(status=None, message=interaction.note, kind="unsupported"))
    verdict = decoder.verdict() if decoder is not None and reply.error is None else None
    if verdict is not None:
        reply.add(verdict)  # (after the recorded error: what the live client knew when it ended is more precise)
    if reply.model is None and interaction.request is not None:
        reply.model = interaction.request.model
    return reply


def request_summary(interaction: Interaction) -> dict[str, Any] | None:
    request = interaction.request
    if request is None:
        return None
    return {"method": request.method, "url": request.url, "model": request.model, "messages": request.messages}


def summarize(recording: Recording, think_tags: bool = True) -> dict[str, Any]:
    return {
        "format": recording.format,
        "turns": [
            {"request": request_summary(i), "response": reply_of(i, think_tags).as_dict()}
            for i in recording.interactions
        ],
    }
