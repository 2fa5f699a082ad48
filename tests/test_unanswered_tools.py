"""Going on after a turn that ended in tool calls: chatterm runs no tools, so the calls have no results, and every
API refuses a history whose tool call is not answered by the next message (Anthropic: "`tool_use` ids were found
without `tool_result` blocks immediately after"; chat completions: "An assistant message with 'tool_calls' must be
followed by tool messages"). The next request answers each such call with a result saying it was not run."""

from __future__ import annotations

from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Recording
from chatterm.conversation.tools import NOT_RUN
from tests.conftest import CORPUS
from tests.test_native_history import NEXT, next_request

OPENAI_TOOLS = CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml"
ANTHROPIC_TOOLS = CORPUS / "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml"


def first_turn(path: Any) -> Recording:
    """The recording cut after its first turn, which ends in tool calls."""
    recording = load_recording(path)
    return Recording(format=recording.format, interactions=recording.interactions[:1])


async def test_a_chat_completions_history_answers_each_call_before_the_next_prompt() -> None:
    body = await next_request(first_turn(OPENAI_TOOLS), "openai")
    messages = body["messages"]
    calling = next(n for n, m in enumerate(messages) if m.get("tool_calls"))
    ids = [call["id"] for call in messages[calling]["tool_calls"]]
    assert len(ids) == 2
    answers = messages[calling + 1 : calling + 1 + len(ids)]
    assert [(m["role"], m["tool_call_id"], m["content"]) for m in answers] == [("tool", i, NOT_RUN) for i in ids]
    assert messages[-1] == {"role": "user", "content": NEXT}


async def test_an_anthropic_history_has_a_tool_result_right_after_each_tool_use() -> None:
    body = await next_request(first_turn(ANTHROPIC_TOOLS), "anthropic")
    messages = body["messages"]
    using = next(n for n, m in enumerate(messages) if any(b.get("type") == "tool_use" for b in _blocks(m)))
    ids = [b["id"] for b in _blocks(messages[using]) if b.get("type") == "tool_use"]
    after = messages[using + 1]
    assert after["role"] == "user"
    results = [b for b in _blocks(after) if b.get("type") == "tool_result"]
    assert [r["tool_use_id"] for r in results] == ids
    assert NEXT in str(messages[-1])


@pytest.mark.parametrize("api", ["openai", "anthropic", "gemini", "responses"])
async def test_answered_calls_are_sent_as_recorded(api: str) -> None:
    """A recording whose calls have their results goes on with those results, and no stand-in beside them."""
    body = await next_request(load_recording(OPENAI_TOOLS), api)
    assert NOT_RUN not in str(body)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
