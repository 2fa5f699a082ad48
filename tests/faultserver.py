"""A fault-injecting OpenAI-compatible server on 127.0.0.1, for the streaming and reliability tests.

The scenario is the first path segment: `POST /<scenario>/v1/chat/completions`. Every scenario streams
(or fails to stream) a known answer, so a test can assert exactly what the user keeps.
"""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import struct
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tests import native_shapes, shapes

WORDS = ["Hello", ",", " this", " is", " a", " partial", " answer", "."]
ANSWER = "".join(WORDS)
PARTIAL = "".join(WORDS[:4])
"""What the failing scenarios send before they fail."""


def chunk(content: str | None = None, reasoning: str | None = None, finish: str | None = None) -> bytes:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    payload = {
        "id": "chatcmpl-fault",
        "object": "chat.completion.chunk",
        "model": "fault-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


USAGE = (
    b'data: {"id":"chatcmpl-fault","object":"chat.completion.chunk","model":"fault-model","choices":[],'
    b'"usage":{"prompt_tokens":7,"completion_tokens":8,"total_tokens":15}}\n\n'
)
DONE = b"data: [DONE]\n\n"
REASONING = ["Let me ", "think ", "about ", "a ", "short ", "answer."]
MARKDOWN = ["# Title\n\n", "Some **bold** ", "text.\n\n", "```python\n", "print('hi')\n", "```\n\n"]
MARKDOWN += ["- one\n", "- two\n"]
MARKDOWN_ANSWER = "".join(MARKDOWN)
LONG_WORDS = [f"word{n} " for n in range(400)]
LONG_ANSWER = "".join(LONG_WORDS)
LINES = [f"Line {n}.\n\n" for n in range(120)]
"""An answer many screens tall, one paragraph per event (`gap` apart): for following the text as it grows."""


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FaultServer:
    host: str = "127.0.0.1"
    port: int = 0
    gap: float = 0.0
    """Seconds between streamed events in the `paced` scenario."""
    stall: float = 5.0
    """Seconds the `stall` scenario waits in the middle of the answer."""
    seen: deque[Seen] = field(default_factory=lambda: deque(maxlen=20))
    """The last requests received (bounded, so a soak test measures chatterm, not this server)."""
    counts: dict[str, int] = field(default_factory=dict)
    tls: ssl.SSLContext | None = None
    """Serve HTTPS with this context (tests/test_network.py)."""
    echo: str | None = None
    """The secret the `echo-*` scenarios send back; by default the key the request came with."""
    redirect_status: int = 307
    redirect_to: str = ""
    """Where the `redirect` scenario sends the client (an absolute URL or a path on this server)."""
    _server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def url(self, scenario: str) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}/{scenario}/v1"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            path = head[0].split(" ")[1]
            scenario = path.strip("/").split("/")[0]
            self.seen.append(Seen(path, headers, json.loads(body) if body else None))
            self.counts[scenario] = self.counts.get(scenario, 0) + 1
            handler = getattr(self, f"_{scenario.replace('-', '_')}", None)
            if handler is None:
                await self._status(writer, 404, {"error": {"message": f"no scenario {scenario}"}})
            else:
                await handler(writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    # -- helpers ------------------------------------------------------------------------------------------

    async def _begin(
        self, writer: asyncio.StreamWriter, content_type: str = "text/event-stream", extra: str = ""
    ) -> None:
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n"
            f"{extra}Connection: close\r\n\r\n".encode()
        )
        await writer.drain()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(b"%x\r\n%s\r\n" % (len(data), data))
        await writer.drain()

    async def _end(self, writer: asyncio.StreamWriter) -> None:
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def _status(self, writer: asyncio.StreamWriter, status: int, payload: Any, extra: str = "") -> None:
        data = json.dumps(payload).encode()
        phrase = "OK" if status < 400 else "Error"
        writer.write(
            f"HTTP/1.1 {status} {phrase}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            f"{extra}Connection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()

    async def _stream_words(self, writer: asyncio.StreamWriter, words: list[str], gap: float = 0.0) -> None:
        for word in words:
            await self._send(writer, chunk(word))
            if gap:
                await asyncio.sleep(gap)

    # -- scenarios ----------------------------------------------------------------------------------------

    async def _ok(self, writer: asyncio.StreamWriter) -> None:
        """The answer in the shape of the API the request asked in (chat completions, or a native one)."""
        api = native_shapes.api_of(self.seen[-1].path)
        if api != "openai":
            await self._whole(writer, native_shapes.answer(api, WORDS, REASONING))
            return
        await self._begin(writer)
        await self._send(writer, chunk(reasoning="Thinking it over."))
        await self._stream_words(writer, WORDS)
        await self._send(writer, chunk(finish="stop") + USAGE + DONE)
        await self._end(writer)

    async def _think(self, writer: asyncio.StreamWriter) -> None:
        """Reasoning first, then a Markdown answer, both paced by `gap`; usage with reasoning tokens."""
        await self._begin(writer)
        for piece in REASONING:
            await self._send(writer, chunk(reasoning=piece))
            await asyncio.sleep(self.gap)
        for piece in MARKDOWN:
            await self._send(writer, chunk(piece))
            await asyncio.sleep(self.gap / 4)
        usage = {"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52}
        usage["completion_tokens_details"] = {"reasoning_tokens": 9}  # type: ignore[assignment]
        tail = {"choices": [], "usage": usage}
        await self._send(writer, chunk(finish="stop") + b"data: " + json.dumps(tail).encode() + b"\n\n" + DONE)
        await self._end(writer)

    async def _long(self, writer: asyncio.StreamWriter) -> None:
        """The first answer at once; later ones LONG_WORDS, one event each, `gap` apart."""
        if self.counts["long"] == 1:
            await self._ok(writer)
            return
        await self._begin(writer)
        await self._stream_words(writer, LONG_WORDS, gap=self.gap)
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _lines(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, LINES, gap=self.gap)
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _paced(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS, gap=self.gap)
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _drop(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        transport = writer.transport
        transport.abort()  # no terminating chunk: the connection is simply lost

    async def _stall(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await asyncio.sleep(self.stall)

    async def _nodone(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS)
        await self._send(writer, chunk(finish="stop"))
        await self._end(writer)

    async def _malformed(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await self._send(writer, b'data: {"choices": [{"delta": {"content": "broken\n\n')
        await self._stream_words(writer, WORDS[4:])
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _badutf8(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await self._send(writer, b'data: {"choices":[{"index":0,"delta":{"content":" caf\xe9\xff"}}]}\n\n')
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _bigline(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._send(writer, chunk("x" * (1024 * 1024)))
        await self._send(writer, chunk(" end", finish="stop") + DONE)
        await self._end(writer)

    async def _errorevent(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        error = {"error": {"message": "Overloaded, try again later", "type": "server_error", "code": 503}}
        await self._send(writer, b"event: error\ndata: " + json.dumps(error).encode() + b"\n\n")
        await self._end(writer)

    async def _errorchunk(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await self._send(writer, b'data: {"error": {"code": 400, "message": "Token limit reached"}}\n\n' + DONE)
        await self._end(writer)

    async def _json(self, writer: asyncio.StreamWriter) -> None:
        completion = {
            "object": "chat.completion",
            "model": "fault-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 8, "total_tokens": 11},
        }
        data = json.dumps(completion).encode()
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data
        )
        await writer.drain()

    async def _models_openai(self, writer: asyncio.StreamWriter) -> None:
        await self._status(writer, 200, {"object": "list", "data": [{"id": "b-model"}, {"id": "a-model"}]})

    async def _models_together(self, writer: asyncio.StreamWriter) -> None:
        await self._status(writer, 200, [{"id": "meta-llama/x", "type": "chat"}, {"id": "mistral/y"}])

    async def _models_gemini(self, writer: asyncio.StreamWriter) -> None:
        payload = {"object": "list", "data": [{"id": "models/gemini-2.5-flash"}, {"id": "models/gemini-2.5-pro"}]}
        await self._status(writer, 200, payload)

    def _echoed(self) -> str:
        """The secret to echo: `echo`, else the key of the last request (`Authorization: Bearer`, `x-api-key` or
        `x-goog-api-key`)."""
        if self.echo is not None:
            return self.echo
        headers = self.seen[-1].headers
        bearer = headers.get("authorization", "").removeprefix("Bearer ")
        return bearer or headers.get("x-api-key", "") or headers.get("x-goog-api-key", "")

    async def _echo_401(self, writer: asyncio.StreamWriter) -> None:
        """A 401 whose JSON body names the key (with `/` escaped as `\\/`, as PHP and some Java servers write it),
        also URL-encoded in a link, and whose `x-request-id` header holds it too."""
        key = self._echoed()
        message = f"Incorrect API key provided: {key} (see https://help.invalid/keys?key={quote(key, safe='')})"
        error = {"error": {"message": message, "type": "invalid_request_error"}}
        data = json.dumps(error).replace("/", "\\/").encode()
        writer.write(
            b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"x-request-id: %s\r\nConnection: close\r\n\r\n%s" % (len(data), key.encode(), data)
        )
        await writer.drain()

    async def _echo_error_event(self, writer: asyncio.StreamWriter) -> None:
        """A 200 stream that breaks off with an error event naming the key."""
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        error = {"error": {"message": f"upstream rejected the key {self._echoed()}", "type": "auth_error"}}
        await self._send(writer, b"event: error\ndata: " + json.dumps(error).encode() + b"\n\n")
        await self._end(writer)

    async def _echo_escaped(self, writer: asyncio.StreamWriter) -> None:
        """An error event naming the key with every character of it written as a JSON `\\u` escape."""
        escaped = "".join(f"\\u{ord(c):04x}" for c in self._echoed())
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        data = b'{"error": {"message": "upstream rejected the key %s"}}' % escaped.encode()
        await self._send(writer, b"event: error\ndata: " + data + b"\n\n")
        await self._end(writer)

    async def _echo_split(self, writer: asyncio.StreamWriter) -> None:
        """The key in the answer, its halves in two SSE events."""
        key = self._echoed()
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await self._stream_words(writer, [" with the key ", key[:7], key[7:], " echoed."])
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _echo_json(self, writer: asyncio.StreamWriter) -> None:
        """The key in the answer as a JSON document writes it (`"` and `\\` escaped), inside the JSON of an event."""
        await self._echo_words(writer, [" with ", json.dumps({"key": self._echoed()}), " echoed."])

    async def _echo_url_split(self, writer: asyncio.StreamWriter) -> None:
        """The key in the answer URL-encoded, in two SSE events cut inside its first percent escape."""
        encoded = quote(self._echoed(), safe="")
        cut = encoded.find("%") + 1 if "%" in encoded else 7
        await self._echo_words(writer, [" with the key ", encoded[:cut], encoded[cut:], " echoed."])

    async def _echo_percent(self, writer: asyncio.StreamWriter) -> None:
        """The key percent-encoded past what URLs need: every character but letters and digits (`sk%2Dtest...`), in
        capitals and cut across two events, then in small letters; every character, in capitals, then in small
        letters."""
        key = self._echoed()

        def encoded(every: bool, digits: str) -> str:
            return "".join(c if c.isalnum() and not every else "".join(digits % b for b in c.encode()) for c in key)

        forms = [encoded(every, digits) for every in (False, True) for digits in ("%%%02X", "%%%02x")]
        words = [" with the key ", forms[0][:10], forms[0][10:]]
        words += [part for form in forms[1:] for part in (" or ", form)]
        await self._echo_words(writer, [*words, " echoed."])

    async def _echo_words(self, writer: asyncio.StreamWriter, words: list[str]) -> None:
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4] + words)
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _echo_tcp(self, writer: asyncio.StreamWriter) -> None:
        """The key in one SSE event whose bytes are sent in two TCP writes, cut in the middle of the key."""
        key = self._echoed()
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        event = chunk(f" with the key {key} echoed.")
        cut = event.index(key.encode()) + len(key) // 2
        writer.write(b"%x\r\n%s" % (len(event), event[:cut]))
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(event[cut:] + b"\r\n")
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _redirect(self, writer: asyncio.StreamWriter) -> None:
        writer.write(
            f"HTTP/1.1 {self.redirect_status} Moved\r\nLocation: {self.redirect_to}\r\nContent-Length: 0\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        await writer.drain()

    async def _e401(self, writer: asyncio.StreamWriter) -> None:
        await self._status(writer, 401, {"error": {"message": "Invalid API Key", "type": "invalid_request_error"}})

    async def _e429(self, writer: asyncio.StreamWriter) -> None:
        message = "Rate limit reached for model fault-model: try again in 1s"
        await self._status(writer, 429, {"error": {"message": message, "type": "requests"}}, "Retry-After: 0.2\r\n")

    async def _e429_then_ok(self, writer: asyncio.StreamWriter) -> None:
        if self.counts["e429-then-ok"] == 1:
            await self._e429(writer)
        else:
            await self._ok(writer)

    async def _e500(self, writer: asyncio.StreamWriter) -> None:
        await self._status(writer, 500, {"error": {"message": "Internal server error"}})

    async def _e503(self, writer: asyncio.StreamWriter) -> None:
        await self._status(writer, 503, {"error": {"message": "Service unavailable"}}, "Retry-After: 0.1\r\n")

    async def _e503_then_ok(self, writer: asyncio.StreamWriter) -> None:
        if self.counts["e503-then-ok"] == 1:
            await self._status(writer, 503, {"error": {"message": "overloaded"}}, "Retry-After: 0\r\n")
        else:
            await self._ok(writer)

    # -- text from outside: markup, terminal escapes, deep nesting ---------------------------------------------

    async def _markup(self, writer: asyncio.StreamWriter) -> None:
        """A malformed chunk whose text is Rich markup, between the words of the answer."""
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await self._send(writer, b"data: " + MARKUP.encode() + b" {not json\n\n")
        await self._stream_words(writer, WORDS[4:])
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _models_markup(self, writer: asyncio.StreamWriter) -> None:
        """`GET /models` lists ids that are Rich markup; a chat request is answered as in `ok`."""
        if self.seen[-1].path.endswith("/models"):
            await self._status(writer, 200, {"object": "list", "data": [{"id": m} for m in MARKUP_MODELS]})
        else:
            await self._ok(writer)

    async def _models_escapes(self, writer: asyncio.StreamWriter) -> None:
        """`GET /models` lists ids holding terminal escape sequences."""
        await self._status(writer, 200, {"object": "list", "data": [{"id": m} for m in ESCAPE_MODELS]})

    async def _escapes_error(self, writer: asyncio.StreamWriter) -> None:
        """A 400 whose error message holds terminal escape sequences."""
        await self._status(writer, 400, {"error": {"message": ESCAPES, "type": "invalid_request_error"}})

    async def _deep(self, writer: asyncio.StreamWriter) -> None:
        """An SSE line nested DEEP levels, between the words of the answer."""
        await self._begin(writer)
        await self._stream_words(writer, WORDS[:4])
        await self._send(writer, b"data: " + DEEP + b"\n\n")
        await self._stream_words(writer, WORDS[4:])
        await self._send(writer, chunk(finish="stop") + DONE)
        await self._end(writer)

    async def _deep_ndjson(self, writer: asyncio.StreamWriter) -> None:
        """The same as `deep` in NDJSON (Ollama's framing)."""
        await self._begin(writer, "application/x-ndjson")
        for word in WORDS[:4]:
            await self._send(writer, ollama_line(word))
        await self._send(writer, DEEP + b"\n")
        for word in WORDS[4:]:
            await self._send(writer, ollama_line(word))
        await self._send(writer, ollama_line("", done=True))
        await self._end(writer)

    async def _deep_json(self, writer: asyncio.StreamWriter) -> None:
        """A whole JSON body nested DEEP levels."""
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(DEEP)}\r\n\r\n".encode() + DEEP
        )
        await writer.drain()

    async def _deep_eventstream(self, writer: asyncio.StreamWriter) -> None:
        """Bedrock's binary event-stream: Anthropic events, one frame whose payload is nested DEEP levels."""
        await self._begin(writer, "application/vnd.amazon.eventstream")
        await self._send(writer, bedrock_frame(ANTHROPIC_START))
        await self._send(writer, bedrock_frame(anthropic_text(PARTIAL)))
        await self._send(writer, eventstream_frame(DEEP))
        await self._send(writer, bedrock_frame(anthropic_text(ANSWER[len(PARTIAL) :])))
        await self._send(writer, bedrock_frame({"type": "message_stop"}))
        await self._end(writer)


    # -- answers that end without the provider saying so, or with an end the user is told of ------------------

    async def _whole(
        self, writer: asyncio.StreamWriter, pieces: list[bytes], content_type: str = "text/event-stream"
    ) -> None:
        await self._begin(writer, content_type)
        for piece in pieces:
            await self._send(writer, piece)
        await self._end(writer)

    async def _cut(self, writer: asyncio.StreamWriter) -> None:
        """PARTIAL, then the body ends cleanly: no finish reason, no [DONE] (a proxy whose upstream dropped)."""
        await self._whole(writer, [chunk(word) for word in WORDS[:4]])

    async def _empty(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, [])

    async def _blank(self, writer: asyncio.StreamWriter) -> None:
        """A whole stream that says nothing: a role, a finish reason, [DONE]."""
        role = json.dumps({"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})
        await self._whole(writer, [f"data: {role}\n\n".encode(), chunk(finish="stop") + DONE])

    async def _html(self, writer: asyncio.StreamWriter) -> None:
        """A captive portal's login page, with 200 OK."""
        page = "<!DOCTYPE html>\n<html>\n<head><title>Sign in to the network</title></head>\n<body>\n"
        page += "".join(f"<p>Line {n} of the terms of use.</p>\n" for n in range(48)) + "</body>\n</html>\n"
        await self._whole(writer, [page.encode()], "text/html; charset=utf-8")

    async def _length(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, [*(chunk(word) for word in WORDS[:4]), chunk(finish="length") + DONE])

    async def _filtered(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, [*(chunk(word) for word in WORDS[:4]), chunk(finish="content_filter") + DONE])

    async def _ok_anthropic(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.anthropic(WORDS))

    async def _cut_anthropic(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.anthropic(WORDS[:4], end=False))

    async def _length_anthropic(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.anthropic(WORDS[:4], stop_reason="max_tokens"))

    async def _ok_gemini(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.gemini(WORDS))

    async def _cut_gemini(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.gemini(WORDS[:4], end=False))

    async def _length_gemini(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.gemini(WORDS[:4], finish_reason="MAX_TOKENS"))

    async def _safety_gemini(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.gemini(WORDS[:4], finish_reason="SAFETY"))

    async def _recitation_gemini(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.gemini(WORDS[:4], finish_reason="RECITATION"))

    async def _ok_ollama(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.ollama(WORDS), "application/x-ndjson")

    async def _cut_ollama(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.ollama(WORDS[:4], end=False), "application/x-ndjson")

    # -- the native APIs (Anthropic, Gemini, Responses), each in the shape of the API the request asked in ----------

    def _native(self) -> str:
        return native_shapes.api_of(self.seen[-1].path)

    async def _api_cut(self, writer: asyncio.StreamWriter) -> None:
        """PARTIAL after the reasoning, then the body ends without the API's end."""
        await self._whole(writer, native_shapes.answer(self._native(), WORDS[:4], REASONING, end=False))

    async def _api_drop(self, writer: asyncio.StreamWriter) -> None:
        await self._begin(writer)
        for piece in native_shapes.answer(self._native(), WORDS[:4], REASONING, end=False):
            await self._send(writer, piece)
        writer.transport.abort()

    async def _api_length(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, native_shapes.stopped(self._native(), WORDS[:4], filtered=False))

    async def _api_filtered(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, native_shapes.stopped(self._native(), WORDS[:4], filtered=True))

    async def _api_errorevent(self, writer: asyncio.StreamWriter) -> None:
        """PARTIAL, then an error inside the stream in the API's shape."""
        api = self._native()
        cut = native_shapes.answer(api, WORDS[:4], end=False)
        await self._whole(writer, [*cut, native_shapes.stream_error(api, "Overloaded, try again later")])

    async def _api_errorfirst_then_ok(self, writer: asyncio.StreamWriter) -> None:
        """First an error inside the stream before any of the answer (retried), then the answer."""
        api = self._native()
        if self.counts["api-errorfirst-then-ok"] > 1:
            await self._ok(writer)
            return
        head = native_shapes.answer(api, [], end=False)[:1]
        await self._whole(writer, [*head, native_shapes.stream_error(api, "Overloaded")])

    async def _api_e400(self, writer: asyncio.StreamWriter) -> None:
        await self._status(writer, 400, native_shapes.error_body(self._native(), 400, "Bad request: no such model"))

    async def _api_e429(self, writer: asyncio.StreamWriter) -> None:
        body = native_shapes.error_body(self._native(), 429, "Rate limit exceeded")
        await self._status(writer, 429, body, "Retry-After: 0.1\r\n")

    # -- overloads, retried before the answer begins ----------------------------------------------------------

    async def _e529(self, writer: asyncio.StreamWriter) -> None:
        overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        await self._status(writer, 529, overloaded, "Retry-After: 0.1\r\n")

    async def _e529_then_ok(self, writer: asyncio.StreamWriter) -> None:
        await (self._e529(writer) if self.counts["e529-then-ok"] == 1 else self._ok(writer))

    async def _overloaded_body_then_ok(self, writer: asyncio.StreamWriter) -> None:
        """An overload told by the error body alone, under a status that is not retried for itself."""
        if self.counts["overloaded-body-then-ok"] == 1:
            overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
            await self._status(writer, 400, overloaded)
        else:
            await self._ok(writer)

    async def _overloaded_event(self, writer: asyncio.StreamWriter) -> None:
        await self._whole(writer, shapes.anthropic_overloaded())

    async def _overloaded_event_then_ok(self, writer: asyncio.StreamWriter) -> None:
        if self.counts["overloaded-event-then-ok"] == 1:
            await self._overloaded_event(writer)
        else:
            await self._ok_anthropic(writer)

    async def _late_overload(self, writer: asyncio.StreamWriter) -> None:
        """An overload reported after part of the answer: not retried, the part is kept."""
        await self._whole(writer, [*shapes.anthropic(WORDS[:4], end=False), *shapes.anthropic_overloaded()[1:]])

    async def _silent(self, writer: asyncio.StreamWriter) -> None:
        """The request is read, and nothing is ever answered (for `stall` seconds)."""
        await asyncio.sleep(self.stall)

    # -- compressed answers ------------------------------------------------------------------------------------

    async def _compressed(
        self, writer: asyncio.StreamWriter, coding: str, pieces: list[bytes], gap: float = 0.0
    ) -> zlib._Compress:
        """Each piece compressed and flushed at once, so it arrives whole; the stream is left open."""
        compressor = zlib.compressobj(wbits=31 if coding == "gzip" else 15)
        await self._begin(writer, extra=f"Content-Encoding: {coding}\r\n")
        for piece in pieces:
            await self._send(writer, compressor.compress(piece) + compressor.flush(zlib.Z_SYNC_FLUSH))
            if gap:
                await asyncio.sleep(gap)
        return compressor

    async def _gzip_drop(self, writer: asyncio.StreamWriter) -> None:
        await self._compressed(writer, "gzip", [chunk(word) for word in WORDS[:4]])
        writer.transport.abort()

    async def _deflate_drop(self, writer: asyncio.StreamWriter) -> None:
        await self._compressed(writer, "deflate", [chunk(word) for word in WORDS[:4]])
        writer.transport.abort()

    async def _gzip_ok(self, writer: asyncio.StreamWriter) -> None:
        pieces = [chunk(reasoning="Thinking it over."), *(chunk(word) for word in WORDS), chunk(finish="stop") + DONE]
        compressor = await self._compressed(writer, "gzip", pieces)
        await self._send(writer, compressor.flush())
        await self._end(writer)

    async def _gzip_long(self, writer: asyncio.StreamWriter) -> None:
        """The first answer at once; later ones LONG_WORDS, `gap` apart, all gzip-compressed."""
        if self.counts["gzip-long"] == 1:
            await self._gzip_ok(writer)
            return
        pieces = [*(chunk(word) for word in LONG_WORDS), chunk(finish="stop") + DONE]
        compressor = await self._compressed(writer, "gzip", pieces, gap=self.gap)
        await self._send(writer, compressor.flush())
        await self._end(writer)


MARKUP = "[/INST] [/] [bold]not bold[/bold] [link=javascript:x]y[/link] [@click=app.quit]q[/]"
"""Text that Rich or Textual would read as markup: it must be shown as it is."""
MARKUP_MODELS = ["[/]", "[bold]big[/bold]", "[@click=app.quit]m[/]"]
ESCAPES = "bad request\x1b[2J\x1b[H\x1b]52;c;cHduZWQ=\x07 \x1b]8;;http://evil\x07link\x1b]8;;\x07 end"
"""Clear the screen, write the clipboard (OSC 52), a hidden link (OSC 8): to be shown, never obeyed."""
ESCAPE_MODELS = ["clear\x1b[2J\x1b[H", "clip\x1b]52;c;cHduZWQ=\x07", "csi\x9b2J"]
DEEP = b"[" * 100_000 + b"]" * 100_000
ANTHROPIC_START = {"type": "message_start", "message": {"id": "m", "model": "fault-model", "role": "assistant"}}


def ollama_line(content: str, done: bool = False) -> bytes:
    """One line of Ollama's native NDJSON stream."""
    message = {"role": "assistant", "content": content}
    return json.dumps({"model": "fault-model", "message": message, "done": done}).encode() + b"\n"


def anthropic_text(text: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}


def eventstream_frame(payload: bytes, headers: dict[str, str] | None = None) -> bytes:
    """One frame of AWS's binary event-stream (string headers only)."""
    encoded = b"".join(
        bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
        for k, v in (headers or {":message-type": "event", ":event-type": "chunk"}).items()
    )
    total = 16 + len(encoded) + len(payload)
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    frame = prelude + encoded + payload
    return frame + struct.pack(">I", zlib.crc32(frame))


def bedrock_frame(event: dict[str, Any]) -> bytes:
    """A Bedrock frame carrying one Anthropic event, base64 inside JSON as Bedrock sends it."""
    return eventstream_frame(json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode())
