"""The events of an answer with every known secret masked, before anything shows, prints, exports or keeps them.

Text streams (the answer, the reasoning, each tool call's arguments) are masked piece by piece, so a key a provider
sends across several events is masked whole: the end of a piece that could be the start of a key waits for the next
piece of its stream, or for the answer's finish, error or end. Messages (warnings, errors, a model name) are masked
whole. `found` tells that a key was masked, so the recording of the answer can be masked as deep.

Keys a keyring holds are looked up in a thread (`KeyLookup`): a keyring can take a moment to answer, and the
answer's first event can wait for it while its request goes out.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace

from chatterm.cassette.secrets import TextMask, mask_text
from chatterm.events import (
    Content,
    Event,
    Finish,
    ModelName,
    Reasoning,
    StreamError,
    StreamWarning,
    ToolCallDelta,
)

_Stream = tuple[str, int]
"""Which text stream: ("content", 0), ("reasoning", 0) or ("tool", index)."""


class EventMask:
    """Masks the events of one answer (see the module's docstring)."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self.secrets = secrets
        self._streams: dict[_Stream, TextMask] = {}
        self._found = False

    @property
    def found(self) -> bool:
        """A key was masked in what was fed."""
        return self._found or any(stream.found for stream in self._streams.values())

    def text(self, text: str) -> str:
        masked = mask_text(text, self.secrets)
        self._found = self._found or masked != text
        return masked

    def feed(self, event: Event) -> list[Event]:
        """The events to pass on for one event received (none while all its text waits)."""
        if not self.secrets:
            return [event]
        if isinstance(event, Content):
            return self._piece(("content", 0), event)
        if isinstance(event, Reasoning):
            return self._piece(("reasoning", 0), event)
        if isinstance(event, ToolCallDelta):
            call = replace(
                event,
                id=self.text(event.id) if event.id else event.id,
                name=self.text(event.name) if event.name else event.name,
                arguments="",
            )
            arguments = self._stream(("tool", event.index)).feed(event.arguments)
            return [replace(call, arguments=arguments)] if arguments or call.id or call.name else []
        if isinstance(event, (Finish, StreamError)):
            return [*self.flush(), self._masked(event)]
        return [self._masked(event)]

    def flush(self) -> list[Event]:
        """What every text stream still holds, as events (at the answer's finish, error or end)."""
        events: list[Event] = []
        for (kind, index), stream in self._streams.items():
            held = stream.flush()
            if not held:
                continue
            if kind == "content":
                events.append(Content(held))
            elif kind == "reasoning":
                events.append(Reasoning(held))
            else:
                events.append(ToolCallDelta(index, arguments=held))
        return events

    def _stream(self, which: _Stream) -> TextMask:
        stream = self._streams.get(which)
        if stream is None:
            stream = self._streams[which] = TextMask(self.secrets)
        return stream

    def _piece(self, which: _Stream, event: Content | Reasoning) -> list[Event]:
        shown = self._stream(which).feed(event.text)
        if shown == event.text:
            return [event]
        if not shown:
            return []
        return [Content(shown)] if which[0] == "content" else [Reasoning(shown)]

    def _masked(self, event: Event) -> Event:
        if isinstance(event, (StreamWarning, StreamError)):
            return replace(event, message=self.text(event.message))
        if isinstance(event, ModelName):
            return ModelName(self.text(event.model))
        return event


class KeyLookup:
    """Keys found in a thread of their own, started at once; `keys` waits for them, a bounded time."""

    def __init__(self, find: Callable[[], tuple[str, ...]]) -> None:
        self._found: Future[tuple[str, ...]] = Future()
        threading.Thread(target=self._run, args=(find,), name="chatterm-keys", daemon=True).start()

    def _run(self, find: Callable[[], tuple[str, ...]]) -> None:
        try:
            self._found.set_result(find())
        except Exception:
            self._found.set_result(())

    async def keys(self, wait: float) -> tuple[str, ...] | None:
        """The keys found, or None when the lookup has not answered within `wait` seconds (ask again later)."""
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self._found)), wait)
        except TimeoutError:
            return None
