"""The HTTP/1.1 that `serve` speaks: requests read strictly, answers written whole, streamed, or cut.

Whatever a client sends is read within bounds (the head's size, the body's size) and by the letter of RFC 9112: a
request line `METHOD target HTTP/1.x`, header lines `name: value`, a body framed by one `Content-Length` of digits
or by `chunked` coding with hexadecimal chunk sizes each followed by CRLF. Anything else is a `BadRequest`, which
`serve` answers 400 before it closes that connection and goes on serving. A connection answered early is drained
a little before it is closed, so the client reads the answer rather than a reset.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from chatterm.cassette.model import reason_phrase

MAX_HEAD = 64 * 1024
MAX_BODY = 32 * 1024 * 1024
READ_TIMEOUT = 60.0
"""Seconds a client has to send its whole request."""
DRAIN = 4 * 1024 * 1024
"""Bytes of a request still unread that are read (and dropped), for a second at most, before a connection answered
early is closed."""

_REQUEST_LINE = re.compile(r"([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP/1\.[01]")
_HEADER = re.compile(r"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r\n")


class BadRequest(Exception):
    """A request that is not HTTP/1.1 as `serve` reads it; the message says what was wrong, in one line."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class HTTPRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


async def read_request(reader: asyncio.StreamReader) -> HTTPRequest | None:
    """The next request on a connection (None when the client closed it before sending one)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError:
        raise BadRequest(f"the request head is larger than {MAX_HEAD // 1024} KiB") from None
    lines = head[:-4].decode("latin-1").split("\r\n")
    line = _REQUEST_LINE.fullmatch(lines[0])
    if line is None:
        raise BadRequest("the request line is not `METHOD target HTTP/1.1`")
    headers: dict[str, str] = {}
    for text in lines[1:]:
        field = _HEADER.fullmatch(text)
        if field is None:
            raise BadRequest("a header line is not `name: value`")
        name, value = field.group(1).lower(), field.group(2)
        if name == "content-length" and headers.get(name, value) != value:
            raise BadRequest("the request has two different Content-Length headers")
        headers[name] = f"{headers[name]}, {value}" if name in headers and name != "content-length" else value
    target = line.group(2)
    path = urlsplit(target).path if target.startswith(("http://", "https://")) else target
    try:
        body = await _body(reader, headers)
    except asyncio.LimitOverrunError:
        raise BadRequest(f"a line of the request body is longer than {MAX_HEAD // 1024} KiB") from None
    return HTTPRequest(method=line.group(1), path=path, headers=headers, body=body)


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    coding = headers.get("transfer-encoding", "").strip().lower()
    if coding:
        if coding != "chunked":
            raise BadRequest(f"the transfer coding {coding[:40]!r} is not one serve reads (only chunked)")
        return await _chunked(reader)
    length = headers.get("content-length")
    if length is None:
        return b""
    if not (length.isascii() and length.isdigit()):
        raise BadRequest(f"Content-Length {length[:40]!r} is not a number of bytes")
    if int(length) > MAX_BODY:
        raise BadRequest(f"the request body is larger than {MAX_BODY // 2**20} MiB", 413)
    return await reader.readexactly(int(length))


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = _CHUNK_SIZE.fullmatch(size_line)
        if size is None:
            raise BadRequest("a chunk size is not a hexadecimal number")
        length = int(size.group(1), 16)
        if len(body) + length > MAX_BODY:
            raise BadRequest(f"the request body is larger than {MAX_BODY // 2**20} MiB", 413)
        if length == 0:
            break
        body += await reader.readexactly(length)
        if await reader.readexactly(2) != b"\r\n":
            raise BadRequest("a chunk does not end where its size says")
    while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailer fields, dropped
        pass
    return bytes(body)


def head(status: int, headers: dict[str, str]) -> bytes:
    """A response's status line and headers."""
    lines = [f"HTTP/1.1 {status} {reason_phrase(status) or 'Unknown'}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join([*lines, "", ""])).encode("latin-1")


async def send_json(
    writer: asyncio.StreamWriter, status: int, payload: Any, headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(payload, ensure_ascii=False).encode()
    fields = {"Content-Type": "application/json", "Content-Length": str(len(data)), **(headers or {})}
    writer.write(head(status, {**fields, "Connection": "close"}) + data)
    await writer.drain()


class Chunked:
    """A response body sent as it is made (chunked coding); `end` finishes it, `cut` loses it half way."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def start(self, status: int, headers: dict[str, str]) -> None:
        fields = {**headers, "Transfer-Encoding": "chunked", "Cache-Control": "no-cache", "Connection": "close"}
        self.writer.write(head(status, fields))
        await self.writer.drain()

    async def send(self, data: bytes) -> None:
        if data:
            self.writer.write(b"%x\r\n%s\r\n" % (len(data), data))
            await self.writer.drain()

    async def end(self) -> None:
        self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()

    def cut(self) -> None:
        """Lose the connection without the last chunk: the client reads a body cut short, as the recording was."""
        self.writer.transport.abort()


async def linger(reader: asyncio.StreamReader) -> None:
    """Read (and drop) a little of what the client still sends, so closing does not reset the connection before
    the client has read its answer."""
    with contextlib.suppress(OSError, asyncio.TimeoutError, asyncio.LimitOverrunError, asyncio.IncompleteReadError):
        async with asyncio.timeout(1.0):
            left = DRAIN
            while left > 0 and (data := await reader.read(min(left, 65536))):
                left -= len(data)
