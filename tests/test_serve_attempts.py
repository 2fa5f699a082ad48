"""`serve` plays the turns `show` counts: a turn retried is played as the attempt that answered it (the attempts
retried before it stay in the file and are not played), and the start-up line counts those turns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from chatterm.cassette.load import load_recording
from tests.conftest import TEST_KEY, Served, run_chatterm
from tests.faultserver import ANSWER, FaultServer

QUESTION: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("scenario", ["e503-then-ok", "e429-then-ok"])
def test_serve_plays_a_retried_turn_as_the_attempt_that_answered_it(
    fault_server: FaultServer, tmp_path: Path, served: Callable[..., Served], scenario: str
) -> None:
    record = tmp_path / "rec.yaml"
    options = ["--api-key-env", "FAULT_KEY", "--model", "fault-model", "--record", str(record), "--no-reasoning"]
    result = run_chatterm("ask", "--base-url", fault_server.url(scenario), *options, "hi", env={"FAULT_KEY": TEST_KEY})
    assert result.code == 0 and result.stdout == ANSWER, result.stderr
    assert len(load_recording(record).interactions) == 2, "the failed attempt stays in the file"
    assert "(vcr, 1 turn)" in run_chatterm("show", str(record)).stdout
    server = served(record, "--instant")
    client = openai.OpenAI(base_url=server.base_url, api_key="not-needed", max_retries=0)
    for _ in range(2):  # (the one turn, and again once every turn has been played)
        stream = client.chat.completions.create(model="fault-model", messages=QUESTION, stream=True)
        assert "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices) == ANSWER
    whole = client.chat.completions.create(model="fault-model", messages=QUESTION)
    assert whole.choices[0].message.content == ANSWER
    assert "serving 1 recorded turn;" in server.stop()
