"""Going on live after replaying a recording of a native API: the headless session takes the recording's last request
(Anthropic `messages` and `system`, Gemini `contents` and `systemInstruction`, the Responses API's `input` and
`instructions`) and its answer as its history, so the next prompt's request to a loopback server of that API holds
the recorded conversation, its continuity data exactly as recorded (thinking blocks with signatures, thought
signatures on their function calls, encrypted reasoning items), the recorded answer, then the new prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.summary import reply_of
from chatterm.chat.session import ChatSession
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from tests import native_shapes
from tests.conftest import CORPUS
from tests.scripted import ScriptedServer

ANTHROPIC = CORPUS / "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml"
REDACTED = CORPUS / "pydai__test_anthropic__test_anthropic_model_thinking_part_redacted_stream.yaml"
GEMINI = CORPUS / "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml"
NEXT = "And now?"


async def next_request(recording: Recording, api: str) -> dict[str, Any]:
    """The body of the request the session sends for one more prompt after replaying `recording`."""
    server = ScriptedServer(answers=[[(0.0, piece) for piece in native_shapes.answer(api, ["Fine."])]])
    await server.start()
    session = ChatSession(choose(load_settings(), model="m", base_url=server.url, api=api), save=False)
    try:
        session.load_history(recording)
        session.add_prompt(NEXT)
        async for _ in session.stream():
            pass
    finally:
        await session.aclose()
        await server.stop()
    (body,) = server.requests
    assert isinstance(body, dict)
    return body


def recorded_request(path: Path) -> dict[str, Any]:
    request = load_recording(path).interactions[-1].request
    assert request is not None
    payload = request.json()
    assert isinstance(payload, dict)
    return payload


async def test_an_anthropic_recording_goes_on_with_its_thinking_tool_call_and_result() -> None:
    body = await next_request(load_recording(ANTHROPIC), "anthropic")
    recorded = recorded_request(ANTHROPIC)
    assert body["system"] == recorded["system"][0]["text"]
    user, called, result, answered, asked = body["messages"]
    assert user == {"role": "user", "content": "What's the weather in Florence, Italy?"}
    assert called == recorded["messages"][1]  # (the thinking block and its signature, verbatim, then the tool call)
    tool_use_id = recorded["messages"][1]["content"][1]["id"]
    assert result["content"] == [{"type": "tool_result", "tool_use_id": tool_use_id, "content": "40 C"}]
    final = reply_of(load_recording(ANTHROPIC).interactions[-1])
    assert answered == {"role": "assistant", "content": final.content}
    assert asked == {"role": "user", "content": NEXT}


async def test_an_anthropic_recording_with_redacted_thinking_goes_on_with_it() -> None:
    body = await next_request(load_recording(REDACTED), "anthropic")
    user, answered, asked = body["messages"]
    assert user["content"] == recorded_request(REDACTED)["messages"][0]["content"][0]["text"]
    kinds = [block["type"] for block in answered["content"]]
    assert kinds == ["redacted_thinking", "redacted_thinking", "text"]
    assert asked == {"role": "user", "content": NEXT}


async def test_a_gemini_recording_goes_on_with_its_function_call_signature_and_response() -> None:
    body = await next_request(load_recording(GEMINI), "gemini")
    recorded = recorded_request(GEMINI)
    assert body["systemInstruction"]["parts"] == recorded["systemInstruction"]["parts"]
    assert body["contents"][:3] == recorded["contents"]  # (the call's thought signature and id, and its response)
    final = reply_of(load_recording(GEMINI).interactions[-1])
    assert body["contents"][3]["role"] == "model" and body["contents"][3]["parts"][0]["text"] == final.content
    assert body["contents"][4] == {"role": "user", "parts": [{"text": NEXT}]}


def responses_recording() -> Recording:
    """A Responses API turn after a reasoning item, a function call and its output (sent statelessly)."""
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAAA-earlier=="}
    call = {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": '{"city": "Oslo"}'}
    items = [
        {"role": "user", "content": "Weather in Oslo?"},
        reasoning,
        call,
        {"type": "function_call_output", "call_id": "call_1", "output": "12 C"},
    ]
    payload = {"model": "m", "instructions": "Be brief.", "input": items, "stream": True, "store": False}
    request = Request("POST", "https://api.openai.com/v1/responses", body=json.dumps(payload).encode())
    body = b"".join(native_shapes.responses(["It is 12 C."], reasoning=["Reading the tool."]))
    response = Response(200, {"Content-Type": ["text/event-stream"]}, body)
    return Recording(format="vcr", interactions=[Interaction(request, response)])


async def test_a_responses_recording_goes_on_with_its_encrypted_reasoning_and_function_call() -> None:
    recording = responses_recording()
    body = await next_request(recording, "responses")
    recorded = recording.interactions[0].request
    assert recorded is not None
    assert body["instructions"] == "Be brief."
    assert body["input"][:4] == recorded.json()["input"]
    reasoning, answered, asked = body["input"][4:]
    assert reasoning["encrypted_content"] == native_shapes.ENCRYPTED and reasoning["id"] == native_shapes.REASONING_ID
    assert answered == {"role": "assistant", "content": "It is 12 C."}
    assert asked == {"role": "user", "content": NEXT}


@pytest.mark.parametrize("api", ["anthropic", "gemini", "responses"])
async def test_a_chat_completions_recording_still_goes_on_in_any_api(api: str) -> None:
    chat = CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml"
    body = await next_request(load_recording(chat), api)
    history = body["input" if api == "responses" else "contents" if api == "gemini" else "messages"]
    assert len(history) >= 4 and json.dumps(history).count(NEXT) == 1
