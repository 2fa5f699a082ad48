"""Redirects followed only within the origin a request was configured for.

A request chatterm makes carries the key (`Authorization`, a profile's `x-api-key`, `api-key` or any custom header)
and the conversation. A redirect to another origin (scheme, host or port) is never followed, with or without them:
the answer ends with one line naming where it was sent, so the user can fix the base URL. A redirect within the
origin is followed when it keeps the method and the body (307, 308; any for a GET such as the model list); one that
would follow a POST as a GET without its body (301, 302, 303, as HTTP has them) is refused the same way, since the
server would be asked nothing and its answer would pass for an empty one.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from chatterm.cassette.redact import clean_url

MAX_REDIRECTS = 10
MAX_REDIRECT_BODY = 64 * 1024
DEFAULT_PORTS = {"http": 80, "https": 443}


class RedirectRefused(Exception):
    """A redirect chatterm does not follow; the message is one line for the user."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or DEFAULT_PORTS.get(url.scheme)


def _asked(response: httpx.Response) -> str:
    """The host and port a redirect came from, as the one-line errors name it."""
    _, host, port = origin(response.request.url)
    return f"{host}:{port}"


def refused(response: httpx.Response, target: httpx.URL) -> RedirectRefused:
    return RedirectRefused(
        f"{_asked(response)} redirected to {clean_url(str(target))}, another origin: the key and the conversation were "
        "not sent there (fix the base URL; to that address if you trust it)",
        response.status_code,
    )


def method_changed(response: httpx.Response, target: httpx.Request) -> RedirectRefused:
    """A redirect that would follow a POST as a GET (301, 302, 303), which carries no body: the server would be asked
    nothing, and whatever it answered would pass for an empty answer."""
    where = clean_url(str(target.url))
    return RedirectRefused(
        f"{_asked(response)} redirected ({response.status_code}) to {where} as a {target.method}, which would not "
        "carry the conversation: fix the base URL (to that address if the API moved there)",
        response.status_code,
    )


async def _discard(response: httpx.Response) -> None:
    """Read a redirect's own body (so a recording holds the whole exchange), up to a bound, and close it."""
    read = 0
    try:
        async for chunk in response.aiter_bytes():
            read += len(chunk)
            if read > MAX_REDIRECT_BODY:
                break
    finally:
        await response.aclose()


async def send_within_origin(
    client: httpx.AsyncClient,
    request: httpx.Request,
    on_follow: Callable[[httpx.Response, httpx.Request], None] | None = None,
) -> httpx.Response:
    """The response to a request, following redirects within its origin (the client must not follow them itself).
    `on_follow` is told each redirect just before it is followed (its response, and the request that follows it),
    so a recorder can keep the whole chain as one exchange.

    Raises `RedirectRefused` for a redirect elsewhere or too many; a streamed response is left open to be read."""
    for _ in range(MAX_REDIRECTS + 1):
        response = await client.send(request, stream=True)
        target = response.next_request
        if target is None:
            return response
        await _discard(response)
        if origin(target.url) != origin(request.url):
            raise refused(response, target.url)
        if target.method != request.method:
            raise method_changed(response, target)
        if on_follow is not None:
            on_follow(response, target)
        request = target
    raise RedirectRefused(
        f"{request.url.host} redirected more than {MAX_REDIRECTS} times: fix the base URL", response.status_code
    )
