"""Attempts: an overload is retried before the answer begins like a 5xx, and a turn retried is one turn, its
attempts kept in the file and marked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import RETRIED
from chatterm.conversation.reply import Reply
from chatterm.events import StreamWarning
from chatterm.net.client import ChatClient
from chatterm.net.endpoint import Endpoint
from tests.conftest import TEST_KEY, Result, run_chatterm
from tests.faultserver import ANSWER, PARTIAL, FaultServer


async def answer(base_url: str) -> tuple[Reply, list[Any]]:
    endpoint = Endpoint(base_url=base_url, model="fault-model", api_key="sk-test-key-123456", read_timeout=5.0)
    reply, events = Reply(), []
    async with ChatClient(endpoint) as client:
        async for event in client.stream([{"role": "user", "content": "hi"}]):
            events.append(event)
            reply.add(event)
    return reply, events


def ask(base_url: str, *extra: str) -> Result:
    options = ["--api-key-env", "FAULT_KEY", "--model", "fault-model"]
    return run_chatterm("ask", "--base-url", base_url, *options, *extra, "hi", env={"FAULT_KEY": TEST_KEY})


def show_json(path: Path) -> dict[str, Any]:
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


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
