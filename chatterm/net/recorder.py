"""Record HTTP exchanges as they flow, inside the httpx transport.

The recorder tees the response bytes: the caller gets every chunk the moment it arrives (vcrpy's own httpx
stub reads the whole body first, which would stall a live stream). Each chunk is stamped with its time
offset from the request (when it was received from the network, as chatterm's network layer tells it, not when
it was read: within `chatterm.net.sockets.GATHER` of its arrival). Secrets never stay in what is kept: the request
is cleaned before it is kept, and the response body as it grows (`BodyMask`: a key cut across network pieces is
masked whole), with its event offsets moved onto the masked body. Once the client has seen a key in what the body
decodes to, it asks for the body to be read deep (`deepen`), so a key spread over several events is masked in each
of them too.
A redirect within the origin that the client follows (`followed`) is no exchange of its own: the exchange keeps the
request as first sent (what was asked), takes the response of the request that followed it (what answered), and
notes each redirect under `redirects` (its status, and the method and address it led to).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from chatterm.cassette.bodymask import BodyMask
from chatterm.cassette.coding import Inflater
from chatterm.cassette.model import Headers, Interaction, Recording, Request, Response, without_headers
from chatterm.cassette.redact import clean_request, clean_url
from chatterm.cassette.secrets import known, mask_text
from chatterm.cassette.summary import RETRIED
from chatterm.cassette.timing import EventTimes
from chatterm.decode.body import body_kind
from chatterm.net.sockets import AsyncioStream

STOPPED = "the answer was stopped before it ended"
INCOMPLETE = "the answer was still streaming when this was saved"
"""Marks a snapshot taken mid-answer; if the process dies, the file says the answer was cut short."""
REDIRECTS = "redirects"
"""The redirects an exchange's request followed, in its notes (`meta`)."""
FLUSH_INTERVAL = 1.0
"""Seconds between the snapshots of a streaming response (a crash loses at most this much of it)."""


def _headers(headers: httpx.Headers) -> Headers:
    result: Headers = {}
    for name, value in headers.multi_items():
        result.setdefault(name, []).append(value)
    return result


class Recorder:
    """Collects the exchanges of one session.

    Args:
        on_update: called with the recorder when an exchange completes, and at most every
            `flush_interval` seconds (FLUSH_INTERVAL by default) while a response streams, so a crash loses (almost)
            nothing.
        secrets: the keys to mask wherever they appear (a session adds those of each profile it switches to).
        on_exchange: called with each new exchange as it is added, before it is saved (a session notes its place
            in the conversation there, so that even a snapshot taken mid-answer has it).
    """

    def __init__(
        self,
        on_update: Callable[[Recorder], None] | None = None,
        flush_interval: float | None = None,
        secrets: tuple[str, ...] = (),
        recording_format: str = "vcr",
        on_exchange: Callable[[Interaction], None] | None = None,
    ) -> None:
        self.recording = Recording(format=recording_format)
        self.on_update = on_update
        self.on_exchange = on_exchange
        self.flush_interval = FLUSH_INTERVAL if flush_interval is None else flush_interval
        self.secrets = secrets
        self._capture: _Capture | None = None
        self._following: Interaction | None = None
        """The exchange whose redirect is being followed: the next response answers it."""

    @property
    def interactions(self) -> list[Interaction]:
        return self.recording.interactions

    def transport(self, inner: httpx.AsyncBaseTransport | None = None) -> RecordingTransport:
        return RecordingTransport(self, inner or httpx.AsyncHTTPTransport())

    def add(self, interaction: Interaction) -> None:
        """Keep a new exchange (told to `on_exchange`)."""
        self.interactions.append(interaction)
        if self.on_exchange is not None:
            self.on_exchange(interaction)

    def note_error(self, error: dict[str, Any]) -> None:
        """Attach the reason an answer ended early (the client knows it best) to the last exchange."""
        if self.interactions:
            message = error.get("message")
            if isinstance(message, str):
                error = {**error, "message": mask_text(message, self.secrets)}
            self.interactions[-1].response.error = error
            self.updated()

    def followed(self, redirect: httpx.Response, target: httpx.Request) -> None:
        """The last exchange's redirect is followed by `target`: noted, and the next response made its answer."""
        if self.interactions:
            last = self.interactions[-1]
            url = clean_url(str(target.url), self.secrets)
            last.meta.setdefault(REDIRECTS, []).append(
                {"status": redirect.status_code, "method": target.method, "url": url}
            )
            self._following = last

    def mark_retried(self) -> None:
        """Mark the last exchange as an attempt that was retried: the next one answers the same turn."""
        if self.interactions:
            self.interactions[-1].meta[RETRIED] = True

    def deepen(self) -> None:
        """Mask the body of the latest exchange by its strings too, from its start (see `BodyMask`)."""
        capture = self._capture
        if capture is not None and not capture.mask.deep:
            capture.mask.deep = True
            capture.sync()
            self.updated()

    def updated(self) -> None:
        if self.on_update is not None:
            self.on_update(self)


def _now(chunk: bytes) -> float:
    """When a chunk read from a network layer that does not say when it arrived (httpx's own) arrived: now."""
    return time.monotonic()


class _Capture:
    """The body of one response as it arrives, inflated when it came compressed (`inflater`)."""

    def __init__(
        self,
        recorder: Recorder,
        interaction: Interaction,
        started: float,
        clock: Callable[[bytes], float],
        inflater: Inflater | None = None,
    ) -> None:
        self.recorder = recorder
        self.inflater = inflater
        self.clock = clock
        """When the last byte of a chunk just read arrived."""
        self.interaction = interaction
        self.started = started
        self.body = bytearray()
        self.mask = BodyMask(recorder.secrets)
        self.chunks: list[tuple[float, int]] = []
        self.times = EventTimes()
        self.complete = False
        self.closed = False
        self.last_flush = started

    def add(self, chunk: bytes) -> None:
        now = time.monotonic()
        arrived = self.clock(chunk)
        if self.inflater is not None:
            chunk = self.inflater.feed(chunk)
        if chunk:
            self.body += chunk
            self.chunks.append((arrived - self.started, len(self.body)))
        if now - self.last_flush >= self.recorder.flush_interval:
            self.last_flush = now
            self.sync()
            if self.interaction.response.error is None:
                self.interaction.response.error = {"status": None, "message": INCOMPLETE}
            self.recorder.updated()

    def sync(self) -> None:
        response = self.interaction.response
        if self.mask.keys != known(self.recorder.secrets):  # keys learnt since: mask from the start again
            self.mask = BodyMask(self.recorder.secrets, deep=self.mask.deep)
        body = bytes(self.body)
        kind = body_kind(response.content_type, body[:64])
        offsets = self.times.update(self.chunks, body, kind)
        response.body = self.mask.update(body, final=self.closed)
        if self.mask.changed:
            offsets = [(at, self.mask.position(end)) for at, end in offsets]
        response.offsets = offsets or None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.inflater is not None:
            self.body += self.inflater.flush()
        self.sync()
        response = self.interaction.response
        if response.error is not None and response.error.get("message") == INCOMPLETE:
            response.error = None
        if not self.complete and response.error is None:
            response.error = {"status": None, "message": STOPPED}
        self.recorder.updated()


class _TeeStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, capture: _Capture) -> None:
        self._inner = inner
        self._capture = capture

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._capture.add(chunk)
            yield chunk
        self._capture.complete = True

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._capture.close()


class RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(self, recorder: Recorder, inner: httpx.AsyncBaseTransport) -> None:
        self._recorder = recorder
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()  # (a redirect's request holds the body it follows with, unread)
        kept = Request(method=request.method, url=str(request.url), headers=_headers(request.headers), body=body)
        following, self._recorder._following = self._recorder._following, None
        started = time.monotonic()
        try:
            response = await self._inner.handle_async_request(request)
        except Exception as exc:
            # No answer at all (refused, a TLS failure, no headers before the read timeout): the request is kept
            # with a response that has no status; the client notes its own words for the error over these.
            failed = Response(status=None, error={"status": None, "message": f"{type(exc).__name__}: {exc}"})
            if following is None:
                self._recorder.add(Interaction(clean_request(kept, self._recorder.secrets), failed))
            else:
                following.response = failed
            self._recorder.updated()
            raise
        headers = _headers(response.headers)
        coding = response.headers.get("content-encoding", "")
        inflater = Inflater(coding) if Inflater.handles(coding) else None
        if inflater is not None:  # kept as the client reads it: inflated, so a body cut short still reads
            headers = without_headers(headers, "content-encoding", "content-length")
        answer = Response(status=response.status_code, headers=headers, reason=_reason(response))
        if following is None:
            interaction = Interaction(request=clean_request(kept, self._recorder.secrets), response=answer)
            self._recorder.add(interaction)
        else:
            interaction = following
            interaction.response = answer
        stream = response.extensions.get("network_stream")
        clock = stream.arrival if isinstance(stream, AsyncioStream) else _now
        capture = self._recorder._capture = _Capture(self._recorder, interaction, started, clock, inflater)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_TeeStream(response.stream, capture),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _reason(response: httpx.Response) -> str:
    phrase = response.extensions.get("reason_phrase", b"")
    return phrase.decode("ascii", "replace") if isinstance(phrase, bytes) else str(phrase)
