"""Turn providers' error answers into one readable line, in the provider's own words.

Shapes understood: OpenAI / Groq / Mistral / DeepSeek `{"error": {"message", "type", "code"}}`, Anthropic
`{"type": "error", "error": {"type", "message"}}`, Google `{"error": {"code", "message", "status"}}` (also
wrapped in a list), OpenRouter's `metadata.raw` with the upstream provider's words, FastAPI-style
`{"detail": ...}`, llama-stack's `{"message": ...}`, and plain text.
"""

from __future__ import annotations

import re
from typing import Any

from chatterm.decode.safejson import loads
from chatterm.events import StreamError

_MAX_WORDS = 500
_PREFIX = re.compile(r"^(?:HTTP \d+|error(?: \d+)? in stream): ")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_WORDS else text[: _MAX_WORDS - 1] + "…"


def error_words(payload: Any) -> str | None:
    """The human words inside a decoded error payload, or None when it holds none."""
    if isinstance(payload, list) and payload:
        return error_words(payload[0])
    if isinstance(payload, str):
        return _clip(payload) if payload.strip() else None
    if not isinstance(payload, dict):
        return None
    inner = payload.get("error")
    if isinstance(inner, str):
        return _clip(inner)
    if isinstance(inner, dict):
        message = inner.get("message")
        words = str(message) if message not in (None, "") else None
        if words is None:
            words = str(inner.get("type") or inner.get("code") or "") or None
        metadata = inner.get("metadata")
        raw = metadata.get("raw") if isinstance(metadata, dict) else None
        if isinstance(raw, str) and raw.strip():
            provider = metadata.get("provider_name") if isinstance(metadata, dict) else None
            upstream = f"{provider}: {raw}" if provider else raw
            words = f"{words} ({upstream})" if words else upstream
        return _clip(words) if words else None
    for key in ("message", "detail", "error_message"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return _clip(value)
        if isinstance(value, (dict, list)):
            found = error_words(value)
            if found:
                return found
    return None


CODE_STATUSES = {"server_error": 500, "rate_limit_exceeded": 429}
"""The Responses API's error codes (words, not numbers) for the HTTP statuses they stand for, so that such an error
before the answer is retried as the status would be."""


def error_code(payload: Any) -> int | None:
    """A numeric error code inside an error payload (OpenRouter and Google carry the HTTP status; the Responses API
    names it, see `CODE_STATUSES`)."""
    if isinstance(payload, dict):
        inner = payload.get("error")
        for where in (inner, payload) if isinstance(inner, dict) else (payload,):
            for key in ("code", "status_code", "status"):
                value = where.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
                    return value
                if key == "code" and isinstance(value, str) and value in CODE_STATUSES:
                    return CODE_STATUSES[value]
    return None


def is_error_payload(payload: Any) -> bool:
    """True for a JSON object that reports an error rather than carrying an answer."""
    if not isinstance(payload, dict):
        return False
    if payload.get("type") == "error":
        return True
    return payload.get("error") not in (None, "", {})


def is_overloaded(payload: Any) -> bool:
    """True for Anthropic's `overloaded_error`: the provider is busy, a retry may well succeed."""
    inner = payload.get("error") if isinstance(payload, dict) else None
    return isinstance(inner, dict) and inner.get("type") == "overloaded_error"


def http_error(status: int, body: bytes, reason: str = "", retry_after: float | None = None) -> StreamError:
    """The error for an HTTP answer with a 4xx/5xx status."""
    text = body.decode("utf-8", "replace")
    words: str | None = None
    kind = "http"
    try:
        payload = loads(text)
    except ValueError:
        words = _clip(text) if text.strip() and "<html" not in text[:200].lower() else None
    else:
        words = error_words(payload)
        kind = "overloaded" if is_overloaded(payload) else kind
    if not words:
        words = reason or "no details given"
    return StreamError(status=status, message=f"HTTP {status}: {words}", kind=kind, retry_after=retry_after)


def stream_error(payload: Any) -> StreamError:
    """The error for an error object that arrived inside a stream."""
    words = error_words(payload) or "the provider reported an error"
    code = error_code(payload)
    prefix = f"error {code} in stream" if code else "error in stream"
    kind = "overloaded" if is_overloaded(payload) else "stream"
    return StreamError(status=code, message=f"{prefix}: {words}", kind=kind)


def words_of(error: StreamError) -> str:
    """The provider's own words in an error made by `http_error` or `stream_error` (without the status they add),
    for passing the error on in another API's shape; any other error's message as it is."""
    return _PREFIX.sub("", error.message, count=1) if error.kind in ("http", "stream", "overloaded") else error.message
