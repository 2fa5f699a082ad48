"""A loopback OpenAI-compatible streaming server for benchmarks (or one of a native API: `bench.native`).

Knobs: answer tokens, reasoning tokens, pace (tokens per second, 0 = as fast as possible), content kind
(markdown, code, plain) and a sentinel word at the very end. It records when it sent its first and last
byte, so a driver can measure what a user would see against what the server did.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from dataclasses import dataclass, field

from bench.native import SHAPES

SENTINEL = "ZQXSENTINEL"

_WORDS = [
    "the",
    "stream",
    "renders",
    "markdown",
    "tokens",
    "as",
    "they",
    "arrive",
    "while",
    "the",
    "terminal",
    "keeps",
    "up",
    "with",
    "every",
    "frame",
    "and",
    "the",
    "reader",
    "follows",
    "along",
    "without",
    "waiting",
    "for",
    "the",
    "model",
    "to",
    "finish",
    "its",
    "long",
    "detailed",
    "answer",
    "about",
    "performance",
]
_CODE = [
    "def handle(request):\n",
    "    data = parse(request.body)\n",
    "    for item in data.items:\n",
    "        result = compute(item, factor=2)\n",
    "        results.append(result)\n",
    "    return Response(results, status=200)\n",
]


def tokens(count: int, kind: str, seed: int = 7) -> list[str]:
    """`count` word-ish pieces of Markdown, code-heavy Markdown or plain text; the last one is the sentinel."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count - 1:
        if kind == "plain":
            out.append(" " + rng.choice(_WORDS))
        elif kind == "code":
            out.append("\n```python\n")
            for line in _CODE * 2:
                out.extend(piece + " " for piece in line.split(" ")[:-1])
                out.append(line.split(" ")[-1])
            out.append("```\n\nThen ")
        else:
            roll = rng.random()
            if roll < 0.02:
                out.append(f"\n\n## Section {len(out)}\n\n")
            elif roll < 0.05:
                out.append("\n- ")
            elif roll < 0.07:
                out.append(" **" + rng.choice(_WORDS) + "**")
            elif roll < 0.075:
                out.append("\n\n```python\nprint('hello')\n```\n\n")
            else:
                out.append(" " + rng.choice(_WORDS))
    out = out[: count - 1]
    out.append(f"\n\n{SENTINEL}\n")
    return out


@dataclass
class Scenario:
    answer_tokens: int = 3000
    reasoning_tokens: int = 0
    rate: float = 0.0
    """Tokens per second; 0 sends as fast as the socket takes them."""
    kind: str = "markdown"
    api: str = "openai"
    """The API whose stream is sent: chat completions, or a native one (`bench.native`)."""


@dataclass
class BenchServer:
    scenario: Scenario = field(default_factory=Scenario)
    first_byte: float | None = None
    last_byte: float | None = None
    port: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _server: asyncio.Server | None = None

    def start(self) -> str:
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()
        future = asyncio.run_coroutine_threadsafe(asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop)
        self._server = future.result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self._loop is not None and self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
            self._loop.call_soon_threadsafe(self._loop.stop)

    def reset(self) -> None:
        self.first_byte = self.last_byte = None

    def events(self) -> list[bytes]:
        scenario = self.scenario
        if scenario.api in SHAPES:
            reasoning = tokens(scenario.reasoning_tokens + 1, "plain", seed=3)[:-1] if scenario.reasoning_tokens else []
            return SHAPES[scenario.api](reasoning, tokens(scenario.answer_tokens, scenario.kind))
        pieces: list[bytes] = []
        for word in tokens(scenario.reasoning_tokens + 1, "plain", seed=3)[:-1] if scenario.reasoning_tokens else []:
            pieces.append(_chunk({"reasoning_content": word}))
        for word in tokens(scenario.answer_tokens, scenario.kind):
            pieces.append(_chunk({"content": word}))
        pieces.append(_chunk({}, finish="stop"))
        usage = {"prompt_tokens": 10, "completion_tokens": scenario.answer_tokens + scenario.reasoning_tokens}
        pieces.append(b"data: " + json.dumps({"choices": [], "usage": usage}).encode() + b"\n\ndata: [DONE]\n\n")
        return pieces

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            length = next(
                (int(x.split(":")[1]) for x in head.split("\r\n") if x.lower().startswith("content-length")), 0
            )
            await reader.readexactly(length)
            if head.startswith("GET"):
                body = json.dumps({"data": [{"id": "bench-model"}]}).encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(body), body)
                )
                await writer.drain()
                return
            events = self.events()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            gap = 1.0 / self.scenario.rate if self.scenario.rate else 0.0
            start = time.monotonic()
            for number, event in enumerate(events):
                if gap:
                    delay = start + number * gap - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                writer.write(b"%x\r\n%s\r\n" % (len(event), event))
                await writer.drain()
                if self.first_byte is None:
                    self.first_byte = time.monotonic()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            self.last_byte = time.monotonic()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


def _chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    payload = {
        "object": "chat.completion.chunk",
        "model": "bench-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(payload).encode() + b"\n\n"
