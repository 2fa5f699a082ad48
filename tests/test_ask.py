"""`chatterm ask` as a user runs it: a real subprocess against real loopback servers."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from tests.conftest import SEEDS, TEST_KEY, LoopThread, assert_one_line_error, run_chatterm, sse_capture
from tests.faultserver import ANSWER, PARTIAL
from tests.scripted import HeldServer


def ask(base_url: str, *extra: str, prompt: str = "hi", key: bool = True) -> Any:
    env = {"FAULT_KEY": TEST_KEY} if key else {}
    options = ["--api-key-env", "FAULT_KEY"] if key else []
    return run_chatterm("ask", "--base-url", base_url, "--model", "fault-model", *options, *extra, prompt, env=env)


def test_answer_on_stdout_reasoning_on_stderr(fault_server: Any) -> None:
    result = ask(fault_server.url("ok"))
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER  # piped: exact, no decoration
    assert "Thinking it over." in result.stderr
    result = ask(fault_server.url("ok"), "--no-reasoning")
    assert "Thinking" not in result.stderr


@pytest.mark.parametrize(
    ("scenario", "words", "partial"),
    [
        ("drop", "the connection was lost mid-answer", PARTIAL),
        ("e401", "HTTP 401: Invalid API Key", ""),
        ("e429", "HTTP 429: Rate limit reached for model fault-model", ""),
        ("e500", "HTTP 500: Internal server error", ""),
        ("errorevent", "Overloaded, try again later", PARTIAL),
    ],
)
def test_provider_errors_exit_1_with_one_line_and_keep_tokens(
    fault_server: Any, tmp_path: Path, scenario: str, words: str, partial: str
) -> None:
    record = tmp_path / "session.yaml"
    result = ask(fault_server.url(scenario), "--record", str(record))
    assert result.code == 1
    assert result.stdout == partial
    assert_one_line_error(result)
    assert words in result.stderr.splitlines()[-1]
    turns = summarize(load_recording(record))["turns"]
    assert turns[-1]["response"]["content"] == partial
    assert turns[-1]["response"]["error"] is not None


def test_read_timeout_option(fault_server: Any) -> None:
    started = time.monotonic()
    result = ask(fault_server.url("stall"), "--read-timeout", "0.5")
    assert result.code == 1 and result.stdout == PARTIAL
    assert "read timeout" in result.stderr
    assert time.monotonic() - started < fault_server.stall + 10


def test_prompt_from_stdin_and_system(fault_server: Any) -> None:
    result = run_chatterm(
        "ask", "--base-url", fault_server.url("ok"), "--system", "Be brief.", "-", input="from stdin\n"
    )
    assert result.code == 0
    body = fault_server.seen[-1].body
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "from stdin\n"}]
    assert "authorization" not in fault_server.seen[-1].headers


def test_usage_errors_exit_2() -> None:
    result = run_chatterm("ask")  # no prompt, stdin is not a pipe with text
    assert result.code == 2
    assert_one_line_error(result)
    result = run_chatterm("ask", "--profile", "nosuch", "hi")
    assert result.code == 2 and "no profile named 'nosuch'" in result.stderr
    result = run_chatterm("ask", "--profile", "groq", "hi")
    assert result.code == 2 and "GROQ_API_KEY" in result.stderr


def test_record_writes_a_cassette_without_the_key(fault_server: Any, tmp_path: Path) -> None:
    record = tmp_path / "out.yaml"
    result = ask(fault_server.url("ok"), "--record", str(record))
    assert result.code == 0
    raw = record.read_bytes()
    assert TEST_KEY.encode() not in raw
    assert oct(record.stat().st_mode & 0o777) == "0o600"
    (turn,) = summarize(load_recording(record))["turns"]
    assert turn["response"]["content"] == ANSWER
    assert turn["request"]["messages"] == [{"role": "user", "content": "hi"}]


def test_first_token_appears_while_the_stream_runs(loop_thread: LoopThread) -> None:
    """The first word is on stdout while the server holds back the rest of the answer."""
    server = HeldServer()
    server.answers = [server.held(ANSWER, 5)]
    loop_thread.run(server.start())
    process = subprocess.Popen(
        [sys.executable, "-m", "chatterm", "ask", "--base-url", server.url, "--model", "scripted", "hi"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        assert process.stdout is not None
        shown, _, _ = select.select([process.stdout], [], [], 30)
        assert shown, "the first token did not come while the rest of the answer was held back"
        first = os.read(process.stdout.fileno(), 5)
        assert first == b"Hello"
    finally:
        loop_thread.loop.call_soon_threadsafe(server.go_on.set)
    rest = process.stdout.read()
    process.wait(30)
    assert (first + rest).decode() == ANSWER
    loop_thread.run(server.stop())


def test_terminal_escapes_are_neutralised_only_on_a_terminal(
    serve_recording: Callable[..., str], tmp_path: Path
) -> None:
    hostile = "Hi\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://x\x07link\x1b]8;;\x07"
    capture = sse_capture(tmp_path / "hostile.sse", hostile)
    base_url = serve_recording(capture)
    piped = run_chatterm("ask", "--base-url", base_url, "hi")
    assert piped.stdout == hostile  # piped output keeps the text exactly

    from chatterm.terminal_text import neutralize

    shown = neutralize(hostile)
    assert "\x1b" not in shown and "\x07" not in shown
    assert "␛[2J" in shown and "link" in shown


def test_demo_profile_works_offline() -> None:
    result = run_chatterm("ask", "Say hi in Portuguese")
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("Oi!")
    assert "First, the user asked" in result.stderr


def test_ask_against_chatterm_serve_replays_a_seed(serve_recording: Callable[..., str]) -> None:
    base_url = serve_recording(SEEDS / "llama_stack_together_stream.json")
    result = run_chatterm("ask", "--base-url", base_url, "Hello, world!")
    assert result.code == 0
    assert result.stdout == (
        "Hello! It's nice to meet you. Is there something I can help you with or would you like to chat?"
    )
