"""A loopback server that streams answers exactly as a test scripts them: which bytes, cut where, sent when.

`ScriptedServer.answers` holds one script per request, in order (the last one is repeated): a list of (seconds to
wait, bytes to send) pieces, each sent as one write, so a piece boundary is where the client's reads may split
the stream. In place of the seconds, an `asyncio.Event` holds the piece back until the test sets it (a test that
looks at the screen mid-answer, without timing; `HeldServer` carries one). `sse_script` makes a script of an OpenAI
chat stream from reasoning and answer text cut at given points. `ScriptedServer.refusals` answers chosen requests
with an HTTP error instead.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

Script = list[tuple[float | asyncio.Event, bytes]]


def _chunk(content: str | None = None, reasoning: str | None = None, finish: str | None = None) -> bytes:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    payload = {"model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"


def pieces(text: str, cuts: Sequence[int]) -> list[str]:
    """`text` cut at the given offsets (taken modulo its length, in order, repeats ignored)."""
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def sse_script(
    answer: str,
    reasoning: str = "",
    answer_cuts: Sequence[int] = (),
    reasoning_cuts: Sequence[int] = (),
    gaps: Sequence[float] = (0.0,),
    byte_cuts: Sequence[int] = (),
) -> Script:
    """An OpenAI chat stream of `reasoning` then `answer`, one event per piece of text (cut at the given points),
    the events' bytes then cut at `byte_cuts` (anywhere, inside an event or a UTF-8 character too), each piece sent
    after the next of `gaps` (cycled)."""
    events = [_chunk(reasoning=part) for part in pieces(reasoning, reasoning_cuts)] if reasoning else []
    events += [_chunk(content=part) for part in pieces(answer, answer_cuts)] if answer else []
    body = b"".join(events) + _chunk(finish="stop") + b"data: [DONE]\n\n"
    if byte_cuts:
        points = sorted({0, len(body), *(cut % (len(body) + 1) for cut in byte_cuts)})
        parts = [body[a:b] for a, b in itertools.pairwise(points) if b > a]
    else:
        parts = [*events, _chunk(finish="stop") + b"data: [DONE]\n\n"]
    return [(gaps[n % len(gaps)], part) for n, part in enumerate(parts)]


@dataclass
class ScriptedServer:
    answers: list[Script] = field(default_factory=list)
    requests: list[Any] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    """The path each request was sent to, in order."""
    refusals: dict[int, tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)
    """Requests (numbered from 1) answered with an HTTP error: its status, JSON body and headers."""
    port: int = 0
    _server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            self.paths.append(head.split(b" ", 2)[1].decode())
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length) if length else b""
            self.requests.append(json.loads(body) if body else None)
            if len(self.requests) in self.refusals:
                await self._refuse(writer, *self.refusals[len(self.requests)])
                return
            script = self.answers[min(len(self.requests), len(self.answers)) - 1] if self.answers else []
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                b"Connection: close\r\n\r\n"
            )
            await writer.drain()
            for wait, data in script:
                if isinstance(wait, asyncio.Event):
                    await wait.wait()
                elif wait:
                    await asyncio.sleep(wait)
                writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _refuse(self, writer: asyncio.StreamWriter, status: int, body: bytes, headers: dict[str, str]) -> None:
        lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "Content-Type: application/json"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines += [f"Content-Length: {len(body)}", "Connection: close"]
        writer.write("\r\n".join(lines).encode() + b"\r\n\r\n" + body)
        await writer.drain()


@dataclass
class HeldServer(ScriptedServer):
    """A scripted server with an event of its own for its scripts to wait on (`go_on`, set once the test has done what
    it does mid-answer); the test's teardown sets it too, so no answer is left waiting."""

    go_on: asyncio.Event = field(default_factory=asyncio.Event)

    def held(self, answer: str, cut: int) -> Script:
        """`answer` up to `cut` at once, the rest once `go_on` is set."""
        first, rest, end = sse_script(answer, answer_cuts=[cut])
        return [first, (self.go_on, rest[1]), end]


def cut_by_length(text: str, reasoning: str = "") -> Script:
    """An answer that stops at the token limit after `text` (and `reasoning` before it)."""
    choices = [{"index": 0, "delta": {"reasoning_content": reasoning}, "finish_reason": None}] if reasoning else []
    choices.append({"index": 0, "delta": {"content": text}, "finish_reason": None})
    choices.append({"index": 0, "delta": {}, "finish_reason": "length"})
    events = [{"model": "scripted", "choices": [choice]} for choice in choices]
    body = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events) + b"data: [DONE]\n\n"
    return [(0.0, body)]
