"""The streaming chat client: httpx against an endpoint of any API chatterm speaks (`chatterm.net.apis`), its bodies
decoded by `chatterm.decode`.

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
import dataclasses
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
from chatterm.events import Content, Event, Reasoning, StreamError, StreamWarning, ToolCallDelta
from chatterm.net.endpoint import Endpoint
from chatterm.net.header_text import header_problem
from chatterm.net.masking import EventMask, KeyLookup
from chatterm.net.proxies import ProxyRoutes, client_transport, shown
from chatterm.net.recorder import Recorder
from chatterm.net.redirects import RedirectRefused, send_within_origin
from chatterm.sentences import then

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_RETRIES = 2
MAX_WAIT = 8.0
"""The longest wait before a retry; a server asking for longer gets its error shown at once."""
MAX_ERROR_BODY = 1024 * 1024
ACCEPT_ENCODING = {"Accept-Encoding": "gzip, deflate"}
"""The content codings asked for: those the recorder undoes as the bytes arrive (see `chatterm.net.recorder`)."""
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
        retries: the most retries of one request (none for a replay: its attempts were recorded).
        secrets: keys to mask besides the endpoint's own (a session's earlier profiles'); the recorder is told them.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        recorder: Recorder | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retries: int = MAX_RETRIES,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.endpoint = endpoint
        self.recorder = recorder
        self.retries = retries
        self.secrets = known(endpoint.secrets, secrets)
        self._lookup = KeyLookup(endpoint.find_held_keys) if endpoint.find_held_keys else None
        transport = transport or client_transport()
        self._routes = transport if isinstance(transport, ProxyRoutes) else None
        if recorder is not None:
            recorder.secrets = known(recorder.secrets, self.secrets)
            transport = recorder.transport(transport)
        timeout = httpx.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout)
        self._http = httpx.AsyncClient(
            transport=transport, timeout=timeout, follow_redirects=False, headers=ACCEPT_ENCODING
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def stream(
        self,
        messages: list[dict[str, Any]],
        model: str | None = None,
        base_url: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> AsyncIterator[Event]:
        """The events of one answer, every known secret masked; always ends (never raises for network or provider
        trouble). `base_url` and `extra` (fields laid over the body) shape one request beyond the endpoint's: a
        continuation in a server's own words (`chatterm.conversation.continuation`)."""
        mask: EventMask | None = None
        events = self._answer(messages, model, base_url, extra or {})
        try:
            async for event in events:
                if mask is None:  # the first event: the request is out, the keyring has had its moment
                    await self._learn_held_keys()
                    mask = EventMask(self.secrets)
                shown = mask.feed(event)
                if mask.found and self.recorder is not None:
                    self.recorder.deepen()  # the recording holds the key too, maybe spread over several events
                for one in shown:
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

    async def _answer(
        self, messages: list[dict[str, Any]], model: str | None, base_url: str | None, extra: dict[str, Any]
    ) -> AsyncGenerator[Event]:
        """The events of one answer as received: retried before its first byte, ended by its first error. A header that
        cannot be sent (a key holding a character no header carries) ends it before any request."""
        unsendable = header_problem(self.endpoint.request_headers())
        if unsendable is not None:
            yield StreamError(
                None, f"{unsendable}; nothing was sent (check the key and the profile's headers)", "request"
            )
            return
        body = {**self.endpoint.request_body(messages, model), **extra}
        url = self.endpoint.url_for(model, base_url)
        for attempt in range(self.retries + 1):
            retry = _Retry()
            async for event in self._attempt(url, body, attempt, retry):
                yield event
            if retry.error is None or retry.wait is None:
                return
            yield StreamWarning(then(retry.error.message, f"retrying in {retry.wait:.1f} s"))
            await asyncio.sleep(retry.wait)

    async def _attempt(self, url: str, body: dict[str, Any], attempt: int, retry: _Retry) -> AsyncIterator[Event]:
        """One request and its answer. An error the provider answers before any of the answer (a 5xx, 429, an
        overload) is left in `retry` when it is worth another attempt, instead of being yielded."""
        first = len(self.recorder.interactions) if self.recorder is not None else 0
        started = shown = False
        try:
            request = self._http.build_request(
                "POST", url, json=body, headers=self.endpoint.request_headers()
            )
            followed = self.recorder.followed if self.recorder is not None else None
            response = await send_within_origin(self._http, request, followed)
            try:
                if response.status_code >= 400:
                    error = await self._http_error(response)
                    if self._retry(retry, error, attempt, first):
                        return
                    yield error
                    return
                decoder = BodyDecoder(
                    body_kind(response.headers.get("content-type")), think_tags=self.endpoint.think_tags
                )
                async for chunk in response.aiter_bytes():
                    started = True
                    if decoder.done:
                        continue  # drain to the end, so the recording holds the whole body
                    for event in decoder.feed(chunk):
                        if isinstance(event, StreamError):
                            if not shown and self._retry(retry, _waited(event, response.headers), attempt, first):
                                return
                            self._note(event, first)
                        shown = shown or isinstance(event, (Content, Reasoning, ToolCallDelta))
                        yield event
                ending = decoder.close()
                verdict = decoder.verdict()  # (the one place an answer is judged whole, cut short or empty)
                for event in ending if verdict is None else [*ending, verdict]:
                    if isinstance(event, StreamError):
                        self._note(event, first)
                    yield event
            finally:
                await response.aclose()
        except RedirectRefused as exc:
            error = StreamError(exc.status, str(exc), "redirect")
            self._note(error, first)
            yield error
        except httpx.HTTPError as exc:
            proxy = self._routes.proxy_for(url) if self._routes is not None else None
            error = transport_error(exc, self.endpoint, started, proxy)
            self._note(error, first)
            yield error

    async def _http_error(self, response: httpx.Response) -> StreamError:
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > MAX_ERROR_BODY:
                break
        return http_error(response.status_code, bytes(data), response.reason_phrase, retry_after(response.headers))

    def _retry(self, retry: _Retry, error: StreamError, attempt: int, first: int) -> bool:
        """Whether `error` is retried (its wait and words kept in `retry`, its exchange marked as retried)."""
        wait = retry_wait(error, attempt, self.retries)
        if wait is None:
            return False
        retry.error, retry.wait = error, wait
        if self.recorder is not None and len(self.recorder.interactions) > first:
            self._note(error, first)
            self.recorder.mark_retried()
        return True

    def _note(self, error: StreamError, first: int) -> None:
        """Keep the error with the exchange of this attempt (`first`: how many exchanges there were before it)."""
        if self.recorder is not None and len(self.recorder.interactions) > first:
            self.recorder.note_error({"status": error.status, "message": error.message})


class _Retry:
    """What an attempt that is to be retried ended with, and how long to wait."""

    def __init__(self) -> None:
        self.error: StreamError | None = None
        self.wait: float | None = None


def retry_wait(error: StreamError, attempt: int, retries: int = MAX_RETRIES) -> float | None:
    """Seconds to wait before retrying after `error` on the given attempt (from 0), or None: not retried."""
    if (error.status not in RETRY_STATUSES and error.kind != "overloaded") or attempt >= retries:
        return None
    if error.retry_after is not None:
        return float(error.retry_after) if error.retry_after <= MAX_WAIT else None
    return min(0.5 * 2.0**attempt + random.uniform(0, 0.25), MAX_WAIT)


def _waited(error: StreamError, headers: httpx.Headers) -> StreamError:
    """An error inside a stream, with the Retry-After its response carried."""
    return dataclasses.replace(error, retry_after=retry_after(headers)) if error.retry_after is None else error
