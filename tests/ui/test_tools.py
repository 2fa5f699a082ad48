"""Replays of tool-using recordings: an answer's tool calls shown with their arguments as they arrive, and each tool
result under the call it answers, in every format chatterm reads (OpenAI `tool` messages, Anthropic `tool_use` and
`tool_result` blocks, Gemini `functionCall` and `functionResponse` parts)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from chatterm.cassette.load import load_recording
from chatterm.ui.app import SPEEDS, ChatApp
from chatterm.ui.widgets.messages import UserMessage
from chatterm.ui.widgets.tools import ToolCallBlock, ToolResult
from tests.conftest import CORPUS
from tests.scripted import ScriptedServer
from tests.ui.helpers import app_for, send, wait_for
from tests.ui.oracle import quiet, screen_text

PARALLEL = CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml"
ANTHROPIC = CORPUS / "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml"
GEMINI = CORPUS / "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml"
LONG_RESULT = CORPUS / "pydai__test_groq__test_tool_use_failed_error.yaml"
FAST = "40x"
"""A replay speed at which the corpus's tool recordings replay in well under a second (a key of the app's SPEEDS)."""
SPEEDS.setdefault(FAST, (40.0, False))


async def replayed(pilot: Pilot[None], app: ChatApp) -> None:
    await wait_for(
        pilot,
        lambda: (
            len(app.screen_stack) > 1
            and bool(app.chat_screen.conversation_view.children)
            and "Replay finished" in str(app.chat_screen.conversation_view.children[-1].render())
        ),
        30,
    )
    await quiet(pilot)


def calls(app: ChatApp) -> list[tuple[str, str, list[str]]]:
    """Every tool call on screen: its name, its arguments as shown, and the results shown under it."""
    return [
        (block.tool, block.arguments_view.source, [result.text for result in block.query(ToolResult)])
        for block in app.chat_screen.conversation_view.query(ToolCallBlock)
    ]


def prompts(app: ChatApp) -> list[str]:
    return [message.text for message in app.chat_screen.conversation_view.query(UserMessage)]


@pytest.mark.parametrize("speed", ["instant", FAST])
async def test_parallel_tool_results_each_show_under_the_call_they_answer(speed: str) -> None:
    """The two results of a parallel call were shown as one user message, `[tool result] 6`, the first lost."""
    app = app_for(replay=load_recording(PARALLEL), speed=speed, save_sessions=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        pretty = json.dumps({"a": 2, "b": 3}, indent=2)
        assert calls(app) == [("add", pretty, ["5"]), ("multiply", pretty, ["6"])]
        assert prompts(app) == ["Add and multiply the number 2 and 3"], "a tool result is not a user message"
        first, second = app.chat_screen.messages()
        assert [block.tool for block in first.query(ToolCallBlock)] == ["add", "multiply"], "under the answer"
        assert second.answer == "The sum of 2 and 3 is 5, and the product is 6."
        screen = screen_text(app)
        assert "[tool result]" not in screen
        order = ["⚙ add", '"a": 2', "5", "⚙ multiply", '"a": 2', "6", "The sum"]
        at = 0
        for text in order:
            at = screen.index(text, at) + len(text)  # (each after the one before it on screen)


@pytest.mark.parametrize("speed", ["instant", FAST])
@pytest.mark.parametrize(
    ("path", "result"),
    [(ANTHROPIC, "40 C"), (GEMINI, json.dumps({"result": "40 C"}, indent=2))],
    ids=["anthropic", "gemini"],
)
async def test_anthropic_and_gemini_tool_results_are_no_empty_user_messages(
    path: Path, result: str, speed: str
) -> None:
    """An Anthropic `tool_result` block and a Gemini `functionResponse` part were shown as empty user messages."""
    app = app_for(replay=load_recording(path), speed=speed, save_sessions=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        pretty = json.dumps({"location": "Florence, Italy"}, indent=2)
        assert calls(app) == [("weather", pretty, [result])]
        assert prompts(app) == ["What's the weather in Florence, Italy?"]
        assert all(message.text.strip() for message in app.chat_screen.query(UserMessage))
        assert "40" in app.chat_screen.messages()[-1].answer


async def test_a_result_whose_call_was_never_answered_on_screen_shows_with_the_call_from_the_history() -> None:
    """A turn whose request holds a call the recorded answers never made (the client retried on its own after an
    error) shows that call, from the request, with its result under it; a long result is cut to a few lines and
    opens in full."""
    app = app_for(replay=load_recording(LONG_RESULT), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        shown = calls(app)
        assert [(name, json.loads(arguments)) for name, arguments, _ in shown] == [
            ("get_something_by_name", {"foo": "bar"}),
            ("get_something_by_name", {"name": "test"}),
        ]
        assert shown[0][2][0].startswith("2 validation errors:") and shown[1][2] == ["Something with name: test"]
        long = app.chat_screen.query(ToolResult).first()
        assert long.collapsed and long.preview.display
        assert long.text.count("\n") > 20
        before = long.outer_size.height
        assert before <= 7, "cut to a few lines"
        long.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        await quiet(pilot)
        assert not long.collapsed and not long.preview.display
        assert long.outer_size.height > 20, "opened in full"


def _tool_chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    payload = {"model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


async def test_a_tool_calls_arguments_show_as_they_arrive(scripted: ScriptedServer) -> None:
    """A streamed tool call was shown as a line of the answer naming it, its arguments never."""
    go_on = asyncio.Event()
    start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    scripted.answers = [
        [
            (0.0, _tool_chunk({"role": "assistant", "tool_calls": [start]})),
            (0.0, _tool_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Pa'}}]})),
            (go_on, _tool_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ris", "days": 3}'}}]})),
            (0.0, _tool_chunk({}, finish="tool_calls") + b"data: [DONE]\n\n"),
        ]
    ]
    app = app_for(base_url=scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "Weather in Paris?")
        await wait_for(pilot, lambda: '{"city": "Pa' in screen_text(app))
        message = app.chat_screen.messages()[-1]
        assert not message.finished
        assert "get_weather" in screen_text(app)
        go_on.set()
        await wait_for(pilot, lambda: message.finished)
        await quiet(pilot)
        assert calls(app) == [("get_weather", json.dumps({"city": "Paris", "days": 3}, indent=2), [])]
        assert message.answer == "" and not message.has_notice, "a call is an answer, not an empty one"
