"""The streaming chat client: httpx against any OpenAI-compatible endpoint, its bodies decoded by `chatterm.decode`.

`ChatClient.stream()` yields typed events and never raises for anything the network or the provider
does: an HTTP error, an error inside the stream, a dropped connection or a read timeout each end the
answer with a `StreamError` after every token received. Retries happen only before the first byte of an
answer (408, 409, 429, 5xx), honour `Retry-After`, and are few and short, so a user never waits long on a
provider that is down. Requests go through chatterm's transport (`chatterm.net.transport`), or through the proxy
the environment names (`chatterm.net.proxies`); redirects are followed only within the endpoint's origin
(`chatterm.net.redirects`). Every event is masked (`chatterm.net.masking`) before it leaves the client: a provider
that echoes a key shows it to no one.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import errno
import random
import socket
from collections.abc import AsyncGenerator, AsyncIterator
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from chatterm.cassette.secrets import known
from chatterm.decode.body import BodyDecoder, body_kind
from chatterm.decode.errors import http_error
from chatterm.events import Event, StreamError, StreamWarning
from chatterm.net.endpoint import Endpoint
from chatterm.net.masking import EventMask, KeyLookup
from chatterm.net.proxies import ProxyRoutes, client_transport, shown
from chatterm.net.recorder import Recorder
from chatterm.net.redirects import RedirectRefused, send_within_origin

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_RETRIES = 2
MAX_WAIT = 8.0
"""The longest wait before a retry; a server asking for longer gets its error shown at once."""
MAX_ERROR_BODY = 1024 * 1024
KEY_LOOKUP_WAIT = 2.0
"""The longest an answer's first event waits for the keyring's keys (a locked keyring may be asking the user)."""


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asked to wait (`Retry-After` as seconds or a date, or `retry-after-ms`)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - dt.datetime.now(dt.UTC)).total_seconds(), 0.0)


def transport_error(exc: Exception, endpoint: Endpoint, started: bool, proxy: str | None = None) -> StreamError:
    """One line saying what went wrong on the network, and what to do; `proxy` is the one the request went
    through, if any (named without its credentials)."""
    host = urlsplit(endpoint.base_url).netloc or endpoint.base_url
    if proxy is not None:
        if isinstance(exc, httpx.ProxyError):
            return StreamError(
                None,
                f"request to {host} failed at the proxy {shown(proxy)}: {exc} "
                "(check HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY)",
                "connect",
            )
        host = f"{host} via the proxy {shown(proxy)}"
    if isinstance(exc, httpx.ConnectTimeout):
        return StreamError(None, f"connecting to {host} timed out after {endpoint.connect_timeout:g} s", "connect")
    if isinstance(exc, httpx.ReadTimeout):
        what = "the answer was cut short" if started else "no answer"
        return StreamError(
            None,
            f"{what}: no data from {host} for {endpoint.read_timeout:g} s (read timeout; raise it with --read-timeout)",
            "timeout",
        )
    if isinstance(exc, httpx.ConnectError):
        return StreamError(None, f"cannot connect to {host}: {_connect_reason(exc)}", "connect")
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        what = "the connection was lost mid-answer" if started else "the connection was closed before an answer"
        return StreamError(None, f"{what} ({host})", "network")
    if isinstance(exc, httpx.UnsupportedProtocol):
        return StreamError(None, f"not an http(s) URL: {endpoint.base_url}", "connect")
    return StreamError(None, f"request to {host} failed: {type(exc).__name__}: {exc}", "network")


def _connect_reason(exc: BaseException) -> str:
    """Why a connection failed, from the first OS-level error in the exception's cause chain."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror) or "name or service" in str(seen).lower():
            return "the host name does not resolve (check the base URL and your network)"
        if isinstance(seen, ConnectionRefusedError) or getattr(seen, "errno", None) == errno.ECONNREFUSED:
            return "connection refused (is the server running?)"
        seen = seen.__cause__ or seen.__context__
    return str(exc) or type(exc).__name__


class ChatClient:
    """Streams chat completions from one endpoint.

    Args:
        endpoint: where to ask.
        recorder: records every exchange (a cassette) when given.
        transport: an httpx transport to use instead of the network (replay, tests); by default
            `chatterm.net.proxies.client_transport()`: chatterm's transport, or a proxy's the environment names.
        secrets: keys to mask besides the endpoint's own (a session's earlier profiles'); the recorder is told them.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        recorder: Recorder | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.endpoint = endpoint
        self.recorder = recorder
        self.secrets = known(endpoint.secrets, secrets)
        self._lookup = KeyLookup(endpoint.find_held_keys) if endpoint.find_held_keys else None
        transport = transport or client_transport()
        self._routes = transport if isinstance(transport, ProxyRoutes) else None
        if recorder is not None:
            recorder.secrets = known(recorder.secrets, self.secrets)
            transport = recorder.transport(transport)
        timeout = httpx.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout)
        self._http = httpx.AsyncClient(transport=transport, timeout=timeout, follow_redirects=False)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def stream(self, messages: list[dict[str, Any]], model: str | None = None) -> AsyncIterator[Event]:
        """The events of one answer, every known secret masked; always ends (never raises for network or provider
        trouble)."""
        mask: EventMask | None = None
        events = self._answer(messages, model)
        try:
            async for event in events:
                if mask is None:  # the first event: the request is out, the keyring has had its moment
                    await self._learn_held_keys()
                    mask = EventMask(self.secrets)
                shown = mask.feed(event)
                if mask.found and self.recorder is not None:
                    self.recorder.deepen()  # the recording holds the key too, maybe spread over several events
                for one in shown:
                    if isinstance(one, StreamError):
                        self._note(one)
                    yield one
            for one in mask.flush() if mask is not None else []:
                yield one
        finally:
            await events.aclose()

    async def _learn_held_keys(self) -> None:
        """Add the keys the keyring lookup found (waiting for it a bounded time, at each answer until it answers)."""
        found = await self._lookup.keys(KEY_LOOKUP_WAIT) if self._lookup is not None else None
        if found is None:
            return
        self._lookup = None
        self.secrets = known(self.secrets, found)
        if self.recorder is not None:
            self.recorder.secrets = known(self.recorder.secrets, self.secrets)

    async def _answer(self, messages: list[dict[str, Any]], model: str | None) -> AsyncGenerator[Event]:
        """The events of one answer as received: retried before its first byte, ended by its first error."""
        body = self.endpoint.request_body(messages, model)
        for attempt in range(MAX_RETRIES + 1):
            started = False
            try:
                request = self._http.build_request(
                    "POST", self.endpoint.chat_url, json=body, headers=self.endpoint.request_headers()
                )
                response = await send_within_origin(self._http, request)
                try:
                    if response.status_code >= 400:
                        error = await self._http_error(response)
                        wait = self._retry_wait(error, attempt)
                        if wait is None:
                            yield error
                            return
                        yield StreamWarning(f"{error.message}; retrying in {wait:.1f} s")
                        await asyncio.sleep(wait)
                        continue
                    decoder = BodyDecoder(
                        body_kind(response.headers.get("content-type")), think_tags=self.endpoint.think_tags
                    )
                    async for chunk in response.aiter_bytes():
                        started = True
                        if decoder.done:
                            continue  # drain to the end, so the recording holds the whole body
                        for event in decoder.feed(chunk):
                            yield event
                    for event in decoder.close():
                        yield event
                    return
                finally:
                    await response.aclose()
            except RedirectRefused as exc:
                yield StreamError(exc.status, str(exc), "redirect")
                return
            except httpx.HTTPError as exc:
                proxy = self._routes.proxy_for(self.endpoint.chat_url) if self._routes is not None else None
                yield transport_error(exc, self.endpoint, started, proxy)
                return

    async def _http_error(self, response: httpx.Response) -> StreamError:
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > MAX_ERROR_BODY:
                break
        return http_error(response.status_code, bytes(data), response.reason_phrase, retry_after(response.headers))

    @staticmethod
    def _retry_wait(error: StreamError, attempt: int) -> float | None:
        if error.status not in RETRY_STATUSES or attempt >= MAX_RETRIES:
            return None
        if error.retry_after is not None:
            return float(error.retry_after) if error.retry_after <= MAX_WAIT else None
        return min(0.5 * 2.0**attempt + random.uniform(0, 0.25), MAX_WAIT)

    def _note(self, error: StreamError) -> None:
        """The error an answer ended with, kept with its exchange (an HTTP error is in its recorded status and body)."""
        if self.recorder is not None and error.kind != "http":
            self.recorder.note_error({"status": error.status, "message": error.message})
