"""A recording as the conversation it holds: the `show --json` schema of CONTRACT.md."""

from __future__ import annotations

from typing import Any

from chatterm.cassette.exchange import chat_turns, not_an_answer, other_call
from chatterm.cassette.model import Interaction, Recording
from chatterm.conversation.reply import Reply
from chatterm.decode.body import BodyDecoder, body_kind
from chatterm.decode.errors import http_error
from chatterm.events import StreamError

RETRIED = "retried"
"""Marks (in an exchange's `meta`) an attempt that was retried: the next exchange answers the same turn."""


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
    if verdict is not None and verdict.kind in ("empty", "unreadable"):
        what = not_an_answer(response)
        if what is not None:
            verdict = StreamError(status=None, message=f"the response is {what}, not a chat answer", kind="unsupported")
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


def asked_with(interaction: Interaction) -> dict[str, Any] | None:
    """What chatterm recorded a turn was asked with (`show --json`'s `asked_with`): the profile and model, the system
    prompt (null: none) and the chat's own parameters over the profile's; null for a turn chatterm did not record."""
    meta = interaction.meta
    if not isinstance(meta.get("profile"), str):
        return None
    params = meta.get("params")
    return {
        "profile": meta["profile"],
        "model": _text_or_none(meta.get("model")),
        "system": _text_or_none(meta.get("system")),
        "params": dict(params) if isinstance(params, dict) else {},
    }


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def turns(interactions: list[Interaction]) -> list[list[Interaction]]:
    """The chat exchanges grouped into the turns a user saw: the attempts a retry superseded (marked `RETRIED`), then
    the attempt that answered. Other calls recorded beside the chat are no turn (`exchange.other_call`)."""
    grouped: list[list[Interaction]] = []
    attempts: list[Interaction] = []
    for interaction in chat_turns(interactions):
        attempts.append(interaction)
        if interaction.meta.get(RETRIED) is not True:
            grouped.append(attempts)
            attempts = []
    if attempts:
        grouped.append(attempts)  # (the process ended while it waited to retry)
    return grouped


def answers(recording: Recording) -> Recording:
    """The recording with only the attempt that answered each turn (what a replay plays)."""
    return Recording(format=recording.format, interactions=[turn[-1] for turn in turns(recording.interactions)])


def skipped(recording: Recording) -> list[str]:
    """The calls recorded beside the chat, each as `METHOD URL: what it is`."""
    out = []
    for interaction in recording.interactions:
        what = other_call(interaction)
        if what is not None and interaction.request is not None:
            out.append(f"{interaction.request.method} {interaction.request.url}: {what}")
    return out


def summarize(recording: Recording, think_tags: bool = True) -> dict[str, Any]:
    """The `show --json` document: one entry per turn, the attempts retried before its answer under `retried`."""
    return {
        "format": recording.format,
        "turns": [
            {
                "request": request_summary(turn[-1]),
                "asked_with": asked_with(turn[-1]),
                "response": reply_of(turn[-1], think_tags).as_dict(),
                "retried": [reply_of(attempt, think_tags).as_dict() for attempt in turn[:-1]],
            }
            for turn in turns(recording.interactions)
        ],
    }
