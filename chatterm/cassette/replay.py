"""Play recorded answers back: byte for byte, at the recorded pace times a speed factor, or at once.

The same matching and pacing back `chatterm serve`, the in-process `demo` profile and `chatterm replay`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any, TypeVar

import httpx

from chatterm.cassette.exchange import answering
from chatterm.cassette.model import Interaction, Recording, Response, conversation_of
from chatterm.cassette.timing import schedule

T = TypeVar("T")


class Matcher:
    """Chooses the recorded answer for a request: the turn whose request sends the same messages (one not played
    yet first, else one played already: a request asked again, as a retry or a second test run does, gets its own
    turn again), else the next turn not played yet, in the file's order.

    When every turn has been played, the order starts over. A turn is played as the exchange that answered it (the
    attempts a retry superseded stay in the file unplayed), and only chat turns are: the other calls a cassette
    holds (a model list, embeddings) answer no chat request.
    """

    def __init__(self, recording: Recording) -> None:
        self._interactions = answering(recording.interactions)
        self._played: set[int] = set()

    def match(self, body: Any) -> Interaction | None:
        if not self._interactions:
            return None
        if len(self._played) >= len(self._interactions):
            self._played.clear()
        wanted = conversation_of(body) or None
        turns = enumerate(self._interactions)
        same = [i for i, turn in turns if wanted and turn.request and turn.request.messages == wanted]
        fresh = [i for i in same if i not in self._played]
        chosen = fresh[0] if fresh else same[0] if same else None
        if chosen is None:
            chosen = next(i for i in range(len(self._interactions)) if i not in self._played)
        self._played.add(chosen)
        return self._interactions[chosen]


async def paced(response: Response, speed: float = 1.0, instant: bool = False) -> AsyncIterator[bytes]:
    """The body of a recorded response, piece by piece, each at its recorded time divided by `speed`."""
    async for piece in at_pace(schedule(response), speed, instant):
        yield piece


async def at_pace(timed: list[tuple[float, T]], speed: float = 1.0, instant: bool = False) -> AsyncIterator[T]:
    """Each item at its time (seconds from now) divided by `speed`; all at once when `instant`."""
    started = time.monotonic()
    for at, item in timed:
        if not instant and speed > 0:
            delay = started + at / speed - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        yield item


class _PacedStream(httpx.AsyncByteStream):
    def __init__(self, response: Response, speed: float, instant: bool) -> None:
        self._response, self._speed, self._instant = response, speed, instant

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for piece in paced(self._response, self._speed, self._instant):
            yield piece


class ReplayTransport(httpx.AsyncBaseTransport):
    """An httpx transport that answers every request from a recording, at its pace."""

    def __init__(self, recording: Recording, speed: float = 1.0, instant: bool = False) -> None:
        self.matcher = Matcher(recording)
        self.speed = speed
        self.instant = instant

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            body = json.loads(await request.aread() or b"null")
        except ValueError:
            body = None
        interaction = self.matcher.match(body)
        if interaction is None:
            return httpx.Response(404, json={"error": {"message": "the recording holds no answers"}})
        recorded = interaction.response
        headers = [(k, v) for k, values in recorded.headers.items() for v in values]
        headers = [(k, v) for k, v in headers if k.lower() not in ("content-length", "transfer-encoding")]
        return httpx.Response(
            status_code=recorded.status or 200,
            headers=headers or [("content-type", "text/event-stream")],
            stream=_PacedStream(recorded, self.speed, self.instant),
        )
