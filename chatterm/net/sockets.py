"""An httpcore network backend on asyncio's own sockets, for streamed answers read in many small pieces.

httpx reaches the network through httpcore, whose default network layer is anyio: every read opens a cancel scope
and turns the socket's reader on and off in the event loop, and a streamed answer is thousands of small reads.
Here the loop buffers bytes as it receives them (an asyncio protocol, `_Connection`), and a read takes what is
there (letting the loop run every few reads) or waits for more. Everything above it (HTTP/1.1, TLS through
asyncio's own SSL transport, timeouts, the exceptions httpx raises) is httpx's and httpcore's own.

While an answer trickles in, the reader is woken at most once per GATHER and takes what arrived meanwhile in one
read, so the reading task resumes through httpcore, httpx, the recorder, the decoder and the screen's handler once
per batch rather than once per token, and HTTP/1.1 parses the batch in one go (bench scenario S2). After such a read
the socket itself rests until the next waking: what arrives meanwhile waits in the kernel and reaches the loop in
one receive, one waking of the loop for a batch rather than one per packet. Each piece keeps the time the loop
received it (`AsyncioStream.arrival`), which is what a recording stamps on the bytes: exact after a quiet spell
longer than GATHER (the first token, a stall), at most GATHER late for a piece that came during a rest.
"""

from __future__ import annotations

import asyncio
import bisect
import select
import socket
import ssl
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
"""As httpcore types a socket option (`setsockopt` arguments)."""

HIGH_WATER = 256 * 1024
"""Bytes buffered before the socket stops being read (a reader that fell behind): resumed below LOW_WATER."""
LOW_WATER = 64 * 1024
GATHER = 0.02
"""Seconds, at least, between two wakings of a reader while data trickles in, for which the socket rests after a
read of less than GATHER_BYTES (bench scenario S2 measures what it saves). The screen is drawn every 50 ms at most,
so what arrives is on screen as soon, or one frame later; a recording's times are within GATHER of the arrivals, far
finer than a replay's frames. The end of the stream, or GATHER_BYTES waiting, wakes the reader at once."""
GATHER_BYTES = 16 * 1024
YIELD_READS = 16
"""Reads of data already received in a row before the reader lets the loop run (a fast sender must not starve
the screen: a whole answer would be read, decoded and drawn in one go, Esc unheard)."""


class _Connection(asyncio.Protocol):
    """What the loop received and has not been read yet, piece by piece with the time each arrived, and whether the
    connection is still open."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.pieces: deque[tuple[bytes, float]] = deque()
        self.buffered = 0
        """Bytes in `pieces`."""
        self.waiter: asyncio.Future[None] | None = None
        self.woken = 0.0
        """When the reader last stopped waiting (the loop's clock)."""
        self.in_a_row = 0
        """Reads of received data since the reader last let the loop run."""
        self._timer: asyncio.TimerHandle | None = None
        self._resting: asyncio.TimerHandle | None = None
        """Set while the socket is left unread (`rest`): when it is read again."""
        self.drained: asyncio.Future[None] | None = None
        self.eof = False
        self.error: Exception | None = None
        self.paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.pieces.append((data, time.monotonic()))
        self.buffered += len(data)
        if self.buffered > HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        if self.waiter is None or self.waiter.done():
            return
        loop = asyncio.get_running_loop()
        due = self.woken + GATHER
        if loop.time() >= due or self.buffered >= GATHER_BYTES:
            self._wake()
        elif self._timer is None:
            self._timer = loop.call_at(due, self._wake)

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        if self._resting is not None:
            self._resting.cancel()
            self._resting = None
        self._wake()
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def pause_writing(self) -> None:
        if self.drained is None or self.drained.done():
            self.drained = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def rest(self, until: float) -> None:
        """Leave the socket unread until `until` (the loop's clock): what arrives meanwhile waits in the kernel and
        is received in one go when it is read again, stamped with that time. Not while the buffer is full (the
        socket is paused until the reader catches up) or the connection is ending."""
        transport = self.transport
        if self._resting is not None or self.paused or self.eof or transport is None or transport.is_closing():
            return
        transport.pause_reading()
        self._resting = asyncio.get_running_loop().call_at(until, self._read_again)

    def _read_again(self) -> None:
        self._resting = None
        if not self.paused and self.transport is not None and not self.transport.is_closing():
            self.transport.resume_reading()

    def _wake(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def take(self, max_bytes: int) -> tuple[bytes, list[int], list[float]]:
        """The pieces received and not read yet, joined (as many bytes as `max_bytes` allows), with where each piece
        ends in them and when it arrived."""
        taken: list[bytes] = []
        ends: list[int] = []
        times: list[float] = []
        size = 0
        while self.pieces and size < max_bytes:
            data, arrived = self.pieces.popleft()
            if size + len(data) > max_bytes:
                self.pieces.appendleft((data[max_bytes - size :], arrived))
                data = data[: max_bytes - size]
            taken.append(data)
            size += len(data)
            ends.append(size)
            times.append(arrived)
        self.buffered -= size
        if self.paused and self.buffered < LOW_WATER and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        return b"".join(taken), ends, times


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection as httpcore uses it: reads take from its `_Connection`'s pieces, writes go to the asyncio
    transport, each with httpcore's exceptions and timeouts."""

    def __init__(self, transport: asyncio.Transport, conn: _Connection) -> None:
        self._transport = transport
        self._conn = conn
        self._read = b""
        """What the last read returned, with where each piece in it ends and when it arrived."""
        self._ends: list[int] = []
        self._times: list[float] = []
        self._at = 0
        """Where in `_read` the last piece of it asked about (`arrival`) ends."""

    def arrival(self, part: bytes) -> float:
        """When the last byte of `part` arrived: `part` is the next stretch of what the last read returned that the
        reader passes on (a body's bytes as HTTP/1.1's framing leaves them, found after the last such stretch).
        Found nowhere, it is taken to be the last piece read."""
        found = self._read.find(part, self._at) if part else -1
        if found < 0:
            return self._times[-1] if self._times else time.monotonic()
        self._at = found + len(part)
        return self._times[bisect.bisect_left(self._ends, self._at)]

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        conn = self._conn
        waited = not (conn.pieces or conn.eof)
        if not waited:
            conn.in_a_row += 1
            if conn.in_a_row >= YIELD_READS:  # let the loop run now and then (see YIELD_READS)
                conn.in_a_row = 0
                await asyncio.sleep(0)
        else:
            loop = asyncio.get_running_loop()
            try:
                async with asyncio.timeout(timeout):
                    while not (conn.pieces or conn.eof):
                        conn.waiter = loop.create_future()
                        await conn.waiter
            except TimeoutError:
                raise httpcore.ReadTimeout(f"no data for {timeout} s") from None
            finally:
                conn.waiter = None
                conn.woken = loop.time()
                conn.in_a_row = 0
        if conn.pieces:
            self._read, self._ends, self._times = conn.take(max_bytes)
            self._at = 0
            if waited and len(self._read) < GATHER_BYTES:  # (a trickle: gather what comes next in the kernel)
                conn.rest(conn.woken + GATHER)
            return self._read
        if conn.error is not None:
            raise httpcore.ReadError(str(conn.error) or type(conn.error).__name__) from conn.error
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        drained = self._conn.drained
        if drained is not None and not drained.done():
            try:
                async with asyncio.timeout(timeout):
                    await drained
            except TimeoutError:
                raise httpcore.WriteTimeout(f"could not send for {timeout} s") from None

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> AsyncioStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._conn, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.close()
            raise httpcore.ConnectTimeout(f"the TLS handshake took longer than {timeout} s") from None
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        assert isinstance(transport, asyncio.Transport)
        self._conn.transport = transport
        return AsyncioStream(transport, self._conn)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        if info == "is_readable":  # a pooled connection the server closed, or that has data nobody asked for
            return self._readable()
        return None

    def _readable(self) -> bool:
        if self._conn.pieces or self._conn.eof:
            return True
        sock = self._transport.get_extra_info("socket")
        return sock is None or _readable_now(sock)


def _readable_now(sock: socket.socket) -> bool:
    """Whether `sock` has data, an end or an error waiting. `poll` takes a descriptor of any number, where
    `select` refuses those from FD_SETSIZE (1024) up; `select` is left for where there is no `poll` (Windows,
    whose `select` has no such bound)."""
    if not hasattr(select, "poll"):
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable)
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend that opens every connection as an asyncio protocol (`AsyncioStream`)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> AsyncioStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        return await _connect(
            lambda conn: loop.create_connection(lambda: conn, host, port, local_addr=local, happy_eyeballs_delay=0.25),
            timeout,
            socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> AsyncioStream:
        loop = asyncio.get_running_loop()
        return await _connect(lambda conn: loop.create_unix_connection(lambda: conn, path), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(
    open_connection: Callable[[_Connection], Awaitable[tuple[asyncio.BaseTransport, asyncio.BaseProtocol]]],
    timeout: float | None,
    socket_options: Iterable[SocketOption] | None,
) -> AsyncioStream:
    """A connection opened by `open_connection` for a fresh `_Connection`, with httpcore's exceptions."""
    conn = _Connection()
    try:
        async with asyncio.timeout(timeout):
            transport, _ = await open_connection(conn)
    except TimeoutError:
        raise httpcore.ConnectTimeout(f"connecting took longer than {timeout} s") from None
    except OSError as exc:
        raise httpcore.ConnectError(str(exc)) from exc
    assert isinstance(transport, asyncio.Transport)
    for option in socket_options or ():
        transport.get_extra_info("socket").setsockopt(*option)
    return AsyncioStream(transport, conn)
