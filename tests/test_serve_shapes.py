"""`chatterm serve` answers on `/v1/chat/completions` in the shape the client asked for, whatever API the recording
holds: OpenAI `chat.completion.chunk` events ending in `[DONE]` for `stream: true`, one `chat.completion` otherwise,
carrying what `show --json` reports; the recording's errors as OpenAI errors, error events or a cut connection, as
recorded; at the recorded pace. Through the real command, read as curl reads it (the raw wire)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from chatterm.cassette.load import load_recording
from tests import shapes
from tests.conftest import CORPUS, Served, run_chatterm
from tests.faultserver import PARTIAL, WORDS, FaultServer
from tests.openai_wire import QUESTION, data_payloads, fold_chunks, fold_completion, wanted

NATIVE = {
    "anthropic": "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml",
    "anthropic-redacted": "pydai__test_anthropic__test_anthropic_model_thinking_part_redacted_stream.yaml",
    "anthropic-via-ollama": "lls__messages__f22657bfd86db6348c0a0d0b17332dcfc038b345d2a7be8da4b880a433d36a52.json",
    "gemini": "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml",
    "ollama": "otel__ollama__test_ollama_streaming_chat_legacy.yaml",
    "bedrock": "fantasy__TestBedrockCommon__bedrock-anthropic-claude-3-haiku__simple_streaming.yaml",
    "json": "fantasy__TestOpenAICommon__openai-gpt-4o__simple.yaml",
    "json-with-reasoning": "pydai__test_groq__test_tool_use_failed_error.yaml",
    "mistral-thinking-parts": "pydai__test_mistral__test_mistral_model_thinking_part_iter.yaml",
    "think-tags": "lls__inference__65eba1be095a7037c4f197f4168b310ebc8afc00aba3946ba498abe2fdbe6a63.json",
}
"""Recordings whose answers are not an OpenAI chat stream a plain client reads as `show` does."""


def responses(path: Path) -> list[dict[str, Any]]:
    """What `show --json` reports of each turn, in the order `serve` plays them (the real command)."""
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0, result.stderr
    return [turn["response"] for turn in json.loads(result.stdout)["turns"]]


def ask(base_url: str, stream: bool | None) -> httpx.Response:
    body: dict[str, Any] = {"model": "any", "messages": QUESTION}
    if stream is not None:
        body["stream"] = stream
    return httpx.post(base_url + "/chat/completions", json=body, timeout=30)


def check_chunks(response: httpx.Response) -> list[Any]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    payloads = data_payloads(response.content)
    for chunk in payloads:
        if chunk == "[DONE]" or "error" in chunk:
            continue
        assert chunk["object"] == "chat.completion.chunk"
        assert isinstance(chunk["id"], str) and isinstance(chunk["created"], int) and isinstance(chunk["model"], str)
        for choice in chunk["choices"]:
            assert choice["index"] == 0 and isinstance(choice["delta"], dict)
    return payloads


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_a_recording_of_any_api_is_answered_in_openai_shape(name: str, served: Callable[..., Served]) -> None:
    path = CORPUS / NATIVE[name]
    expected = [r for r in responses(path) if r["error"] is None]
    assert expected
    server = served(path, "--instant")
    for number, response in enumerate(responses(path)):
        answered = ask(server.base_url, stream=True)
        if response["error"] is not None:
            continue
        payloads = check_chunks(answered)
        assert payloads[-1] == "[DONE]", f"turn {number + 1} ends with [DONE]"
        assert fold_chunks(payloads) == wanted(response), f"turn {number + 1}"
    for number, response in enumerate(responses(path)):  # (every turn played: playback starts over)
        whole = ask(server.base_url, stream=None)  # the OpenAI default: not streamed
        if response["error"] is not None:
            continue
        assert whole.status_code == 200 and whole.headers["content-type"] == "application/json"
        completion = whole.json()
        assert completion["object"] == "chat.completion"
        expected_whole = wanted(response) | {"finish_reason": response["finish_reason"] or "stop"}
        assert fold_completion(completion) == expected_whole, f"turn {number + 1}"


def test_an_http_error_is_answered_with_its_status_and_an_openai_error(served: Callable[..., Served]) -> None:
    path = CORPUS / "pydai__test_openrouter__test_openrouter_errors_raised.yaml"
    server = served(path, "--instant")
    for stream in (True, False, None):
        answered = ask(server.base_url, stream)
        assert answered.status_code == 429
        error = answered.json()["error"]
        assert error["message"] == "Provider returned error" and error["code"] == 429  # the recorded body


def test_an_anthropic_http_error_becomes_an_openai_error(tmp_path: Path, served: Callable[..., Served]) -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    path = cassette(tmp_path / "overloaded.yaml", [json.dumps(body)], status=529, content_type="application/json")
    server = served(path, "--instant")
    for stream in (True, False):
        answered = ask(server.base_url, stream)
        assert answered.status_code == 529
        assert answered.json() == {"error": {"message": "Overloaded", "type": "overloaded_error", "code": None}}


def test_an_error_inside_the_stream_is_an_error_event_after_what_came_before(served: Callable[..., Served]) -> None:
    path = CORPUS / "pydai__test_openrouter__test_openrouter_stream_error.yaml"
    (response,) = responses(path)
    assert response["error"]["message"] == "error 400 in stream: Token limit reached" and response["reasoning"]
    server = served(path, "--instant")
    payloads = check_chunks(ask(server.base_url, stream=True))
    assert payloads[-1] == {"error": {"message": "Token limit reached", "type": "stream_error", "code": 400}}
    assert "[DONE]" not in payloads
    assert fold_chunks(payloads) == wanted(response)
    whole = ask(server.base_url, stream=False)
    assert whole.status_code == 400
    assert whole.json()["error"]["message"] == "Token limit reached"


def recorded(fault_server: FaultServer, scenario: str, tmp_path: Path) -> Path:
    """An answer that ended badly, recorded by `ask --record` from the fault server."""
    path = tmp_path / f"{scenario}.yaml"
    result = run_chatterm("ask", "--base-url", fault_server.url(scenario), "--record", str(path), "hi")
    assert result.code == 1, result.stderr
    return path


@pytest.mark.parametrize("scenario", ["cut", "cut-anthropic", "cut-gemini", "cut-ollama", "drop"])
def test_an_answer_cut_short_is_cut_short_again(
    scenario: str, fault_server: FaultServer, tmp_path: Path, served: Callable[..., Served]
) -> None:
    path = recorded(fault_server, scenario, tmp_path)
    (response,) = responses(path)
    assert response["content"] == PARTIAL and response["error"]["status"] is None
    server = served(path, "--instant")
    received = bytearray()
    with (
        pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"),
        httpx.stream("POST", server.base_url + "/chat/completions", json={"messages": QUESTION, "stream": True}) as r,
    ):
        for piece in r.iter_raw():
            received += piece
    payloads = data_payloads(bytes(received))
    assert "[DONE]" not in payloads
    assert fold_chunks(payloads)["content"] == PARTIAL
    whole = ask(server.base_url, stream=False)
    assert whole.status_code == 502 and whole.headers["x-should-retry"] == "false"
    assert whole.json()["error"]["message"] == response["error"]["message"]


@pytest.mark.parametrize("scenario", ["empty", "html", "blank"])
def test_an_answer_that_is_none_is_an_error_event(
    scenario: str, fault_server: FaultServer, tmp_path: Path, served: Callable[..., Served]
) -> None:
    path = recorded(fault_server, scenario, tmp_path)
    (response,) = responses(path)
    server = served(path, "--instant")
    payloads = check_chunks(ask(server.base_url, stream=True))
    assert payloads[-1] == {"error": {"message": response["error"]["message"], "type": "stream_error", "code": None}}
    whole = ask(server.base_url, stream=False)
    assert whole.status_code == 502 and whole.json()["error"]["message"] == response["error"]["message"]


def test_a_request_that_got_no_answer_gets_none(tmp_path: Path, served: Callable[..., Served]) -> None:
    path = tmp_path / "refused.yaml"
    result = run_chatterm("ask", "--base-url", "http://127.0.0.1:9/v1", "--record", str(path), "hi")
    assert result.code == 1 and load_recording(path).interactions[0].response.status is None
    server = served(path, "--instant")
    for stream in (True, False):
        with pytest.raises(httpx.RemoteProtocolError, match="without sending"):
            ask(server.base_url, stream)


def cassette(
    path: Path,
    events: list[str],
    status: int = 200,
    content_type: str = "text/event-stream",
    gap: float | None = None,
) -> Path:
    """A vcrpy cassette of one answer made of `events`; with `gap`, event n was recorded at n * gap seconds."""
    body = "".join(events)
    response: dict[str, Any] = {
        "status": {"code": status, "message": ""},
        "headers": {"Content-Type": [content_type]},
        "body": {"string": body},
    }
    if gap is not None:
        ends, offsets = 0, []
        for number, event in enumerate(events, start=1):
            ends += len(event.encode())
            offsets.append([round(number * gap, 3), ends])
        response["x_chatterm"] = {"offsets": offsets}
    asked = json.dumps({"model": "claude", "messages": [{"role": "user", "content": "hi"}], "stream": True})
    request = {"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "body": asked, "headers": {}}
    path.write_text(yaml.safe_dump({"interactions": [{"request": request, "response": response}], "version": 1}))
    return path


def arrivals(base_url: str) -> list[tuple[float, str]]:
    """When each piece of content arrived, in seconds from the request."""
    out = []
    started = time.monotonic()
    body = {"messages": QUESTION, "stream": True}
    with httpx.stream("POST", base_url + "/chat/completions", json=body, timeout=20) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                content = fold_chunks([json.loads(line[6:])])["content"]
                if content:
                    out.append((time.monotonic() - started, content))
    return out


def test_a_translated_answer_keeps_the_recorded_pace(tmp_path: Path, served: Callable[..., Served]) -> None:
    gap = 0.1
    events = [piece.decode() for piece in shapes.anthropic(WORDS)]
    path = cassette(tmp_path / "paced.yaml", events, gap=gap)
    first_word = 3  # (message_start, content_block_start, then the words)
    for options, speed in (((), 1.0), (("--speed", "4"), 4.0)):
        server = served(path, *options)
        got = arrivals(server.base_url)
        assert "".join(text for _, text in got) == "".join(WORDS)
        for number, (at, _) in enumerate(got):
            assert at >= (first_word + number) * gap / speed * 0.9, f"word {number} came before its time"
        started = time.monotonic()
        assert ask(server.base_url, stream=False).json()["choices"][0]["message"]["content"] == "".join(WORDS)
        assert time.monotonic() - started >= len(events) * gap / speed * 0.9, "a whole answer comes when it ended"
        server.stop()
    slow = cassette(tmp_path / "slow.yaml", events, gap=60.0)  # minutes at its pace: at once when told
    instant = served(slow, "--instant")
    assert "".join(text for _, text in arrivals(instant.base_url)) == "".join(WORDS)
