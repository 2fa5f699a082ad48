"""Which API a recorded turn speaks and which API a request to `serve` asks in, and errors in each API's own shape.

`serve` answers chat completions from any recording, and each native API (Anthropic Messages, Gemini, OpenAI's
Responses) on its own path for a recording of that API, so a client gets back what the provider sent it. A turn's
API is told by the path it was sent to, which is what a provider routes on; a turn recorded without its request (a
raw SSE capture) by the shape of its answer. A request on a native path for a recording of another API is answered
with an error a client of that API reads: its status and its words say which paths serve this recording.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from chatterm.cassette.model import Interaction
from chatterm.decode.anthropic import is_anthropic
from chatterm.decode.body import SSE
from chatterm.decode.errors import words_of
from chatterm.decode.gemini import is_gemini
from chatterm.decode.responses import is_responses
from chatterm.decode.safejson import loads
from chatterm.decode.sse import EventAssembler, LineSplitter
from chatterm.events import StreamError

OPENAI, ANTHROPIC, GEMINI, RESPONSES, OTHER = "openai", "anthropic", "gemini", "responses", "other"
NATIVE = (ANTHROPIC, GEMINI, RESPONSES)
NAMES = {
    OPENAI: "chat completions",
    ANTHROPIC: "Anthropic Messages API",
    GEMINI: "Gemini API",
    RESPONSES: "OpenAI Responses API",
    OTHER: "another API",
}
PATHS = {
    OPENAI: "/v1/chat/completions",
    ANTHROPIC: "/v1/messages",
    GEMINI: "/v1beta/models/{model}:streamGenerateContent (or :generateContent)",
    RESPONSES: "/v1/responses",
}
GEMINI_METHODS = (":streamGenerateContent", ":generateContent")
WHOLE, ARRAY = "whole", "array"
"""How a native request wants its answer, besides streamed (`SSE`): whole, or (a Gemini stream without `alt=sse`)
as a JSON array of chunks."""
ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
GEMINI_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def path_api(path: str) -> str | None:
    """The API a request path asks in (its query left out), or None for a path no API of `serve` has."""
    if path.endswith("/chat/completions"):
        return OPENAI
    if path.endswith("/messages"):
        return ANTHROPIC
    if path.endswith(GEMINI_METHODS):
        return GEMINI
    if path.endswith("/responses"):
        return RESPONSES
    return None


def turn_api(interaction: Interaction) -> str:
    """The API a recorded turn speaks: from the path it was sent to, else from the shape of its answer."""
    if interaction.request is not None and interaction.request.url:
        return path_api(urlsplit(interaction.request.url).path.rstrip("/")) or OTHER
    return _answer_api(interaction.response.body)


def _answer_api(body: bytes) -> str:
    """The API of an answer recorded without its request, from its first JSON object."""
    text = body.decode("utf-8", "replace")
    if text.lstrip()[:1] in ("{", "["):
        datas = [text]
    else:
        lines = LineSplitter()
        events = EventAssembler().feed(lines.feed(text) + lines.flush())
        datas = [event.data for event in events if event.data.strip() and event.data.strip() != "[DONE]"][:1]
    try:
        payload = loads(datas[0]) if datas else None
    except ValueError:
        return OPENAI
    payload = payload[0] if isinstance(payload, list) and payload else payload
    if not isinstance(payload, dict):
        return OPENAI
    if is_responses(payload):
        return RESPONSES
    if is_anthropic(payload):
        return ANTHROPIC
    return GEMINI if is_gemini(payload) else OPENAI


def wrong_path(held: set[str], asked: str) -> str:
    """Why a recording is not served on the path of `asked`, and where it is."""
    native = sorted(api for api in held if api in NATIVE)
    where = [PATHS[api] for api in native] + [PATHS[OPENAI]]
    holds = " and ".join(NAMES[api] for api in sorted(held)) or "no"
    return f"this recording holds {holds} answers, not {NAMES[asked]} ones: ask on {' or '.join(where)}"


def error_payload(api: str, status: int, message: str, kind: str | None = None) -> dict[str, Any]:
    """An error in `api`'s own shape (`kind`: the provider's type of error, when it is known)."""
    if api == ANTHROPIC:
        named = kind or ANTHROPIC_ERRORS.get(status, "api_error")
        return {"type": "error", "error": {"type": named, "message": message}}
    if api == GEMINI:
        return {"error": {"code": status, "message": message, "status": GEMINI_STATUSES.get(status, "INTERNAL")}}
    named = kind or ("invalid_request_error" if 400 <= status < 500 else "server_error")
    return {"error": {"message": message, "type": named, "param": None, "code": None}}


def is_error_of(api: str, payload: Any) -> bool:
    """Whether a recorded error body is already in `api`'s own shape (then it is sent as it was recorded)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("error"), dict):
        return False
    inner = payload["error"]
    if api == ANTHROPIC:
        return payload.get("type") == "error" and isinstance(inner.get("message"), str)
    if api == GEMINI:
        return isinstance(inner.get("code"), int) and isinstance(inner.get("message"), str)
    return isinstance(inner.get("message"), str) and payload.get("type") != "error"


def request_shape(api: str, path: str, query: str, body: dict[str, Any]) -> str:
    """How a native request wants its answer: `SSE`, `ARRAY` or `WHOLE` (Gemini says it by the method it calls,
    the others by `stream`)."""
    if api == GEMINI:
        if not path.endswith(":streamGenerateContent"):
            return WHOLE
        return SSE if "alt=sse" in query.split("&") else ARRAY
    return SSE if body.get("stream") is True else WHOLE


def http_error_body(api: str, recorded: bytes, error: StreamError) -> dict[str, Any]:
    """A recorded HTTP error's body: as it was recorded when it is in the API's own shape, else in its words."""
    try:
        payload = loads(recorded)
    except ValueError:
        payload = None
    if is_error_of(api, payload):
        return dict(payload)
    return error_payload(api, error.status or 500, words_of(error))
