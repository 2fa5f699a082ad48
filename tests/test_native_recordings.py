"""Real recordings of the native APIs (Anthropic thinking with a tool call, Anthropic redacted thinking, Gemini
thinking with a tool call; `data/corpus`) replayed live by a loopback server, event by event as they were recorded:
`ask --api` prints what `show` reads from them, and a conversation sends back the thinking blocks and thought
signatures exactly as the recorded client did on its next turn."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction
from chatterm.cassette.summary import reply_of
from chatterm.chat.session import ChatSession
from chatterm.conversation.reply import Reply
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from tests.conftest import CORPUS, LoopThread, run_chatterm
from tests.scripted import Script, ScriptedServer

ANTHROPIC = CORPUS / "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml"
REDACTED = CORPUS / "pydai__test_anthropic__test_anthropic_model_thinking_part_redacted_stream.yaml"
GEMINI = CORPUS / "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml"
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def recorded_script(interaction: Interaction) -> Script:
    """The body in the pieces it was recorded in: at its recorded offsets, else one event per piece."""
    body = interaction.response.body
    ends = [end for _, end in interaction.response.offsets or []] or [m.end() for m in _EVENT_END.finditer(body)]
    cuts = sorted({0, len(body), *ends})
    return [(0.0, body[a:b]) for a, b in itertools.pairwise(cuts) if b > a]


def serving(path: Path) -> ScriptedServer:
    return ScriptedServer(answers=[recorded_script(i) for i in load_recording(path).interactions])


@pytest.mark.parametrize(("path", "api"), [(ANTHROPIC, "anthropic"), (REDACTED, "anthropic"), (GEMINI, "gemini")])
def test_ask_prints_what_the_recording_holds(path: Path, api: str, loop_thread: LoopThread) -> None:
    server = serving(path)
    loop_thread.run(server.start())
    try:
        result = run_chatterm("ask", "--api", api, "--base-url", server.url, "--model", "m", "hi")
    finally:
        loop_thread.run(server.stop())
    recorded = reply_of(load_recording(path).interactions[0])
    assert result.code == 0, result.stderr
    assert result.stdout == recorded.content
    assert recorded.reasoning in result.stderr.replace("\x1b[2m", "").replace("\x1b[0m", "")
    for call in recorded.tool_calls.values():
        assert f"[tool call {call.name}]" in result.stderr


async def converse(path: Path, api: str, tool_result: str | None) -> tuple[ScriptedServer, list[Reply]]:
    """Two turns against the recording's answers: the question, then the tool's result (or a second question)."""
    server = serving(path)
    await server.start()
    choice = choose(load_settings(), model="m", base_url=server.url, api=api)
    session = ChatSession(choice, save=False)
    try:
        session.add_prompt("What's the weather in Florence, Italy?")
        async for _ in session.stream():
            pass
        first = session.replies[-1]
        if tool_result is not None:
            (call,) = first.tool_calls.values()
            session.conversation.messages.append({"role": "tool", "tool_call_id": call.id, "content": tool_result})
        else:
            session.add_prompt("And now?")
        async for _ in session.stream():
            pass
    finally:
        await session.aclose()
        await server.stop()
    return server, session.replies


async def test_anthropic_thinking_and_its_signature_go_back_as_the_recorded_client_sent_them() -> None:
    server, replies = await converse(ANTHROPIC, "anthropic", "40 C")
    recorded = load_recording(ANTHROPIC).interactions
    assert (
        replies[0].reasoning == reply_of(recorded[0]).reasoning and replies[1].content == reply_of(recorded[1]).content
    )
    assert recorded[1].request is not None
    assert server.requests[1]["messages"][1] == recorded[1].request.json()["messages"][1]


async def test_anthropic_redacted_thinking_goes_back_verbatim() -> None:
    server, _ = await converse(REDACTED, "anthropic", None)
    (recorded,) = load_recording(REDACTED).interactions
    body = recorded.response.body.decode()
    blocks = server.requests[1]["messages"][1]["content"]
    redacted = [block for block in blocks if block["type"] == "redacted_thinking"]
    assert len(redacted) == 2
    assert all(
        set(block) == {"type", "data"} and f'"data":"{block["data"]}"' in body.replace(" ", "") for block in redacted
    )
    assert blocks[-1]["type"] == "text"


async def test_gemini_thought_signature_goes_back_on_its_function_call_as_the_recorded_client_sent_it() -> None:
    server, replies = await converse(GEMINI, "gemini", "40 C")
    recorded = load_recording(GEMINI).interactions
    assert replies[1].content == reply_of(recorded[1]).content
    sent_back = server.requests[1]["contents"][1]
    assert recorded[1].request is not None
    expected = recorded[1].request.json()["contents"][1]
    del expected["parts"][0]["functionCall"]["id"]  # (an id the recorded client made up: the answer had none)
    assert sent_back == expected
    response = server.requests[1]["contents"][2]["parts"][0]["functionResponse"]
    assert response == {"name": "weather", "response": {"result": "40 C"}}
