"""The network as the environment sets it: proxies (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`) through a
forward proxy on 127.0.0.1, and `CHATTERM_STOCK_NETWORK`."""

from __future__ import annotations

import asyncio
import socket
import ssl
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import trustme

from chatterm.events import Content
from chatterm.net.proxies import proxy_for
from chatterm.net.recorder import Recorder
from tests.conftest import TEST_KEY, LoopThread, Result, run_chatterm
from tests.faultserver import ANSWER, WORDS, FaultServer
from tests.test_client import ask as ask_client


class ForwardProxy:
    """An HTTP proxy on 127.0.0.1: forwards requests made to an absolute URI and tunnels CONNECT, keeping the
    method and target of every request it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

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
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        line, _, rest = head.partition(b"\r\n")
        method, target, version = line.decode("latin-1").split(" ")
        self.asked.append(f"{method} {target}")
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            url = urlsplit(target)
            upstream = await asyncio.open_connection(url.hostname, url.port or 80)
            path = url.path + (f"?{url.query}" if url.query else "")
            upstream[1].write(f"{method} {path} {version}\r\n".encode("latin-1") + rest)
        await asyncio.gather(_pipe(reader, upstream[1]), _pipe(upstream[0], writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


@pytest.fixture
async def proxy() -> Any:
    server = ForwardProxy()
    await server.start()
    yield server
    await server.stop()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
async def test_a_chat_goes_through_the_proxy_the_environment_names(
    faults: FaultServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, proxy.url)
    recorder = Recorder()
    reply, events = await ask_client(faults.url("ok"), recorder=recorder)
    assert proxy.asked == [f"POST {faults.url('ok')}/chat/completions"]
    assert reply.content == ANSWER and reply.error is None
    texts = [event.text for event in events if isinstance(event, Content)]
    assert len(texts) == len(WORDS) and "".join(texts) == ANSWER  # streamed, event by event (a piece of a word that
    # could start the key waits for the next event: chatterm.net.masking)
    (interaction,) = recorder.interactions
    assert interaction.request is not None and interaction.request.url == f"{faults.url('ok')}/chat/completions"
    assert all(word.encode() in interaction.response.body for word in WORDS)


@pytest.mark.usefixtures("network")
@pytest.mark.parametrize(
    ("variable", "hosts"),
    [("NO_PROXY", "127.0.0.1"), ("no_proxy", "example.com, 127.0.0.1"), ("NO_PROXY", "*")],
)
async def test_a_host_no_proxy_covers_is_reached_directly(
    faults: FaultServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch, variable: str, hosts: str
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv(variable, hosts)
    reply, _ = await ask_client(faults.url("ok"))
    assert reply.content == ANSWER and reply.error is None
    assert proxy.asked == []


async def test_https_goes_through_the_https_proxy_in_a_tunnel(
    proxy: ForwardProxy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")  # for http:// URLs only
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    server = FaultServer(tls=context)
    await server.start()
    try:
        reply, _ = await ask_client(server.url("ok"))
        assert reply.content == ANSWER and reply.error is None
        assert proxy.asked == [f"CONNECT 127.0.0.1:{server.port}"]
    finally:
        await server.stop()


async def test_a_proxy_that_cannot_be_reached_is_named_without_its_password(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = closed_port()
    monkeypatch.setenv("HTTP_PROXY", f"http://someone:pa55word@127.0.0.1:{port}")
    reply, _ = await ask_client(faults.url("ok"))
    assert reply.error is not None
    assert reply.error.message == (
        f"cannot connect to 127.0.0.1:{faults.port} via the proxy http://127.0.0.1:{port}: "
        "connection refused (is the server running?)"
    )
    assert faults.counts == {}


async def test_a_proxy_httpx_cannot_use_ends_the_answer_with_an_error(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "ftp://127.0.0.1:2121")
    reply, events = await ask_client(faults.url("ok"))
    assert reply.error is not None and events == [reply.error]
    assert reply.error.message.startswith(
        f"request to 127.0.0.1:{faults.port} failed at the proxy ftp://127.0.0.1:2121: cannot use this proxy"
    )
    assert reply.error.message.endswith("(check HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY)")


@pytest.mark.parametrize(
    ("url", "proxies", "expected"),
    [
        ("https://api.x.ai/v1", {"https": "http://s:1", "all": "http://a:1"}, "http://s:1"),
        ("http://api.x.ai/v1", {"https": "http://s:1", "all": "http://a:1"}, "http://a:1"),
        ("http://api.x.ai/v1", {"http": "proxy.corp:3128"}, "http://proxy.corp:3128"),
        ("https://api.corp.com/v1", {"all": "http://a:1", "no": ".corp.com"}, None),
        ("https://corp.com/v1", {"all": "http://a:1", "no": "*.corp.com"}, None),
        ("https://notcorp.com/v1", {"all": "http://a:1", "no": "corp.com"}, "http://a:1"),
        ("https://api.corp.com/v1", {"all": "http://a:1", "no": "api.corp.com:443"}, None),
        ("https://api.corp.com:8443/v1", {"all": "http://a:1", "no": "api.corp.com:443"}, "http://a:1"),
        ("http://[::1]:8000/v1", {"all": "http://a:1", "no": "::1"}, None),
        ("http://[::1]:8000/v1", {"all": "http://a:1", "no": "[::1]:8000"}, None),
        ("http://api.x.ai/v1", {"no": "*"}, None),
    ],
)
def test_the_proxy_that_applies_to_a_url(url: str, proxies: dict[str, str], expected: str | None) -> None:
    assert proxy_for(httpx.URL(url), proxies) == expected


def ask(base_url: str, **env: str) -> Result:
    options = ["--base-url", base_url, "--model", "fault-model", "--api-key-env", "FAULT_KEY"]
    return run_chatterm("ask", *options, "hi", env={"FAULT_KEY": TEST_KEY, **env})


def test_ask_through_a_proxy(fault_server: FaultServer, loop_thread: LoopThread) -> None:
    proxy = ForwardProxy()
    loop_thread.run(proxy.start())
    try:
        result = ask(fault_server.url("ok"), HTTP_PROXY=proxy.url, NO_PROXY="example.com")
        assert result.code == 0, result.stderr
        assert result.stdout == ANSWER
        assert proxy.asked == [f"POST {fault_server.url('ok')}/chat/completions"]
    finally:
        loop_thread.run(proxy.stop())


def test_ask_on_the_stock_network(fault_server: FaultServer) -> None:
    result = ask(fault_server.url("ok"), CHATTERM_STOCK_NETWORK="1")
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
