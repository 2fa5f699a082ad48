"""The streaming client against a real fault-injecting server on 127.0.0.1, on chatterm's network backend and on
httpx's stock one (the `network` fixture)."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from chatterm.conversation.reply import Reply
from chatterm.events import StreamError, StreamWarning
from chatterm.net.client import ChatClient
from chatterm.net.endpoint import Endpoint
from chatterm.net.recorder import Recorder
from tests.faultserver import ANSWER, PARTIAL, FaultServer

pytestmark = pytest.mark.usefixtures("network")

MESSAGES = [{"role": "user", "content": "hi"}]


async def ask(base_url: str, read_timeout: float = 5.0, recorder: Recorder | None = None) -> tuple[Reply, list[Any]]:
    endpoint = Endpoint(base_url=base_url, model="fault-model", api_key="sk-test-key-123456", read_timeout=read_timeout)
    reply, events = Reply(), []
    async with ChatClient(endpoint, recorder=recorder) as client:
        async for event in client.stream(MESSAGES):
            events.append(event)
            reply.add(event)
    return reply, events


async def test_a_full_answer(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("ok"))
    assert reply.content == ANSWER
    assert reply.reasoning == "Thinking it over."
    assert reply.usage is not None and reply.usage.total_tokens == 15
    assert reply.finish_reason == "stop" and reply.error is None
    request = faults.seen[-1]
    assert request.body["stream"] is True and request.body["stream_options"] == {"include_usage": True}
    assert request.headers["authorization"] == "Bearer sk-test-key-123456"


async def test_dropped_connection_keeps_the_partial(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("drop"))
    assert reply.content == PARTIAL
    assert reply.error is not None and reply.error.status is None
    assert "connection was lost mid-answer" in reply.error.message


async def test_stall_past_the_read_timeout(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("stall"), read_timeout=0.5)
    assert reply.content == PARTIAL
    assert reply.error is not None and "read timeout" in reply.error.message and "0.5 s" in reply.error.message


@pytest.mark.parametrize(
    ("scenario", "status", "words"),
    [("e401", 401, "Invalid API Key"), ("e500", 500, "Internal server error"), ("e503", 503, "Service unavailable")],
)
async def test_http_errors(faults: FaultServer, scenario: str, status: int, words: str) -> None:
    reply, _ = await ask(faults.url(scenario))
    assert reply.error is not None and reply.error.status == status
    assert reply.error.message == f"HTTP {status}: {words}"
    retried = faults.counts[scenario]
    assert retried == (3 if status >= 500 else 1)  # 5xx are retried twice before the first byte; 401 never


async def test_429_honours_retry_after_then_gives_up(faults: FaultServer) -> None:
    reply, events = await ask(faults.url("e429"))
    assert faults.counts["e429"] == 3
    assert sum(isinstance(e, StreamWarning) for e in events) == 2
    assert reply.error is not None and reply.error.status == 429
    assert "Rate limit reached for model fault-model" in reply.error.message


async def test_429_then_success(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("e429-then-ok"))
    assert reply.content == ANSWER and reply.error is None


async def test_error_event_mid_stream(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("errorevent"))
    assert reply.content == PARTIAL
    assert reply.error is not None and "Overloaded, try again later" in reply.error.message
    reply, _ = await ask(faults.url("errorchunk"))
    assert reply.content == PARTIAL
    assert reply.error is not None and reply.error.message == "error 400 in stream: Token limit reached"


async def test_malformed_line_is_skipped_and_the_stream_goes_on(faults: FaultServer) -> None:
    reply, events = await ask(faults.url("malformed"))
    assert reply.content == ANSWER and reply.error is None
    assert any(isinstance(e, StreamWarning) and "malformed" in e.message for e in events)


async def test_invalid_utf8_is_replaced_not_fatal(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("badutf8"))
    assert reply.content.startswith(PARTIAL + " caf") and "\ufffd" in reply.content and reply.error is None


async def test_one_megabyte_line(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("bigline"))
    assert reply.content == "x" * (1024 * 1024) + " end" and reply.error is None


async def test_no_done_and_json_instead_of_sse(faults: FaultServer) -> None:
    reply, _ = await ask(faults.url("nodone"))
    assert reply.content == ANSWER and reply.error is None
    reply, _ = await ask(faults.url("json"))
    assert reply.content == ANSWER and reply.usage is not None and reply.usage.total_tokens == 11


async def test_refused_connection_and_unknown_host() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reply, _ = await ask(f"http://127.0.0.1:{port}/v1")
    assert reply.error is not None and "connection refused" in reply.error.message
    reply, _ = await ask("http://no-such-host.invalid/v1")
    assert reply.error is not None and reply.error.message.startswith("cannot connect to no-such-host.invalid")


async def test_recorder_keeps_partial_and_error(faults: FaultServer) -> None:
    recorder = Recorder()
    await ask(faults.url("drop"), recorder=recorder)
    (interaction,) = recorder.interactions
    assert PARTIAL.encode() in b"".join(
        line for line in interaction.response.body.split(b"\n") if b"content" in line
    ) or all(w.encode() in interaction.response.body for w in ["Hello", " this"])
    assert interaction.response.error is not None
    assert "connection was lost" in interaction.response.error["message"]
    assert interaction.request is not None
    assert "authorization" not in {k.lower() for k in interaction.request.headers}
    assert interaction.response.offsets, "every event is stamped with its time"


async def test_errors_are_events_never_exceptions(faults: FaultServer) -> None:
    for scenario in ("drop", "e401", "errorevent", "malformed", "nope"):
        reply, events = await ask(faults.url(scenario))
        assert all(not isinstance(e, Exception) for e in events)
        assert reply.error is None or isinstance(reply.error, StreamError)
