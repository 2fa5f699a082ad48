"""`chatterm ask --api ...` against loopback servers speaking each native API (Anthropic Messages, Gemini, OpenAI's
Responses): the answer on stdout, the reasoning on stderr, the key sent the way the provider documents it and kept out
of the recording, and each API's own ends and errors told as chat completions' are (exit code, one line, what
arrived kept)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from tests import native_shapes
from tests.conftest import TEST_KEY, assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER, PARTIAL, REASONING

NATIVE = ("anthropic", "gemini", "responses")
THINKING = "".join(REASONING)
KEY_HEADERS = {"anthropic": "x-api-key", "gemini": "x-goog-api-key", "responses": "authorization"}
CONTINUITY = (native_shapes.SIGNATURE, native_shapes.REDACTED, native_shapes.THOUGHT_SIGNATURE, native_shapes.ENCRYPTED)


def ask(server: Any, scenario: str, api: str, *extra: str) -> Any:
    return run_chatterm(
        "ask", "--api", api, "--base-url", server.url(scenario), "--model", "native-model",
        "--api-key-env", "NATIVE_KEY", *extra, "hi", env={"NATIVE_KEY": TEST_KEY},
    )  # fmt: skip


@pytest.mark.parametrize("api", NATIVE)
def test_each_api_streams_the_answer_to_stdout_and_its_reasoning_to_stderr(
    fault_server: Any, tmp_path: Path, api: str
) -> None:
    record = tmp_path / "turn.yaml"
    result = ask(fault_server, "ok", api, "--record", str(record))
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
    assert THINKING in result.stderr
    assert not any(data in result.stdout + result.stderr for data in CONTINUITY)
    seen = fault_server.seen[-1]
    assert native_shapes.api_of(seen.path) == api
    expected = f"Bearer {TEST_KEY}" if api == "responses" else TEST_KEY
    assert seen.headers[KEY_HEADERS[api]] == expected
    assert TEST_KEY not in seen.path
    if api == "anthropic":
        assert seen.headers["anthropic-version"] == "2023-06-01" and "authorization" not in seen.headers
    if api == "gemini":
        assert seen.path.endswith("/models/native-model:streamGenerateContent?alt=sse")
        assert "authorization" not in seen.headers
    raw = record.read_bytes()
    assert TEST_KEY.encode() not in raw
    (turn,) = summarize(load_recording(record))["turns"]
    response = turn["response"]
    assert (response["content"], response["reasoning"], response["error"]) == (ANSWER, THINKING, None)
    assert response["finish_reason"] == "stop"


def test_show_json_reads_a_responses_api_recording(fault_server: Any, tmp_path: Path) -> None:
    record = tmp_path / "responses.yaml"
    assert ask(fault_server, "ok", "responses", "--record", str(record)).code == 0
    shown = run_chatterm("show", str(record), "--json")
    assert shown.code == 0, shown.stderr
    (turn,) = json.loads(shown.stdout)["turns"]
    assert turn["request"]["messages"] == [{"role": "user", "content": "hi"}]
    response = turn["response"]
    assert response["content"] == ANSWER and response["reasoning"] == THINKING and response["model"] == "gpt-fault"
    assert response["usage"] == {
        "prompt_tokens": 12,
        "completion_tokens": 30,
        "total_tokens": 42,
        "reasoning_tokens": 20,
        "cached_tokens": 4,
    }


@pytest.mark.parametrize("api", NATIVE)
@pytest.mark.parametrize(
    ("scenario", "words", "partial"),
    [
        ("api-cut", "the answer was cut short", PARTIAL),
        ("api-drop", "the connection was lost mid-answer", PARTIAL),
        ("api-errorevent", "Overloaded, try again later", PARTIAL),
        ("api-e400", "HTTP 400: Bad request: no such model", ""),
        ("api-e429", "HTTP 429: Rate limit exceeded", ""),
    ],
)
def test_each_api_s_errors_exit_1_with_one_line_and_keep_what_arrived(
    fault_server: Any, api: str, scenario: str, words: str, partial: str
) -> None:
    result = ask(fault_server, scenario, api, "--no-reasoning")
    assert result.code == 1, result.stderr
    assert result.stdout == partial
    assert_one_line_error(result)
    assert words in result.stderr.splitlines()[-1]


@pytest.mark.parametrize("api", NATIVE)
def test_an_error_in_the_stream_before_the_answer_is_retried(fault_server: Any, api: str) -> None:
    result = ask(fault_server, "api-errorfirst-then-ok", api)
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
    assert "retrying" in result.stderr
    assert fault_server.counts["api-errorfirst-then-ok"] == 2


@pytest.mark.parametrize("api", NATIVE)
@pytest.mark.parametrize(("scenario", "notice"), [("api-length", "token limit"), ("api-filtered", "filtered")])
def test_an_answer_the_provider_ended_early_is_noted(fault_server: Any, api: str, scenario: str, notice: str) -> None:
    result = ask(fault_server, scenario, api)
    assert result.code == 0, result.stderr
    assert result.stdout == PARTIAL
    assert notice in result.stderr.splitlines()[-1]


def test_an_unknown_api_on_the_command_line_is_one_line() -> None:
    result = run_chatterm("ask", "--api", "claude", "--base-url", "http://127.0.0.1:9/v1", "hi")
    assert result.code == 2
    assert_one_line_error(result)
    assert "--api" in result.stderr and "anthropic" in result.stderr


@pytest.mark.parametrize("api", NATIVE)
def test_a_native_api_at_an_ad_hoc_url_without_a_model_says_to_name_one(api: str) -> None:
    """Anthropic, Gemini and the Responses API ask for a model by name: a made-up one ("default", as an
    OpenAI-compatible local server accepts) would only come back as the provider's refusal."""
    result = run_chatterm("ask", "--api", api, "--base-url", "http://127.0.0.1:9/v1", "hi")
    assert result.code == 2
    assert_one_line_error(result)
    assert f"--api {api}" in result.stderr and "--model" in result.stderr


@pytest.mark.parametrize("api", NATIVE)
@pytest.mark.parametrize("scenario", ["echo-401", "echo-error-event"])
def test_a_key_sent_in_the_api_s_header_and_echoed_back_is_shown_to_no_one(
    fault_server: Any, tmp_path: Path, api: str, scenario: str
) -> None:
    record = tmp_path / "echo.yaml"
    result = ask(fault_server, scenario, api, "--record", str(record))
    assert result.code == 1
    assert TEST_KEY not in result.stdout + result.stderr and "REDACTED" in result.stderr
    assert TEST_KEY.encode() not in record.read_bytes()


def test_profiles_add_keeps_the_api(tmp_path: Path) -> None:
    added = run_chatterm(
        "profiles", "add", "claude", "--base-url", "https://api.anthropic.com/v1", "--model", "claude-x",
        "--api", "anthropic", "--api-key-env", "MY_KEY",
    )  # fmt: skip
    assert added.code == 0, added.stderr
    shown = run_chatterm("profiles", "show", "claude")
    assert shown.code == 0 and "anthropic" in shown.stdout
    refused = run_chatterm("profiles", "add", "x", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--api", "y")
    assert refused.code == 2
    assert_one_line_error(refused)
