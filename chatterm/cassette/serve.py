"""`chatterm serve`: a recording served as an OpenAI-compatible endpoint.

`GET /v1/models` lists the recording's models; `POST /v1/chat/completions` answers with the recorded turn
whose request matches (else the next one in order), streamed byte for byte at the recorded pace (scaled by
the speed, or at once). A request with `"stream": false` gets one `chat.completion` JSON object built
from the recorded answer. The same server backs the offline `demo` profile and the test suite.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from chatterm.cassette.model import Interaction, Recording, reason_phrase
from chatterm.cassette.replay import Matcher, paced
from chatterm.cassette.summary import reply_of

MAX_HEADER = 64 * 1024
MAX_BODY = 32 * 1024 * 1024


@dataclass
class _HTTPRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class ReplayServer:
    """Serves one recording on a loopback (or chosen) address."""

    def __init__(self, recording: Recording, speed: float = 1.0, instant: bool = False) -> None:
        self.recording = recording
        self.matcher = Matcher(recording)
        self.speed = speed
        self.instant = instant
        self._server: asyncio.Server | None = None
        self.requests = 0

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Start listening; returns the base URL (`http://host:port/v1`)."""
        self._server = await asyncio.start_server(self._handle, host, port)
        bound = self._server.sockets[0].getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        return f"http://{shown}:{bound[1]}/v1"

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader)
            if request is None:
                return
            self.requests += 1
            await self._route(request, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except _BadRequest as exc:
            await _send_json(writer, 400, {"error": {"message": str(exc), "type": "invalid_request_error"}})
        finally:
            try:
                writer.close()
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def _route(self, request: _HTTPRequest, writer: asyncio.StreamWriter) -> None:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            await _send_json(writer, 200, {"object": "list", "data": [_model(m) for m in self.models()]})
        elif request.method == "POST" and path.endswith("/chat/completions"):
            try:
                body = json.loads(request.body or b"null")
            except ValueError:
                raise _BadRequest("the request body is not JSON") from None
            interaction = self.matcher.match(body)
            if interaction is None:
                await _send_json(writer, 404, {"error": {"message": "the recording holds no answers"}})
            elif isinstance(body, dict) and body.get("stream") is False:
                await self._send_whole(interaction, writer)
            else:
                await self._send_recorded(interaction, writer)
        else:
            await _send_json(writer, 404, {"error": {"message": f"no route for {request.method} {path}"}})

    def models(self) -> list[str]:
        seen: dict[str, None] = {}
        for interaction in self.recording.interactions:
            model = reply_of(interaction).model or (interaction.request.model if interaction.request else None)
            if model:
                seen.setdefault(model, None)
        return list(seen) or ["recording"]

    async def _send_recorded(self, interaction: Interaction, writer: asyncio.StreamWriter) -> None:
        recorded = interaction.response
        headers = {k.lower(): v[0] for k, v in recorded.headers.items() if v}
        content_type = headers.get("content-type", "text/event-stream")
        status = recorded.status or 200
        head = [f"HTTP/1.1 {status} {(reason_phrase(status) or 'Unknown')}", f"Content-Type: {content_type}"]
        for name in ("retry-after", "x-request-id"):
            if name in headers:
                head.append(f"{name.title()}: {headers[name]}")
        head += ["Transfer-Encoding: chunked", "Cache-Control: no-cache", "Connection: close", "", ""]
        writer.write("\r\n".join(head).encode("latin-1"))
        await writer.drain()
        async for piece in paced(recorded, self.speed, self.instant):
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def _send_whole(self, interaction: Interaction, writer: asyncio.StreamWriter) -> None:
        reply = reply_of(interaction)
        status = interaction.response.status or 200
        if reply.error is not None or status >= 400:
            message = reply.error.message if reply.error else "error"
            await _send_json(writer, status if status >= 400 else 500, {"error": {"message": message}})
            return
        completion = {
            "id": "chatcmpl-replay",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model or "recording",
            "choices": [
                {"index": 0, "message": reply.as_message(True), "finish_reason": reply.finish_reason or "stop"}
            ],
            "usage": _usage(reply.usage.as_dict()) if reply.usage else None,
        }
        await _send_json(writer, 200, completion)


class _BadRequest(Exception):
    pass


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "chatterm-replay"}


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    reasoning = usage.pop("reasoning_tokens", None)
    if reasoning is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return usage


async def _read_request(reader: asyncio.StreamReader) -> _HTTPRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError:
        raise _BadRequest("request headers too large") from None
    if len(head) > MAX_HEADER:
        raise _BadRequest("request headers too large")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise _BadRequest("malformed request line")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = b""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = bytearray()
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                break
            chunks += await reader.readexactly(size)
            await reader.readline()
            if len(chunks) > MAX_BODY:
                raise _BadRequest("request body too large")
        body = bytes(chunks)
    elif headers.get("content-length"):
        length = int(headers["content-length"])
        if length > MAX_BODY:
            raise _BadRequest("request body too large")
        body = await reader.readexactly(length)
    return _HTTPRequest(method=parts[0], path=parts[1], headers=headers, body=body)


async def _send_json(writer: asyncio.StreamWriter, status: int, payload: Any) -> None:
    data = json.dumps(payload).encode()
    head = f"HTTP/1.1 {status} {(reason_phrase(status) or 'Unknown')}\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    writer.write(head.encode("latin-1") + data)
    await writer.drain()
