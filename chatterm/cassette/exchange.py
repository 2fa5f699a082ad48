"""What a recorded exchange is: a chat turn, or one of the other HTTP calls recorded beside the chat; and what a
body that holds no answer is.

vcrpy and go-vcr record every HTTP call a test suite makes, not only its chat: a model list, embeddings, a health
check, an OAuth token. Those calls stay in the file (a cassette converted or saved again still holds them), but
they are no chat turn for `show`, `replay` or `serve`. A call is told from its request, which says what was asked
for: its method, its endpoint, and whether its body carries a conversation. A body that holds no answer is named by
what it is ("an embeddings response", "text/html"), so a user reads what was recorded instead of an empty turn.
An answer the client retried is recorded as each attempt: its turn is the attempts, the last one answering it
(`turns`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from chatterm.cassette.model import Interaction, Request, Response
from chatterm.decode.safejson import loads

CHAT_FIELDS = frozenset({"messages", "contents", "prompt", "input", "inputText", "system"})
"""Request fields that carry a conversation, in every API chatterm reads (OpenAI, Anthropic, Gemini, Ollama,
Bedrock, the Responses API)."""

OTHER_ENDPOINTS = frozenset(
    {
        "embeddings",
        "embed",
        "embedcontent",
        "batchembedcontents",
        "models",
        "tags",
        "token",
        "moderations",
        "counttokens",
        "count_tokens",
        "tokenize",
        "detokenize",
        "files",
        "uploads",
        "batches",
    }
)
"""The last part of the path of calls that are no chat, whatever their body (an embeddings request has `input`)."""

CHAT_ENDPOINTS = frozenset(
    {
        "completions",
        "messages",
        "generatecontent",
        "streamgeneratecontent",
        "chat",
        "generate",
        "responses",
        "invoke",
        "invoke-with-response-stream",
        "converse",
        "converse-stream",
    }
)
"""The last part of the path of chat calls (OpenAI, Anthropic, Gemini, Ollama, Bedrock, the Responses API): such a
call is a turn whatever its body holds."""

ANSWER_FIELDS = frozenset({"choices", "candidates", "content", "message", "type", "done", "output", "delta", "error"})
"""Top-level fields of a JSON answer in any shape chatterm reads: a document with one of them is an answer, if an
empty one."""

_QUOTED = {field: f'"{field}"'.encode() for field in CHAT_FIELDS}
_ENDPOINT_SPLIT = re.compile(r"[/:]")


def other_call(interaction: Interaction) -> str | None:
    """None for a chat turn; for another call, what it is in a few words (said where it is skipped)."""
    if interaction.request is None or not _asks_for_other(interaction.request):
        return None
    return describe_body(interaction.response.content_type, interaction.response.body)


def chat_turns(interactions: list[Interaction]) -> list[Interaction]:
    """The exchanges that are chat turns, in order."""
    return [interaction for interaction in interactions if other_call(interaction) is None]


RETRIED = "retried"
"""Marks (in an exchange's `meta`) an attempt that was retried: the next exchange answers the same turn."""


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


def answering(interactions: list[Interaction]) -> list[Interaction]:
    """The exchange that answered each turn, in order (what `serve` and a replay play: not the attempts retried)."""
    return [attempts[-1] for attempts in turns(interactions)]


def turn_count(interactions: list[Interaction]) -> int:
    """How many turns the exchanges hold: the turns `show` prints (one per turn of the tree, `branches`) and the
    sessions list counts."""
    return len(turns(interactions))


def told_by_address(method: str, url: str) -> bool:
    """Whether a request's method and address alone tell a chat turn from another call (its body is not needed)."""
    return method.upper() != "POST" or _endpoint(url) in OTHER_ENDPOINTS | CHAT_ENDPOINTS


def _endpoint(url: str) -> str:
    return _ENDPOINT_SPLIT.split(urlsplit(url).path.rstrip("/"))[-1].lower()


def _asks_for_other(request: Request) -> bool:
    """Told from the method, then the endpoint, then whether the body carries a conversation."""
    if request.method.upper() != "POST":
        return True
    endpoint = _endpoint(request.url)
    if endpoint in OTHER_ENDPOINTS:
        return True
    if endpoint in CHAT_ENDPOINTS or not request.body.strip():
        return False  # (a body left out of the recording says nothing)
    if any(_QUOTED[field] in request.body for field in CHAT_FIELDS):
        return False  # (told without parsing: a long session's every request holds its whole history)
    payload = request.json()
    if isinstance(payload, dict):
        return not CHAT_FIELDS & payload.keys()
    return payload is None  # a form or text body (an OAuth token request), not JSON


def not_an_answer(response: Response) -> str | None:
    """What a body that held no answer is, when it is not an answer at all (an empty answer in a shape chatterm
    reads gives None): `describe_body`'s words."""
    body = response.body
    if not body.strip():
        return None
    try:
        payload = loads(body)
    except ValueError:
        return describe_body(response.content_type, body)
    if isinstance(payload, dict) and ANSWER_FIELDS & payload.keys():
        return None
    return describe_body(response.content_type, body)


def describe_body(content_type: str | None, body: bytes) -> str:
    """A body named by what it is: a known kind of JSON document, a JSON object by its first keys, else its type."""
    if not body.strip():
        return "an empty body"
    try:
        payload = loads(body)
    except ValueError:
        kind = (content_type or "").split(";")[0].strip().lower()
        if kind:
            return kind
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return "binary data"
        return "text that is not JSON"
    return _json_kind(payload)


def _json_kind(payload: Any) -> str:
    if isinstance(payload, list):
        return "a JSON array"
    if not isinstance(payload, dict):
        return "a JSON value"
    data = payload.get("data")
    items = [item.get("object") for item in data if isinstance(item, dict)] if isinstance(data, list) else []
    if "embedding" in items or "embedding" in payload or "embeddings" in payload:
        return "an embeddings response"
    if "model" in items or isinstance(payload.get("models"), list):
        return "a model list"
    if "access_token" in payload:
        return "an OAuth token"
    if payload.get("object") == "model":
        return "a model's details"
    keys = [str(key)[:40] for key in list(payload)[:4]]
    return f"a JSON object ({', '.join(keys)})" if keys else "an empty JSON object"
