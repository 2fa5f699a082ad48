"""chatterm's network layer under httpx (asyncio protocols, not anyio) against real servers on 127.0.0.1: TLS,
kept-alive connections, a server that closes an idle one, and a reader that falls behind a fast sender; the
feature check and switch that choose httpx's stock transport instead. Tests that do not look inside chatterm's
backend run on the stock one too (the `network` fixture)."""

from __future__ import annotations

import asyncio
import itertools
import os
import resource
import socket
import ssl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest
import trustme

from chatterm.events import Content
from chatterm.net import sockets
from chatterm.net.client import ChatClient
from chatterm.net.endpoint import Endpoint
from chatterm.net.recorder import Recorder
from chatterm.net.sockets import HIGH_WATER, YIELD_READS, AsyncioBackend, AsyncioStream
from chatterm.net.transport import http_transport
from tests.faultserver import ANSWER, WORDS, FaultServer
from tests.test_client import MESSAGES, ask

RECV_SIZE = 256 * 1024
"""The most asyncio's socket transport receives at once."""


pytestmark = pytest.mark.usefixtures("network")
ASYNCIO_ONLY = pytest.mark.parametrize("network", ["asyncio"], indirect=True)
"""For tests of what only chatterm's backend does (buffering, gathering, yielding to the loop)."""


def test_the_transport_uses_the_backend_asked_for(network: str) -> None:
    backend = http_transport()._pool._network_backend
    assert isinstance(backend, AsyncioBackend) == (network == "asyncio")


@ASYNCIO_ONLY
def test_a_pool_without_the_backend_attribute_gets_the_stock_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    made = httpcore.AsyncConnectionPool.__init__

    def without_backend(pool: httpcore.AsyncConnectionPool, *args: Any, **kwargs: Any) -> None:
        made(pool, *args, **kwargs)
        del pool._network_backend

    monkeypatch.setattr(httpcore.AsyncConnectionPool, "__init__", without_backend)
    transport = http_transport()
    assert not hasattr(transport._pool, "_network_backend")


@ASYNCIO_ONLY
@pytest.mark.parametrize("version", ["0.18.0", "1.1.0", "2.0.0", "dev"])
async def test_an_httpcore_it_was_not_written_for_gets_the_stock_transport(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setattr(httpcore, "__version__", version)
    assert not isinstance(http_transport()._pool._network_backend, AsyncioBackend)
    reply, _ = await ask(faults.url("ok"))
    assert reply.content == ANSWER and reply.error is None


async def test_an_answer_over_tls_and_an_untrusted_certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    server = FaultServer(tls=context)
    await server.start()
    try:
        reply, _ = await ask(server.url("ok"))  # the authority is not trusted yet
        assert reply.error is not None and reply.error.message.startswith("cannot connect to 127.0.0.1")
        assert "CERTIFICATE_VERIFY_FAILED" in reply.error.message
        authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))  # as httpx reads it
        reply, _ = await ask(server.url("ok"))
        assert reply.content == ANSWER and reply.error is None
        reply, _ = await ask(server.url("drop"))
        assert reply.error is not None and "connection was lost" in reply.error.message
    finally:
        await server.stop()


class KeepAlive:
    """Answers any number of requests on one connection; under /close/ it closes the connection after answering."""

    def __init__(self) -> None:
        self.connections = 0
        self.port = 0

    async def start(self) -> asyncio.Server:
        server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        return server

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.lower().split(b"\r\n")
                length = next((int(line[15:]) for line in lines if line.startswith(b"content-length:")), 0)
                await reader.readexactly(length)
                body = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"kept"}}]}'
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
                writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
                if b" /close/" in head:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def test_a_kept_alive_connection_is_reused_and_a_closed_one_replaced() -> None:
    keep = KeepAlive()
    server = await keep.start()
    try:

        def endpoint(path: str) -> Endpoint:
            return Endpoint(base_url=f"http://127.0.0.1:{keep.port}/{path}/v1", model="m")

        async with ChatClient(endpoint("keep")) as client:
            for _ in range(3):
                texts = [getattr(event, "text", "") async for event in client.stream(MESSAGES)]
                assert "".join(texts) == "kept"
            assert keep.connections == 1
            client.endpoint = endpoint("close")
            assert "".join([getattr(e, "text", "") async for e in client.stream(MESSAGES)]) == "kept"
            await asyncio.sleep(0.1)  # the server's close reaches the idle connection in the pool
            client.endpoint = endpoint("keep")
            assert "".join([getattr(e, "text", "") async for e in client.stream(MESSAGES)]) == "kept"
            assert keep.connections == 2
    finally:
        server.close()
        await server.wait_closed()


@contextmanager
def fds_taken_up_to(lowest: int) -> Iterator[None]:
    """Every file descriptor below `lowest` in use (the soft limit raised if needed), so the next socket's is above."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = lowest + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip(f"the limit on open files ({hard}) is below {wanted}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    taken: list[int] = []
    try:
        while not taken or taken[-1] < lowest:
            taken.append(os.open(os.devnull, os.O_RDONLY))  # the lowest free descriptor each time
        yield
    finally:
        for fd in taken:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_a_kept_alive_connection_is_reused_with_more_than_1024_files_open() -> None:
    keep = KeepAlive()
    with fds_taken_up_to(1024):
        server = await keep.start()
        try:
            with socket.socket() as probe:
                assert probe.fileno() > 1024
            endpoint = Endpoint(base_url=f"http://127.0.0.1:{keep.port}/keep/v1", model="m")
            async with ChatClient(endpoint) as client:
                for _ in range(2):  # the second asks whether the pooled connection was closed meanwhile
                    events = [event async for event in client.stream(MESSAGES)]
                    assert "".join(getattr(event, "text", "") for event in events) == "kept", events
            assert keep.connections == 1
        finally:
            server.close()
            await server.wait_closed()


async def flood(size: int) -> asyncio.Server:
    """A server that sends a `size`-byte body as fast as the socket takes it."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
        block = b"x" * 65536
        for _ in range(size // len(block)):
            writer.write(block)
            await writer.drain()
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


@ASYNCIO_ONLY
async def test_a_reader_that_falls_behind_holds_a_bounded_buffer() -> None:
    size = 8 * 1024 * 1024
    server = await flood(size)
    port = server.sockets[0].getsockname()[1]
    try:
        async with (
            httpx.AsyncClient(transport=http_transport()) as client,
            client.stream("GET", f"http://127.0.0.1:{port}/") as response,
        ):
            stream = response.extensions["network_stream"]
            assert isinstance(stream, AsyncioStream)
            chunks = response.aiter_raw()
            total = len(await anext(chunks))
            await asyncio.sleep(0.3)  # the server keeps sending, nothing reads
            assert stream._conn.buffered <= HIGH_WATER + RECV_SIZE
            async for chunk in chunks:
                total += len(chunk)
            assert total == size
    finally:
        server.close()
        await server.wait_closed()


@ASYNCIO_ONLY
async def test_a_fast_sender_does_not_starve_the_event_loop() -> None:
    """Reads of data already received still let the loop run now and then (the screen, a key to stop the answer)."""
    server = await flood(16 * 1024 * 1024)
    port = server.sockets[0].getsockname()[1]
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    beating = asyncio.create_task(heartbeat())
    try:
        async with (
            httpx.AsyncClient(transport=http_transport()) as client,
            client.stream("GET", f"http://127.0.0.1:{port}/") as response,
        ):
            await asyncio.sleep(0.2)  # the buffer fills: the next reads find data waiting
            seen, unbroken, longest = ticks, 0, 0
            async for _ in response.aiter_raw():
                unbroken = unbroken + 1 if ticks == seen else 0
                longest, seen = max(longest, unbroken), ticks
        assert 1 < longest < YIELD_READS, f"the loop ran every {YIELD_READS} reads"
    finally:
        beating.cancel()
        server.close()
        await server.wait_closed()


@ASYNCIO_ONLY
async def test_a_trickle_is_read_in_gathered_pieces_each_stamped_within_gather_of_its_arrival(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While data trickles in, the reader is woken once per GATHER and the socket rests in between: what arrives
    meanwhile is received and read in one go, stamped when received (at most GATHER late). A piece after a quiet
    spell longer than GATHER, and the end of the stream, are received, read and stamped at once."""
    monkeypatch.setattr(sockets, "GATHER", 0.5)
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    conn = sockets._Connection()
    transport, _ = await loop.create_connection(lambda: conn, sock=ours)
    assert isinstance(transport, asyncio.Transport)
    stream = AsyncioStream(transport, conn)
    try:
        first = asyncio.create_task(stream.read(1024))
        await asyncio.sleep(0)
        one_sent = time.monotonic()
        theirs.send(b"one")  # the reader has not been woken for longer than GATHER: at once
        assert await asyncio.wait_for(first, 0.4) == b"one"
        assert stream.arrival(b"one") - one_sent < 0.2

        reading = asyncio.create_task(stream.read(1024))
        two_sent = time.monotonic()
        theirs.send(b"two")
        await asyncio.sleep(0.05)
        theirs.send(b"three")
        await asyncio.sleep(0.05)
        assert not reading.done(), "woken within GATHER of the last waking"
        assert await reading == b"twothree"
        read_at = time.monotonic()
        two_at, three_at = stream.arrival(b"two"), stream.arrival(b"three")
        assert two_sent + 0.1 < two_at <= three_at <= read_at, "received together, when the socket's rest ended"
        assert two_at - two_sent < 0.5 + 0.15, "at most GATHER after it arrived"
        assert stream.arrival(b"elsewhere") == three_at  # (not read: the last piece's time)

        await asyncio.sleep(0.6)  # quiet for longer than GATHER
        quiet = asyncio.create_task(stream.read(1024))
        await asyncio.sleep(0)
        four_sent = time.monotonic()
        theirs.send(b"four")
        assert await asyncio.wait_for(quiet, 0.3) == b"four"
        assert stream.arrival(b"four") - four_sent < 0.1, "stamped as it arrived"

        await asyncio.sleep(0.6)
        ending = asyncio.create_task(stream.read(1024))
        await asyncio.sleep(0)
        started = time.monotonic()
        theirs.close()
        assert await ending == b""
        assert time.monotonic() - started < 0.3, "the end of the stream wakes the reader at once"
    finally:
        transport.close()
        theirs.close()


async def _paced_recording(gap: float) -> tuple[list[float], list[float]]:
    """When each word of the `paced` answer (`gap` apart) reached the client, and the offsets its recording keeps."""
    server = FaultServer(gap=gap)
    await server.start()
    try:
        recorder = Recorder()
        received: list[float] = []
        endpoint = Endpoint(base_url=server.url("paced"), model="m")
        async with ChatClient(endpoint, recorder=recorder) as client:
            async for event in client.stream(MESSAGES):
                if isinstance(event, Content):
                    received.append(time.monotonic())
        assert len(received) == len(WORDS)
        offsets = recorder.interactions[0].response.offsets
        assert offsets is not None and len(offsets) == len(WORDS) + 2  # (the finish, [DONE])
        return received, [at for at, _ in offsets[: len(WORDS)]]
    finally:
        await server.stop()


@ASYNCIO_ONLY
async def test_a_recording_stamps_events_further_apart_than_gather_each_with_its_own_time() -> None:
    _, recorded = await _paced_recording(gap=0.06)
    recorded_gaps = [b - a for a, b in itertools.pairwise(recorded)]
    assert all(gap > 0.03 for gap in recorded_gaps), recorded_gaps  # 0.06 s apart, as the server sent them


@ASYNCIO_ONLY
async def test_a_recording_keeps_the_pace_of_gathered_reads_to_within_gather(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read in a few gathered reads, the words keep the pace they were sent at: each recorded within GATHER of when
    it was sent, not when the reader took it."""
    monkeypatch.setattr(sockets, "GATHER", 0.2)
    received, recorded = await _paced_recording(gap=0.06)
    gaps = [b - a for a, b in itertools.pairwise(received)]
    assert sum(gap > 0.03 for gap in gaps) <= 4, "the words were read in a few gathered reads"
    sent = [recorded[0] + 0.06 * i for i in range(len(recorded))]  # (the first comes after a quiet spell: exact)
    assert all(-0.03 < at - due < 0.2 + 0.05 for at, due in zip(recorded, sent, strict=True)), (recorded, sent)
    assert recorded[-1] - recorded[0] > 0.06 * (len(recorded) - 1) - 0.2
