"""Keep secrets out of every file chatterm writes.

Headers are kept by an allow-list (as go-vcr users do): anything not known to be harmless is dropped, so a
provider's new auth header can never leak. Key-like query parameters are masked, and any key string the
caller knows is replaced wherever it appears.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from chatterm.cassette.model import Headers, Interaction, Request

MASK = "REDACTED"

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
    for secret in secrets:
        if secret and len(secret) >= 6:
            text = text.replace(secret, MASK)
    return text


def scrub_bytes(data: bytes, secrets: tuple[str, ...]) -> bytes:
    for secret in secrets:
        if secret and len(secret) >= 6:
            data = data.replace(secret.encode(), MASK.encode())
    return data


def clean_request(request: Request, secrets: tuple[str, ...] = ()) -> Request:
    return Request(
        method=request.method,
        url=clean_url(request.url, secrets),
        headers=clean_headers(request.headers, secrets),
        body=scrub_bytes(request.body, secrets),
    )


def clean_interaction(interaction: Interaction, secrets: tuple[str, ...] = ()) -> Interaction:
    """A copy of an interaction that is safe to write to disk."""
    response = interaction.response
    cleaned = type(response)(
        status=response.status,
        headers=clean_headers(response.headers, secrets),
        body=scrub_bytes(response.body, secrets),
        reason=response.reason,
        offsets=response.offsets,
        duration=response.duration,
        error=response.error,
    )
    request = clean_request(interaction.request, secrets) if interaction.request else None
    return Interaction(request=request, response=cleaned, meta=dict(interaction.meta), note=interaction.note)
