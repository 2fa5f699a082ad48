"""Attempts: an overload is retried before the answer begins like a 5xx; a request that gets no answer at all is
still recorded; and a turn retried is one turn, its attempts kept in the file and marked."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import RETRIED
from chatterm.conversation.reply import Reply
from chatterm.events import StreamWarning
from chatterm.net.client import ChatClient
from chatterm.net.endpoint import Endpoint
from tests.conftest import LoopThread, assert_one_line_error, run_chatterm, show_json
from tests.conftest import ask_faults as ask
from tests.faultserver import ANSWER, PARTIAL, FaultServer


async def answer(base_url: str) -> tuple[Reply, list[Any]]:
    endpoint = Endpoint(base_url=base_url, model="fault-model", api_key="sk-test-key-123456", read_timeout=5.0)
    reply, events = Reply(), []
    async with ChatClient(endpoint) as client:
        async for event in client.stream([{"role": "user", "content": "hi"}]):
            events.append(event)
            reply.add(event)
    return reply, events


@pytest.mark.usefixtures("network")
@pytest.mark.parametrize("scenario", ["e529-then-ok", "overloaded-body-then-ok", "overloaded-event-then-ok"])
async def test_an_overload_before_the_answer_is_retried(faults: FaultServer, scenario: str) -> None:
    reply, events = await answer(faults.url(scenario))
    assert reply.content == ANSWER and reply.error is None
    assert faults.counts[scenario] == 2
    (warning,) = [e for e in events if isinstance(e, StreamWarning)]
    assert "Overloaded" in warning.message and "retrying in" in warning.message


@pytest.mark.usefixtures("network")
@pytest.mark.parametrize("scenario", ["e529", "overloaded-event"])
async def test_an_overload_that_lasts_is_retried_within_the_limits_then_shown(
    faults: FaultServer, scenario: str
) -> None:
    reply, events = await answer(faults.url(scenario))
    assert faults.counts[scenario] == 3, "two retries, as for any 5xx"
    assert reply.error is not None and "Overloaded" in reply.error.message
    warnings = [e.message for e in events if isinstance(e, StreamWarning)]
    assert len(warnings) == 2
    if scenario == "e529":
        assert reply.error.status == 529
        assert all(w.endswith("retrying in 0.1 s") for w in warnings), "the server's Retry-After is honoured"


@pytest.mark.usefixtures("network")
async def test_an_overload_after_part_of_the_answer_is_not_retried(faults: FaultServer) -> None:
    reply, _ = await answer(faults.url("late-overload"))
    assert faults.counts["late-overload"] == 1
    assert reply.content == PARTIAL and reply.error is not None and "Overloaded" in reply.error.message


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def untrusted_server(loop_thread: LoopThread) -> Iterator[FaultServer]:
    """The fault server over TLS, with a certificate from an authority nobody trusts."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("127.0.0.1").configure_cert(context)
    server = FaultServer(tls=context)
    loop_thread.run(server.start())
    yield server
    loop_thread.run(server.stop())


@pytest.mark.parametrize("failure", ["refused", "silent", "tls"])
def test_record_keeps_a_request_that_got_no_answer(
    fault_server: Any, untrusted_server: FaultServer, tmp_path: Path, failure: str
) -> None:
    base_url, words = {
        "refused": (f"http://127.0.0.1:{closed_port()}/v1", "connection refused"),
        "silent": (fault_server.url("silent"), "no answer: no data from"),
        "tls": (untrusted_server.url("ok"), "CERTIFICATE_VERIFY_FAILED"),
    }[failure]
    record = tmp_path / "failed.yaml"
    result = ask(base_url, "--record", str(record), "--read-timeout", "0.5")
    assert result.code == 1 and result.stdout == ""
    assert_one_line_error(result)
    error = result.stderr.splitlines()[-1].removeprefix("chatterm: ")
    assert words in error
    (turn,) = show_json(record)["turns"]
    assert turn["request"]["messages"] == [{"role": "user", "content": "hi"}]
    assert turn["response"]["status"] is None and turn["response"]["content"] == ""
    assert turn["response"]["error"] == {"status": None, "message": error}
    shown = run_chatterm("show", str(record))
    assert shown.code == 0 and f"[error] {error}" in shown.stdout


@pytest.mark.parametrize("scenario", ["e429-then-ok", "overloaded-event-then-ok"])
def test_a_retried_turn_is_one_turn_its_attempts_kept_and_marked(
    fault_server: Any, tmp_path: Path, scenario: str
) -> None:
    record = tmp_path / "retried.yaml"
    result = ask(fault_server.url(scenario), "--record", str(record), "--no-reasoning")
    assert result.code == 0 and result.stdout == ANSWER
    first, second = load_recording(record).interactions
    assert first.meta.get(RETRIED) is True and RETRIED not in second.meta, "both attempts are in the file, marked"
    (turn,) = show_json(record)["turns"]
    assert turn["response"]["content"] == ANSWER and turn["response"]["error"] is None
    (attempt,) = turn["retried"]
    assert attempt["error"] is not None and attempt["content"] == ""
    shown = run_chatterm("show", str(record)).stdout
    assert shown.count("## Turn") == 1 and "[retried] " in shown and f"[assistant] {ANSWER}" in shown
