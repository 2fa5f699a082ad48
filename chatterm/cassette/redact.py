"""Keep secrets out of every file chatterm writes: every writer renders what `clean_interaction` returns.

Headers are kept by an allow-list (as go-vcr users do): anything not known to be harmless is dropped, so a
provider's new auth header can never leak. Key-like query parameters are masked, and every key the caller knows is
masked wherever it appears, in any of its forms (`chatterm.cassette.secrets`): in the URL, the headers kept, both
bodies, the error an answer ended with and chatterm's own notes.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from chatterm.cassette.bodymask import mask_body
from chatterm.cassette.model import Headers, Interaction, Request, Response
from chatterm.cassette.secrets import MASK, byte_forms, mask_bytes, mask_text

__all__ = ["MASK", "clean_headers", "clean_interaction", "clean_request", "clean_url"]

ALLOWED_HEADERS = frozenset(
    {
        "accept",
        "anthropic-version",
        "cache-control",
        "content-type",
        "date",
        "openai-model",
        "openai-processing-ms",
        "openai-version",
        "request-id",
        "retry-after",
        "retry-after-ms",
        "user-agent",
        "x-request-id",
    }
)
ALLOWED_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-", "ratelimit-")

SECRET_PARAMS = frozenset(
    {"key", "api_key", "api-key", "apikey", "access_token", "token", "auth", "sig", "signature", "x-goog-api-key"}
)


def allowed(name: str) -> bool:
    lowered = name.lower()
    return lowered in ALLOWED_HEADERS or lowered.startswith(ALLOWED_PREFIXES)


def clean_headers(headers: Headers, secrets: tuple[str, ...] = ()) -> Headers:
    return {name: [scrub(v, secrets) for v in values] for name, values in headers.items() if allowed(name)}


def clean_url(url: str, secrets: tuple[str, ...] = ()) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]  # user:password@host
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if k.lower() in SECRET_PARAMS else v) for k, v in pairs], safe=":/")
    return scrub(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), secrets)


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    return mask_text(text, secrets)


def _scrub_value(value: Any, secrets: tuple[str, ...]) -> Any:
    """A JSON-like value (an error, chatterm's notes) with every string in it masked."""
    if isinstance(value, str):
        return mask_text(value, secrets)
    if isinstance(value, dict):
        return {key: _scrub_value(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub_value(item, secrets) for item in value]
    return value


def clean_response(response: Response, secrets: tuple[str, ...] = ()) -> Response:
    """A copy of a response without the secrets; its event offsets follow the body where a mask changed it."""
    body, offsets = response.body, response.offsets
    if any(form in body for form in byte_forms(secrets)):
        body, mask = mask_body(body, secrets)
        offsets = [(at, mask.position(end)) for at, end in offsets] if offsets else offsets
    return type(response)(
        status=response.status,
        headers=clean_headers(response.headers, secrets),
        body=body,
        reason=mask_text(response.reason, secrets),
        offsets=offsets,
        duration=response.duration,
        error=_scrub_value(response.error, secrets),
    )


def clean_request(request: Request, secrets: tuple[str, ...] = ()) -> Request:
    return Request(
        method=request.method,
        url=clean_url(request.url, secrets),
        headers=clean_headers(request.headers, secrets),
        body=mask_bytes(request.body, secrets),
    )


def clean_interaction(interaction: Interaction, secrets: tuple[str, ...] = ()) -> Interaction:
    """A copy of an interaction that is safe to write to disk."""
    request = clean_request(interaction.request, secrets) if interaction.request else None
    return Interaction(
        request=request,
        response=clean_response(interaction.response, secrets),
        meta=_scrub_value(dict(interaction.meta), secrets),
        note=mask_text(interaction.note, secrets) if interaction.note else interaction.note,
    )
