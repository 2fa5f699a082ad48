"""`chatterm serve` meets malformed requests: each is answered 400 with an OpenAI error in one line, and the server
goes on serving (a raw socket sends each, then a good request is answered)."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import SEEDS, Served

GOOD_BODY = json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": False}).encode()


def post(headers: str, body: bytes = b"") -> bytes:
    return b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + headers.encode() + b"\r\n" + body


MALFORMED = {
    "bad chunk size": post("Transfer-Encoding: chunked\r\n", b"zz\r\n{}\r\n0\r\n\r\n"),
    "negative chunk size": post("Transfer-Encoding: chunked\r\n", b"-5\r\n{}\r\n0\r\n\r\n"),
    "chunk without its line end": post("Transfer-Encoding: chunked\r\n", b"2\r\n{}XX0\r\n\r\n"),
    "Content-Length: abc": post("Content-Length: abc\r\n", b"{}"),
    "Content-Length: -5": post("Content-Length: -5\r\n", b"{}"),
    "Content-Length twice, differing": post("Content-Length: 2\r\nContent-Length: 3\r\n", b"{}"),
    "another transfer coding": post("Transfer-Encoding: gzip\r\n", b"{}"),
    "a request line that is not HTTP": b"HELLO THERE\r\n\r\n",
    "a request line of another protocol": b"GET / FTP/1.0\r\n\r\n",
    "binary noise": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
    "a header line without a colon": post("Content-Length: 2\r\nnot a header\r\n", b"{}"),
    "headers too large": post("X-Filler: " + "a" * 200_000 + "\r\n"),
    "a body that is not JSON": post("Content-Length: 5\r\n", b"hello"),
    "a body that is not UTF-8": post("Content-Length: 4\r\n", b'"\xff\xfe"'),
    "a body nested too deeply": post("Content-Length: 100000\r\n", b"[" * 100_000),
    "a JSON body that is not an object": post("Content-Length: 9\r\n", b"[1, 2, 3]"),
}


TOO_LARGE = {
    "a chunk larger than a body may be": post("Transfer-Encoding: chunked\r\n", b"ffffffffffffffff\r\n{}\r\n"),
    "a Content-Length larger than a body may be": post("Content-Length: 99999999999\r\n", b"{}"),
}


def exchange(address: tuple[str, int], data: bytes) -> bytes:
    with socket.create_connection(address, timeout=15) as connection:
        with contextlib.suppress(OSError):  # (the server may answer and close before it has read everything sent)
            connection.sendall(data)
        connection.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


def good_request(address: tuple[str, int]) -> bytes:
    return exchange(address, post(f"Content-Length: {len(GOOD_BODY)}\r\n", GOOD_BODY))


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    served = Served(SEEDS / "groq_llama33_stream.sse", "--instant")
    yield served
    served.stop()


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_request_is_answered_400_and_serving_goes_on(name: str, server: Served) -> None:
    answer = exchange(server.address, MALFORMED[name])
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 Bad Request\r\n"), (name, answer[:200])
    message = json.loads(body)["error"]["message"]
    assert message and "\n" not in message
    answered = good_request(server.address)
    assert answered.startswith(b"HTTP/1.1 200 OK\r\n"), answered[:200]
    assert json.loads(answered.partition(b"\r\n\r\n")[2])["choices"][0]["message"]["content"] == "Hello, World!"
    assert server.process.poll() is None, "the server is still running"


@pytest.mark.parametrize("name", sorted(TOO_LARGE))
def test_a_body_too_large_is_refused_413_before_it_is_read(name: str, server: Served) -> None:
    answer = exchange(server.address, TOO_LARGE[name])
    assert answer.startswith(b"HTTP/1.1 413 Request Entity Too Large\r\n"), answer[:200]
    assert good_request(server.address).startswith(b"HTTP/1.1 200 OK\r\n")


def test_nothing_malformed_reaches_stderr_as_a_traceback(served: Callable[..., Served]) -> None:
    running = served(SEEDS / "groq_llama33_stream.sse", "--instant")
    for data in [*MALFORMED.values(), *TOO_LARGE.values()]:
        exchange(running.address, data)
    assert good_request(running.address).startswith(b"HTTP/1.1 200 OK\r\n")
    stderr = running.stop()
    assert "Traceback" not in stderr and "exception" not in stderr.lower(), stderr
