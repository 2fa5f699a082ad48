"""Continuing a cut-short answer in the words of the server behind an OpenAI-compatible endpoint: DeepSeek's prefix
completion (its beta base URL, the partial answer marked `prefix`), llama.cpp's and Ollama's trailing assistant
message, vLLM's `continue_final_message`; any other server is sent the partial answer and asked to go on. Each is
checked against a loopback server: the exact body and path of the request, the answer read as one, the seam kept in
the session file (`show --json`), and an echo of the partial answer not read twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.transcript import recorded_turns
from chatterm.chat.session import ChatSession
from chatterm.cli.main import main
from chatterm.conversation.continuation import CONTINUE_PROMPT, deepseek_beta
from chatterm.settings.choice import AD_HOC, Choice, endpoint_for
from chatterm.settings.config import load_settings
from chatterm.settings.profile import ProfileSettings
from tests.scripted import ScriptedServer, cut_by_length, sse_script

PARTIAL = "The first half"
REST = " and the rest."
ASKED = {"role": "user", "content": "go"}


def preset_choice(name: str, url: str, **changes: Any) -> Choice:
    """The preset `name` pointed at a loopback server (`None`: an ad-hoc endpoint, which names no server)."""
    if name == AD_HOC:
        profile = ProfileSettings(base_url=url, model="m", **changes)
    else:
        profile = load_settings().profiles[name].model_copy(update={"base_url": url, "model": "m", **changes})
    return Choice(name, endpoint_for(profile, None, "sk-loopback"))


async def cut_then_continued(session: ChatSession) -> None:
    session.add_prompt("go")
    async for _ in session.stream():
        pass
    (turn,) = session.tree.turns()
    session.continue_answer(turn.last)
    async for _ in session.stream():
        pass


def body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": messages, "stream": True, "stream_options": {"include_usage": True}, **extra}


PARTIAL_MESSAGE = {"role": "assistant", "content": PARTIAL}
EXPECTED = {
    "deepseek": ("/beta/chat/completions", body([ASKED, {**PARTIAL_MESSAGE, "prefix": True}])),
    "llamacpp": ("/v1/chat/completions", body([ASKED, PARTIAL_MESSAGE])),
    "ollama": ("/v1/chat/completions", body([ASKED, PARTIAL_MESSAGE])),
    "vllm": (
        "/v1/chat/completions",
        body([ASKED, PARTIAL_MESSAGE], continue_final_message=True, add_generation_prompt=False),
    ),
    AD_HOC: (
        "/v1/chat/completions",
        body([ASKED, PARTIAL_MESSAGE, {"role": "user", "content": CONTINUE_PROMPT}]),
    ),
}


@pytest.mark.parametrize("server", list(EXPECTED))
async def test_c_asks_each_server_in_its_own_words_and_reads_one_answer(
    scripted: ScriptedServer, tmp_path: Path, server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.answers = [cut_by_length(PARTIAL), sse_script(REST)]
    path = tmp_path / "s.yaml"
    session = ChatSession(preset_choice(server, scripted.url), session_path=path)
    await cut_then_continued(session)
    await session.aclose()
    assert (scripted.paths[1], scripted.requests[1]) == EXPECTED[server]
    assert scripted.paths[0] == "/v1/chat/completions" and scripted.requests[0] == body([ASKED])
    (turn,) = session.tree.turns()
    assert len(turn.ids) == 2 and session.answer_of(turn).content == PARTIAL + REST
    assert [turn.answer for turn in recorded_turns(load_recording(path))] == [PARTIAL + REST]
    assert main(["show", str(path), "--json"]) == 0
    turns = json.loads(capsys.readouterr().out)["turns"]
    assert [(t["id"], t["parent"], t.get("continues")) for t in turns] == [("1", None, None), ("2", "1", "1")]


async def test_a_server_that_echoes_the_partial_answer_is_not_read_twice(
    scripted: ScriptedServer, tmp_path: Path
) -> None:
    """vLLM's `echo` sends the continued message back whole: the answer is still the partial one and its rest."""
    scripted.answers = [cut_by_length(PARTIAL), sse_script(PARTIAL + REST, answer_cuts=[3, 9, 20])]
    path = tmp_path / "s.yaml"
    session = ChatSession(preset_choice("vllm", scripted.url, params={"echo": True}), session_path=path)
    session.add_prompt("go")
    async for _ in session.stream():
        pass
    (turn,) = session.tree.turns()
    session.continue_answer(turn.last)
    streamed = [getattr(event, "text", "") async for event in session.stream()]
    await session.aclose()
    assert "".join(streamed) == REST
    assert session.answer_of(session.tree.turns()[0]).content == PARTIAL + REST
    assert [turn.answer for turn in recorded_turns(load_recording(path))] == [PARTIAL + REST]


async def test_a_continuation_that_only_starts_like_the_partial_answer_is_kept_whole(
    scripted: ScriptedServer, tmp_path: Path
) -> None:
    scripted.answers = [cut_by_length(PARTIAL), sse_script("The end.", answer_cuts=[1, 2])]
    session = ChatSession(preset_choice("llamacpp", scripted.url), save=False)
    await cut_then_continued(session)
    await session.aclose()
    assert session.answer_of(session.tree.turns()[0]).content == PARTIAL + "The end."


def test_deepseek_prefix_completion_goes_to_its_beta_base_url() -> None:
    assert deepseek_beta("https://api.deepseek.com/v1") == "https://api.deepseek.com/beta"
    assert deepseek_beta("https://api.deepseek.com/") == "https://api.deepseek.com/beta"


def test_the_presets_of_those_servers_name_them_and_a_profile_can_too() -> None:
    profiles = load_settings().profiles
    assert {name: profiles[name].server for name in ("deepseek", "llamacpp", "vllm", "ollama", "groq")} == {
        "deepseek": "deepseek",
        "llamacpp": "llamacpp",
        "vllm": "vllm",
        "ollama": "ollama",
        "groq": None,
    }
    assert ProfileSettings(base_url="http://127.0.0.1:9/v1", model="m", server="vllm").server == "vllm"
    with pytest.raises(ValueError, match="should be one of deepseek, llamacpp, vllm, ollama"):
        ProfileSettings(base_url="http://127.0.0.1:9/v1", model="m", server="tgi")


def test_profiles_add_names_the_server_behind_an_endpoint() -> None:
    from tests.conftest import assert_one_line_error, run_chatterm

    added = run_chatterm(
        "profiles", "add", "mine", "--base-url", "http://127.0.0.1:8000/v1", "--model", "m", "--local",
        "--server", "vllm",
    )  # fmt: skip
    assert added.code == 0, added.stderr
    shown = run_chatterm("profiles", "show", "mine")
    assert "server: vllm" in shown.stdout
    assert load_settings().profiles["mine"].server == "vllm"
    url = "http://127.0.0.1:9/v1"
    refused = run_chatterm("profiles", "add", "x", "--base-url", url, "--model", "m", "--server", "tgi")
    assert refused.code == 2
    assert_one_line_error(refused)
