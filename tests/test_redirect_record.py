"""A redirect within the origin, followed with recording on: `ask --record` shows and saves the answer, and the
recording holds one turn (what was asked, what answered it, and where the request was redirected), which `show`
prints and `serve` plays as one turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from chatterm.cassette.load import load_recording
from tests.conftest import Result, Served, ask_faults, run_chatterm, show_json
from tests.faultserver import ANSWER, FaultServer

QUESTION: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


def ask(base_url: str, *extra: str) -> Result:
    return ask_faults(base_url, "--no-reasoning", *extra, model="m")


@pytest.mark.parametrize("status", [307, 308])
def test_ask_record_follows_a_same_origin_redirect_and_records_one_turn(
    fault_server: FaultServer, tmp_path: Path, served: Callable[..., Served], status: int
) -> None:
    fault_server.redirect_status = status
    fault_server.redirect_to = "/ok/v1/chat/completions"
    record = tmp_path / "r.yaml"
    result = ask(fault_server.url("redirect"), "--record", str(record))
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER and "Traceback" not in result.stderr
    assert fault_server.seen[-1].path == "/ok/v1/chat/completions"
    (exchange,) = load_recording(record).interactions
    assert exchange.request is not None and exchange.request.messages == QUESTION, "what was asked"
    assert exchange.meta["redirects"] == [
        {"status": status, "method": "POST", "url": f"http://127.0.0.1:{fault_server.port}/ok/v1/chat/completions"}
    ]
    (turn,) = show_json(record)["turns"]
    assert turn["request"]["messages"] == QUESTION and turn["retried"] == []
    assert turn["response"]["content"] == ANSWER and turn["response"]["error"] is None
    shown = run_chatterm("show", str(record)).stdout
    assert "(vcr, 1 turn)" in shown and "[skipped]" not in shown and f"[assistant] {ANSWER}" in shown
    server = served(record, "--instant")
    client = openai.OpenAI(base_url=server.base_url, api_key="not-needed", max_retries=0)
    answer = client.chat.completions.create(model="m", messages=QUESTION)
    assert answer.choices[0].message.content == ANSWER
    assert "serving 1 recorded turn;" in server.stop()
