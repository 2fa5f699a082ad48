"""`chatterm show` of tool-using recordings: each call with its name and arguments, each result as a result (never an
empty user turn), for chat completions, Anthropic, Gemini and Responses recordings; `--json` gives the results each
request sends back, structured; and an answer stopped at the token limit says so under it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.write import render
from tests import native_shapes
from tests.conftest import CORPUS, run_chatterm

PARALLEL = CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml"
ANTHROPIC = CORPUS / "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml"
GEMINI = CORPUS / "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml"
HISTORY_CALL = CORPUS / "pydai__test_groq__test_tool_use_failed_error.yaml"
SSE = {"content-type": ["text/event-stream"]}
RESPONSES_URL = "http://127.0.0.1/v1/responses"


def _event(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def responses_call_stream() -> bytes:
    """A Responses stream whose answer is one `add` call, its arguments in two deltas (OpenAI's streaming events)."""
    head = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-fault", "output": []}
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_add", "name": "add", "arguments": ""}
    whole = {**call, "arguments": '{"a": 2, "b": 3}', "status": "completed"}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": head},
        {"type": "response.output_item.added", "output_index": 0, "item": call},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": '{"a": 2,'},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": ' "b": 3}'},
        {"type": "response.output_item.done", "output_index": 0, "item": whole},
        {"type": "response.completed", "response": {**head, "status": "completed", "output": [whole]}},
    ]
    return b"".join(_event(event) for event in events)


def responses_recording(path: Path) -> Path:
    """Two Responses turns: a call, then its `function_call_output` sent back and the answer."""
    asked = [{"role": "user", "content": "Add 2 and 3"}]
    sent_back = [
        *asked,
        {"type": "function_call", "call_id": "call_add", "name": "add", "arguments": '{"a": 2, "b": 3}'},
        {"type": "function_call_output", "call_id": "call_add", "output": "5"},
    ]
    interactions = [
        Interaction(
            Request("POST", RESPONSES_URL, body=json.dumps({"model": "gpt-fault", "input": history}).encode()),
            Response(200, SSE, body),
        )
        for history, body in (
            (asked, responses_call_stream()),
            (sent_back, b"".join(native_shapes.responses(["The sum is 5."]))),
        )
    ]
    path.write_bytes(render(Recording("vcr", interactions)))
    return path


def fenced_after(text: str, header: str) -> str:
    """The fenced block right under the line that starts with `header`."""
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith(header))
    fence = lines[at + 1]
    assert fence.startswith("```"), f"a fenced block under {header!r}, not {fence!r}"
    closing = fence[: len(fence) - len(fence.lstrip("`"))]
    end = next(n for n in range(at + 2, len(lines)) if lines[n] == closing)
    return "\n".join(lines[at + 2 : end])


CASES: dict[str, tuple[Path | None, list[tuple[str, dict[str, Any], str]]]] = {
    "chat-completions": (PARALLEL, [("add", {"a": 2, "b": 3}, "5"), ("multiply", {"a": 2, "b": 3}, "6")]),
    "anthropic": (ANTHROPIC, [("weather", {"location": "Florence, Italy"}, "40 C")]),
    "gemini": (GEMINI, [("weather", {"location": "Florence, Italy"}, json.dumps({"result": "40 C"}, indent=2))]),
    "responses": (None, [("add", {"a": 2, "b": 3}, "5")]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_show_prints_each_call_and_each_result(case: str, tmp_path: Path) -> None:
    """Anthropic and Gemini results were printed as empty turns (`[user] `, `[model] `), Responses calls and results
    as nothing at all, and a call's arguments on one line after its name."""
    path, expected = CASES[case]
    path = path or responses_recording(tmp_path / "responses.yaml")
    shown = run_chatterm("show", str(path))
    assert shown.code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert not [line for line in lines if line.rstrip() in ("[user]", "[model]", "[tool]")], "no empty turn"
    turns = shown.stdout.split("\n## Turn ")
    for name, arguments, result in expected:
        assert json.loads(fenced_after(turns[1], f"[tool call] {name}")) == arguments
        assert fenced_after(turns[2], f"[tool result] {name}") == result, "the result names its tool"


@pytest.mark.parametrize("case", list(CASES))
def test_show_json_gives_the_results_each_request_sends_back(case: str, tmp_path: Path) -> None:
    path, expected = CASES[case]
    path = path or responses_recording(tmp_path / "responses.yaml")
    shown = run_chatterm("show", "--json", str(path))
    assert shown.code == 0, shown.stderr
    first, second = json.loads(shown.stdout)["turns"]
    calls = first["response"]["tool_calls"]
    assert [(call["name"], json.loads(call["arguments"])) for call in calls] == [(n, a) for n, a, _ in expected]
    assert first["request"]["tool_results"] == [] and first["request"]["tool_calls"] == []
    results = second["request"]["tool_results"]
    assert [(result["name"], result["content"]) for result in results] == [(n, r) for n, _, r in expected]
    if case != "gemini":  # (Gemini's results name the tool, not the call)
        assert [result["call_id"] for result in results] == [call["id"] for call in calls]
    assert second["request"]["tool_calls"] == [], "the calls sent back are the answer's, given under it already"
    assert "messages" in second["request"], "what was there stays"


def test_a_call_only_the_history_holds_shows_with_its_result() -> None:
    """A request that sends back a call no recorded answer made (the client made it after an error) printed the result
    alone, as `[tool] ...`, the call never."""
    shown = run_chatterm("show", str(HISTORY_CALL))
    turn = shown.stdout.split("\n## Turn ")[2]
    assert json.loads(fenced_after(turn, "[tool call] get_something_by_name")) == {"foo": "bar"}
    assert fenced_after(turn, "[tool result] get_something_by_name").startswith("2 validation errors:")
    assert turn.index("[tool call]") < turn.index("[tool result]") < turn.index("[reasoning]")
    data = json.loads(run_chatterm("show", "--json", str(HISTORY_CALL)).stdout)
    (call,) = data["turns"][1]["request"]["tool_calls"]
    assert (call["name"], call["arguments"]) == ("get_something_by_name", '{"foo":"bar"}')


def _stopped(api: str) -> tuple[str, bytes]:
    if api == "openai":
        chunks = [{"choices": [{"index": 0, "delta": {"content": "A long answer"}, "finish_reason": None}]}]
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
        body = b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"
        return "http://127.0.0.1/v1/chat/completions", body
    urls = {
        "anthropic": "http://127.0.0.1/v1/messages",
        "gemini": "http://127.0.0.1/v1beta/models/g:streamGenerateContent?alt=sse",
        "responses": RESPONSES_URL,
    }
    return urls[api], b"".join(native_shapes.stopped(api, ["A long", " answer"], filtered=False))


@pytest.mark.parametrize("api", ["openai", "anthropic", "gemini", "responses"])
def test_show_notes_an_answer_stopped_at_the_token_limit(api: str, tmp_path: Path) -> None:
    """`show` said nothing of an answer cut at the token limit (`length`, `max_tokens`, `MAX_TOKENS`)."""
    url, body = _stopped(api)
    history: list[dict[str, Any]] = [{"role": "user", "content": "Tell me everything"}]
    if api == "gemini":
        history = [{"role": "user", "parts": [{"text": "Tell me everything"}]}]
    key = "contents" if api == "gemini" else "input" if api == "responses" else "messages"
    request = Request("POST", url, body=json.dumps({"model": "m", key: history}).encode())
    path = tmp_path / "stopped.yaml"
    path.write_bytes(render(Recording("vcr", [Interaction(request, Response(200, SSE, body))])))
    shown = run_chatterm("show", str(path))
    assert shown.code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    answer = next(n for n, line in enumerate(lines) if line.startswith("[assistant] A long answer"))
    assert "[note] stopped at the token limit" in lines[answer + 1 :], shown.stdout
