"""A conversation in each native API goes on statelessly: the reasoning an answer came with that the API wants back
(Anthropic's thinking blocks with their signatures and its redacted thinking, Gemini's thought signatures, the
Responses API's encrypted reasoning items) is sent back with the next turn exactly as it was received, in the
request of that API only, and never shown, exported or sent to chat completions. The effort chosen for a request is
said in each API's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chatterm.chat.session import ChatSession
from chatterm.conversation.export import ExportTurn, to_markdown
from chatterm.conversation.reply import Reply
from chatterm.events import Content, Reasoning, ReasoningDetail
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from tests import native_shapes
from tests.conftest import TEST_KEY
from tests.faultserver import ANSWER, REASONING, FaultServer

THINKING = "".join(REASONING)
CONTINUITY = (native_shapes.SIGNATURE, native_shapes.REDACTED, native_shapes.THOUGHT_SIGNATURE, native_shapes.ENCRYPTED)
SENT_BACK: dict[str, list[dict[str, Any]]] = {
    "anthropic": [
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": THINKING, "signature": native_shapes.SIGNATURE},
                {"type": "redacted_thinking", "data": native_shapes.REDACTED},
                {"type": "text", "text": ANSWER},
            ],
        }
    ],
    "gemini": [{"role": "model", "parts": [{"text": ANSWER, "thoughtSignature": native_shapes.THOUGHT_SIGNATURE}]}],
    "responses": [
        {
            "id": native_shapes.REASONING_ID,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": THINKING}],
            "encrypted_content": native_shapes.ENCRYPTED,
        },
        {"role": "assistant", "content": ANSWER},
    ],
}
HISTORY = {"anthropic": "messages", "gemini": "contents", "responses": "input"}


def session_for(faults: FaultServer, api: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> ChatSession:
    monkeypatch.setenv("NATIVE_KEY", TEST_KEY)
    choice = choose(load_settings(), model="native-model", base_url=faults.url("ok"), api_key_env="NATIVE_KEY", api=api)
    return ChatSession(choice, session_path=path)


async def turn(session: ChatSession, prompt: str) -> list[Any]:
    session.add_prompt(prompt)
    return [event async for event in session.stream()]


@pytest.mark.parametrize("api", sorted(SENT_BACK))
async def test_the_reasoning_an_api_wants_back_goes_back_exactly_and_only_there(
    faults: FaultServer, api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_for(faults, api, tmp_path / "session.yaml", monkeypatch)
    try:
        events = await turn(session, "first")
        assert "".join(e.text for e in events if isinstance(e, Reasoning)) == THINKING
        assert "".join(e.text for e in events if isinstance(e, Content)) == ANSWER
        assert [e for e in events if isinstance(e, ReasoningDetail)], "the continuity data arrives as kept details"
        shown = [e.text for e in events if isinstance(e, (Reasoning, Content))]
        assert not any(data in text for text in shown for data in CONTINUITY)

        await turn(session, "second")
        body = faults.seen[-1].body
        history = body[HISTORY[api]]
        assert history[1 : 1 + len(SENT_BACK[api])] == SENT_BACK[api]
        assert history[-1] in ({"role": "user", "content": "second"}, {"role": "user", "parts": [{"text": "second"}]})
        if api == "responses":
            assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]

        other = choose(load_settings(), model="m", base_url=faults.url("ok"), api_key_env="NATIVE_KEY")
        await session.switch(other)
        await turn(session, "third")
        sent = faults.seen[-1]
        assert sent.path.endswith("/chat/completions")
        assert not any(data in str(sent.body) for data in CONTINUITY), "chat completions get none of it"
        assert [m["role"] for m in sent.body["messages"]] == ["user", "assistant"] * 2 + ["user"]
    finally:
        await session.aclose()
    exported = to_markdown([ExportTurn("first", reply.content, reply.reasoning) for reply in session.replies])
    assert THINKING in exported and not any(data in exported for data in CONTINUITY)
    assert TEST_KEY not in (tmp_path / "session.yaml").read_text()


@pytest.mark.parametrize(
    ("api", "effort", "expected"),
    [
        ("anthropic", "high", {"thinking": {"type": "enabled", "budget_tokens": 16384}, "max_tokens": 20480}),
        ("anthropic", "low", {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 5120}),
        ("anthropic", "off", {"max_tokens": 4096}),
        (
            "gemini",
            "medium",
            {"generationConfig": {"thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8192}}},
        ),
        ("gemini", "off", {"generationConfig": {"thinkingConfig": {"includeThoughts": False, "thinkingBudget": 0}}}),
        ("gemini", None, {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}}),
        ("responses", "low", {"reasoning": {"effort": "low", "summary": "auto"}}),
        ("responses", "off", {}),
        ("openai", "high", {"reasoning_effort": "high"}),
        ("openai", "off", {}),
    ],
)
async def test_the_effort_of_a_request_is_said_in_each_api_s_words(
    faults: FaultServer,
    api: str,
    effort: str | None,
    expected: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = session_for(faults, api, tmp_path / "s.yaml", monkeypatch)
    session.client.endpoint.reasoning_effort = True  # (a chat completions endpoint whose profile says it takes it)
    try:
        session.effort = effort
        reply = Reply()
        reply.extend(await turn(session, "hi"))
        assert reply.content == ANSWER
    finally:
        await session.aclose()
    body = faults.seen[-1].body
    for key, value in expected.items():
        assert body[key] == value, key
    for key in {"thinking", "reasoning", "reasoning_effort"} - expected.keys():
        assert key not in body, key


async def test_an_effort_chatterm_does_not_know_is_refused(
    faults: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_for(faults, "anthropic", tmp_path / "s.yaml", monkeypatch)
    try:
        with pytest.raises(ValueError, match="one of off, low, medium, high"):
            session.effort = "extreme"
    finally:
        await session.aclose()


async def test_chat_completions_send_no_effort_unless_the_profile_says_they_take_it(
    faults: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_for(faults, "openai", tmp_path / "s.yaml", monkeypatch)
    try:
        session.effort = "high"
        await turn(session, "hi")
    finally:
        await session.aclose()
    assert "reasoning_effort" not in faults.seen[-1].body
