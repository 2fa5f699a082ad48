"""A chat's system prompt and its own parameters: sent in each API's shape, recorded with each turn (a change
mid-chat as a profile switch is), reported per turn by `show --json`, and taken back when a session is opened again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.chat.session import ChatSession
from chatterm.net.sampling import ChatParams
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from tests.conftest import run_chatterm
from tests.faultserver import ANSWER, FaultServer
from tests.test_native_continuity import session_for, turn

PARAMS = ChatParams(temperature=0.2, top_p=0.9, max_tokens=300)
SHAPES: dict[str, dict[str, Any]] = {
    "openai": {"temperature": 0.2, "top_p": 0.9, "max_tokens": 300},
    "anthropic": {"system": "Be brief.", "temperature": 0.2, "top_p": 0.9, "max_tokens": 300},
    "responses": {"instructions": "Be brief.", "temperature": 0.2, "top_p": 0.9, "max_output_tokens": 300},
    "gemini": {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {
            "temperature": 0.2,
            "topP": 0.9,
            "maxOutputTokens": 300,
            "thinkingConfig": {"includeThoughts": True},
        },
    },
}


@pytest.mark.parametrize("api", list(SHAPES))
async def test_the_system_prompt_and_parameters_go_in_each_api_s_shape(
    faults: FaultServer, api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_for(faults, api, tmp_path / "s.yaml", monkeypatch)
    try:
        session.system = "Be brief."
        session.set_params(PARAMS)
        await turn(session, "hi")
    finally:
        await session.aclose()
    body = faults.seen[-1].body
    for key, value in SHAPES[api].items():
        assert body[key] == value, key
    if api == "openai":
        assert body["messages"][0] == {"role": "system", "content": "Be brief."}


async def test_a_change_mid_chat_is_kept_with_each_turn_and_shown_per_turn(
    faults: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.yaml"
    session = session_for(faults, "anthropic", path, monkeypatch)
    try:
        await turn(session, "first")
        session.system = "Answer in French."
        session.set_params(ChatParams(temperature=0.5, effort="high"))
        await turn(session, "second")
    finally:
        await session.aclose()
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0, result.stderr
    first, second = (turn_["asked_with"] for turn_ in json.loads(result.stdout)["turns"])
    assert first == {"profile": "ad-hoc", "model": "native-model", "system": None, "params": {}}
    assert second == {
        "profile": "ad-hoc",
        "model": "native-model",
        "system": "Answer in French.",
        "params": {"temperature": 0.5, "effort": "high"},
    }


async def test_a_session_opened_again_asks_with_its_system_prompt_and_parameters(
    faults: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.yaml"
    session = session_for(faults, "anthropic", path, monkeypatch)
    try:
        session.system = "Be brief."
        session.set_params(ChatParams(max_tokens=300, effort="low"))
        await turn(session, "first")
    finally:
        await session.aclose()
    told: list[str] = []
    again = session_for(faults, "anthropic", tmp_path / "again.yaml", monkeypatch)
    again.on_settings = lambda: told.append("settings")
    try:
        again.load_history(load_recording(path))
        assert (again.system, again.params) == ("Be brief.", ChatParams(max_tokens=300, effort="low"))
        assert told == ["settings"]
        await turn(again, "second")
    finally:
        await again.aclose()
    body = faults.seen[-1].body
    assert body["system"] == "Be brief."
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["max_tokens"] == 1024 + 4096  # (the thinking budget needs room above it)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]


async def test_the_chat_s_parameters_hold_across_a_profile_switch_and_leave_the_profile_as_it_was(
    faults: FaultServer, tmp_path: Path
) -> None:
    settings = load_settings()
    first = choose(settings, model="one", base_url=faults.url("ok"))
    session = ChatSession(first, session_path=tmp_path / "s.yaml")
    try:
        session.set_params(ChatParams(temperature=1.5, effort="medium"))
        await session.switch(choose(settings, model="two", base_url=faults.url("ok"), api="gemini"))
        reply = await turn(session, "hi")
        assert ANSWER in "".join(getattr(event, "text", "") for event in reply)
    finally:
        await session.aclose()
    config = faults.seen[-1].body["generationConfig"]
    assert config["temperature"] == 1.5 and config["thinkingConfig"]["thinkingBudget"] == 8192
    assert first.endpoint.sampling == {} and first.endpoint.effort is None


async def test_a_parameter_that_cannot_be_sent_is_refused_in_one_line(faults: FaultServer, tmp_path: Path) -> None:
    session = ChatSession(choose(load_settings(), base_url=faults.url("ok")), session_path=tmp_path / "s.yaml")
    try:
        with pytest.raises(ValueError, match=r"^temperature should be a number from 0 to 2, not 3$"):
            session.set_params(ChatParams(temperature=3))
    finally:
        await session.aclose()
    assert session.params == ChatParams()
