"""Every seed and corpus recording opens through `show --json`, with the schema of CONTRACT.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cli.main import main
from tests.conftest import CORPUS, SEEDS, recordings, run_chatterm

RESPONSE_KEYS = {"status", "model", "reasoning", "content", "tool_calls", "finish_reason", "usage", "error"}
USAGE_KEYS = {"prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens", "cached_tokens"}


def show_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["show", str(path), "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def check_schema(data: dict[str, Any]) -> None:
    assert data["format"] in ("vcr", "govcr", "llama-stack", "sse")
    assert data["turns"], "a recording holds at least one turn"
    for turn in data["turns"]:
        request, response = turn["request"], turn["response"]
        if request is not None:
            assert set(request) == {"method", "url", "model", "messages", "tool_calls", "tool_results"}
            assert isinstance(request["messages"], list)
            for call in request["tool_calls"]:
                assert set(call) == {"id", "name", "arguments"}
            for result in request["tool_results"]:
                assert set(result) == {"call_id", "name", "content"} and isinstance(result["content"], str)
        assert set(response) == RESPONSE_KEYS
        assert isinstance(response["reasoning"], str) and isinstance(response["content"], str)
        assert response["status"] is None or isinstance(response["status"], int)
        for call in response["tool_calls"]:
            assert set(call) == {"id", "name", "arguments"}
        if response["usage"] is not None:
            assert set(response["usage"]) == USAGE_KEYS
        if response["error"] is not None:
            assert set(response["error"]) == {"status", "message"} and response["error"]["message"]


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name[:60])
def test_every_recording_opens(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = show_json(path, capsys)
    check_schema(data)
    for turn in data["turns"]:
        response = turn["response"]
        # Something was understood in every turn: text, a tool call, or an explained error.
        assert response["content"] or response["reasoning"] or response["tool_calls"] or response["error"]


def test_groq_seed_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    data = show_json(SEEDS / "groq_llama33_stream.sse", capsys)
    assert data["format"] == "sse"
    (turn,) = data["turns"]
    assert turn["request"] is None
    response = turn["response"]
    assert response["status"] is None
    assert response["content"] == "Hello, World!"
    assert response["reasoning"] == ""
    assert response["model"] == "llama-3.3-70b-versatile"
    assert response["finish_reason"] == "stop"
    assert response["usage"] == {
        "prompt_tokens": 45,
        "completion_tokens": 5,
        "total_tokens": 50,
        "reasoning_tokens": None,
        "cached_tokens": None,
    }
    assert response["error"] is None


def test_together_seed_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    data = show_json(SEEDS / "llama_stack_together_stream.json", capsys)
    assert data["format"] == "llama-stack"
    (turn,) = data["turns"]
    assert turn["request"]["messages"] == [{"role": "user", "content": "Hello, world!"}]
    assert turn["request"]["model"] == "meta-llama/Llama-3.3-70B-Instruct-Turbo-Free"
    assert turn["request"]["url"] == "https://api.together.xyz/v1/v1/chat/completions"
    response = turn["response"]
    assert response["content"] == (
        "Hello! It's nice to meet you. Is there something I can help you with or would you like to chat?"
    )
    assert response["reasoning"] == ""
    assert response["usage"] == {
        "prompt_tokens": 39,
        "completion_tokens": 25,
        "total_tokens": 64,
        "reasoning_tokens": None,
        "cached_tokens": None,
    }
    assert response["finish_reason"] == "stop"


def test_xai_seed_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    data = show_json(SEEDS / "xai_grok_simple_streaming.yaml", capsys)
    assert data["format"] == "govcr"
    (turn,) = data["turns"]
    assert turn["request"]["messages"][-1] == {"content": "Say hi in Portuguese", "role": "user"}
    response = turn["response"]
    assert response["status"] == 200
    assert response["reasoning"] == (
        'First, the user asked: "Say hi in Portuguese."\n\n\n## Handling the Request  \n'
        "- The user asked for a greeting in Portuguese."
    )
    assert response["content"] == (
        'Oi! (That\'s "hi" in Portuguese, informal and common in Brazil.) '
        'If you want something more formal, it\'s "Olá."'
    )
    assert "First" not in response["content"], "reasoning never mixes into the answer"
    assert response["usage"] == {
        "prompt_tokens": 213,
        "completion_tokens": 27,
        "total_tokens": 373,
        "reasoning_tokens": 133,
        "cached_tokens": 192,
    }
    assert response["model"] == "grok-code-fast-1"


def turns(name: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [t["response"] for t in show_json(CORPUS / name, capsys)["turns"]]


def test_mid_stream_error_keeps_reasoning(capsys: pytest.CaptureFixture[str]) -> None:
    (response,) = turns("pydai__test_openrouter__test_openrouter_stream_error.yaml", capsys)
    assert response["status"] == 200
    assert response["reasoning"] == "We need to respond to a greeting. The user"  # not doubled by reasoning_details
    assert "Token limit reached" in response["error"]["message"]


def test_groq_error_event_then_retries(capsys: pytest.CaptureFixture[str]) -> None:
    first, second, third = turns("pydai__test_groq__test_tool_use_failed_error_streaming.yaml", capsys)
    assert "Tool call validation failed" in first["error"]["message"]
    assert first["reasoning"]
    assert second["tool_calls"][0]["name"] == "get_something_by_name"
    assert third["error"] is None and third["content"]


def test_http_errors_carry_the_providers_words(capsys: pytest.CaptureFixture[str]) -> None:
    for response in turns("pydai__test_openrouter__test_openrouter_errors_raised.yaml", capsys):
        assert response["status"] == 429
        assert response["error"]["status"] == 429
        assert "429" in response["error"]["message"]
        assert "temporarily rate-limited upstream" in response["error"]["message"]
    (error,) = turns("lls__inference__28a43dc80443ccae98eee165c58522090fd6f0637031153b0105399093d39c52.json", capsys)
    assert error["error"] == {"status": 400, "message": "HTTP 400: invalid image input"}


def test_parallel_tool_calls_merge_by_index(capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = turns("fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml", capsys)
    names = [c["name"] for c in first["tool_calls"]]
    assert names == ["add", "multiply"]
    for call in first["tool_calls"]:
        assert json.loads(call["arguments"]) == {"a": 2, "b": 3}
        assert call["id"].startswith("call_")
    assert first["finish_reason"] == "tool_calls"


def test_inline_think_tags_become_reasoning(capsys: pytest.CaptureFixture[str]) -> None:
    (response,) = turns("lls__inference__65eba1be095a7037c4f197f4168b310ebc8afc00aba3946ba498abe2fdbe6a63.json", capsys)
    assert "<think>" not in response["content"] and "</think>" not in response["content"]
    assert "<think>" not in response["reasoning"] and response["reasoning"].strip()
    assert response["tool_calls"][0]["name"] == "get_time"


def test_anthropic_native_and_bedrock(capsys: pytest.CaptureFixture[str]) -> None:
    first, second = turns("fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml", capsys)
    assert first["reasoning"] and first["tool_calls"][0]["name"] == "weather"
    assert json.loads(first["tool_calls"][0]["arguments"]) == {"location": "Florence, Italy"}
    assert first["usage"]["prompt_tokens"] == 424 and first["usage"]["completion_tokens"] == 119
    assert "Florence" in second["content"] and second["finish_reason"] == "stop"
    (bedrock,) = turns("fantasy__TestBedrockCommon__bedrock-anthropic-claude-3-haiku__simple_streaming.yaml", capsys)
    assert bedrock["content"] == "Olá!"
    (redacted,) = turns("pydai__test_anthropic__test_anthropic_model_thinking_part_redacted_stream.yaml", capsys)
    assert redacted["reasoning"] == "" and redacted["content"]


def test_gemini_mistral_ollama(capsys: pytest.CaptureFixture[str]) -> None:
    first, second = turns("fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml", capsys)
    assert first["reasoning"].startswith("**Determining the Weather Inquiry**")
    assert first["tool_calls"][0]["name"] == "weather" and first["usage"]["reasoning_tokens"] == 62
    assert second["content"] == "The weather in Florence, Italy is 40 C."
    (mistral,) = turns("pydai__test_mistral__test_mistral_model_thinking_part_iter.yaml", capsys)
    assert mistral["reasoning"] and mistral["content"].startswith("To cross the street safely")
    assert "thinking" not in mistral["content"][:40]
    (ollama,) = turns("otel__ollama__test_ollama_streaming_chat_legacy.yaml", capsys)
    assert ollama["content"].startswith("Why did the OpenTelemetry agent go to therapy?")
    assert ollama["usage"]["completion_tokens"] == 50


def test_groq_usage_reported_three_times_counts_once(capsys: pytest.CaptureFixture[str]) -> None:
    (response,) = turns("fantasy__TestOpenAICompatibleCommon__groq-kimi-k2__simple_streaming.yaml", capsys)
    assert response["content"] == "Olá!"
    assert response["usage"]["total_tokens"] == 24


def test_gzip_and_non_streaming_bodies(capsys: pytest.CaptureFixture[str]) -> None:
    first, _second = turns(
        "otel__openai__TestFinishReasonDeduplication.test_streaming_deduplicates_finish_reasons.yaml", capsys
    )
    assert first["content"].startswith("Why don't scientists trust atoms?")
    assert first["usage"]["prompt_tokens"] == 11


def test_show_text_output_and_the_real_command() -> None:
    result = run_chatterm("show", str(SEEDS / "xai_grok_simple_streaming.yaml"))
    assert result.code == 0, result.stderr
    assert "[reasoning] First, the user asked" in result.stdout
    assert "[assistant] Oi!" in result.stdout
    assert "[usage] prompt 213, completion 27, reasoning 133" in result.stdout
