"""Profiles, settings precedence, presets against a loopback server, model lists, and API keys."""

from __future__ import annotations

import io
from pathlib import Path

import keyring
import pytest

from chatterm import locations
from chatterm.cli.main import main
from chatterm.conversation.reply import Reply
from chatterm.net.client import ChatClient
from chatterm.net.models import list_models, model_ids
from chatterm.settings.choice import DEMO, ResolveError, choose
from chatterm.settings.config import load_settings
from chatterm.settings.keys import find_key
from chatterm.settings.presets import PRESETS
from tests.conftest import TEST_KEY, assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER, FaultServer


def write_config(text: str) -> Path:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_toml_then_environment_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(
        'default_profile = "mine"\n'
        '[profiles.groq]\nmodel = "from-toml"\nread_timeout = 30\n'
        '[profiles.mine]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m1"\n'
    )
    settings = load_settings()
    assert settings.profiles["groq"].model == "from-toml"
    assert settings.profiles["groq"].base_url == PRESETS["groq"].base_url, "the preset fills what the file leaves out"
    assert settings.profiles["groq"].read_timeout == 30
    assert settings.default_profile == "mine"
    monkeypatch.setenv("CHATTERM_PROFILES__GROQ__MODEL", "from-env")
    monkeypatch.setenv("CHATTERM_DEFAULT_PROFILE", "groq")
    settings = load_settings()
    assert settings.profiles["groq"].model == "from-env"
    assert settings.profiles["groq"].read_timeout == 30
    assert settings.default_profile == "groq"
    assert settings.profiles["mine"].model == "m1"


@pytest.mark.parametrize("name", sorted(PRESETS))
async def test_every_preset_request_shape(name: str, faults: FaultServer, monkeypatch: pytest.MonkeyPatch) -> None:
    preset = PRESETS[name]
    monkeypatch.setenv(f"CHATTERM_PROFILES__{name.upper()}__BASE_URL", faults.url("ok"))
    if preset.api_key_env:
        monkeypatch.setenv(preset.api_key_env, TEST_KEY)
    choice = choose(load_settings(), name)
    reply = Reply()
    async with ChatClient(choice.endpoint) as client:
        async for event in client.stream([{"role": "user", "content": "hi"}]):
            reply.add(event)
    assert reply.content == ANSWER
    seen = faults.seen[-1]
    if preset.api == "anthropic":
        assert seen.path == "/ok/v1/messages"
        assert seen.body["model"] == preset.model and seen.body["stream"] is True
        assert seen.body["messages"] == [{"role": "user", "content": "hi"}] and seen.body["max_tokens"] > 0
        assert seen.headers["x-api-key"] == TEST_KEY and seen.headers["anthropic-version"] == "2023-06-01"
    elif preset.api == "gemini":
        assert seen.path == f"/ok/v1/models/{preset.model}:streamGenerateContent?alt=sse"
        assert seen.body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
        assert seen.headers["x-goog-api-key"] == TEST_KEY
    elif preset.api == "responses":
        assert seen.path == "/ok/v1/responses"
        assert seen.body["model"] == preset.model and seen.body["stream"] is True and seen.body["store"] is False
        assert seen.body["input"] == [{"role": "user", "content": "hi"}]
        assert seen.headers["authorization"] == f"Bearer {TEST_KEY}"
    else:
        assert seen.path == "/ok/v1/chat/completions"
        assert seen.body["model"] == preset.model and seen.body["stream"] is True
        assert seen.body["messages"] == [{"role": "user", "content": "hi"}]
        if preset.local:
            assert "authorization" not in seen.headers
        else:
            assert seen.headers["authorization"] == f"Bearer {TEST_KEY}"
    if preset.api in ("anthropic", "gemini"):
        assert "authorization" not in seen.headers
    assert TEST_KEY not in seen.path, "the key never travels in the URL"
    assert seen.headers["accept"] == "text/event-stream"


def test_model_list_shapes() -> None:
    assert model_ids({"data": [{"id": "b"}, {"id": "a"}, {"id": "a"}]}) == ["a", "b"]
    assert model_ids([{"id": "meta-llama/x"}, "plain"]) == ["meta-llama/x", "plain"]
    assert model_ids({"data": [{"id": "models/gemini-2.5-flash"}]}) == ["gemini-2.5-flash"]
    assert model_ids({"models": [{"name": "llama3.2:latest"}]}) == ["llama3.2:latest"]
    assert model_ids({"unexpected": True}) == []


async def test_model_lists_from_a_server_cached_with_fallback(faults: FaultServer) -> None:
    from chatterm.net.endpoint import Endpoint

    for scenario, expected in [
        ("models-openai", ["a-model", "b-model"]),
        ("models-together", ["meta-llama/x", "mistral/y"]),
        ("models-gemini", ["gemini-2.5-flash", "gemini-2.5-pro"]),
    ]:
        endpoint = Endpoint(base_url=faults.url(scenario), model="fallback", api_key=TEST_KEY)
        assert await list_models(scenario, endpoint) == expected
        assert await list_models(scenario, endpoint) == expected
        assert faults.counts[scenario] == 1, "the second call came from the cache"
        assert faults.seen[-1].headers["authorization"] == f"Bearer {TEST_KEY}"
    broken = Endpoint(base_url=faults.url("e500"), model="fallback")
    assert await list_models("broken", broken) == ["fallback"]


def key_command(*args: str, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch) -> int:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(["key", *args])


def test_keyring_set_status_delete(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert key_command("set", "groq", stdin=TEST_KEY + "\n", monkeypatch=monkeypatch) == 0
    assert keyring.get_password("chatterm", "groq") == TEST_KEY
    assert TEST_KEY not in capsys.readouterr().out, "the key is never echoed"
    found = find_key("groq", "GROQ_API_KEY")
    assert found is not None and found.source == "keyring" and found.value == TEST_KEY
    monkeypatch.setenv("GROQ_API_KEY", "sk-from-the-environment")
    found = find_key("groq", "GROQ_API_KEY")
    assert found is not None and found.source == "env:GROQ_API_KEY", "the environment variable comes first"
    monkeypatch.delenv("GROQ_API_KEY")
    assert key_command("status", "groq", monkeypatch=monkeypatch) == 0
    status = capsys.readouterr().out
    assert "keyring" in status and TEST_KEY not in status
    assert choose(load_settings(), "groq").endpoint.api_key == TEST_KEY
    assert key_command("delete", "groq", monkeypatch=monkeypatch) == 0
    assert keyring.get_password("chatterm", "groq") is None
    with pytest.raises(ResolveError):
        choose(load_settings(), "groq")


def test_no_keyring_backend_gives_one_line_and_the_env_route() -> None:
    commands: list[tuple[str, ...]] = [("key", "set", "groq"), ("key", "status", "groq"), ("key", "delete", "groq")]
    for args in commands:
        result = run_chatterm(*args, input=TEST_KEY + "\n")
        assert "Traceback" not in result.stderr
        if args[1] != "status":
            assert result.code == 2
            assert_one_line_error(result)
            assert "export GROQ_API_KEY=" in result.stderr
    status = run_chatterm("key", "status", "groq")
    assert status.code == 0 and "no key (GROQ_API_KEY)" in status.stdout


def test_profiles_commands_keep_the_file_and_never_hold_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_config('# my settings\ntheme = "chatterm-light"\n')
    assert (
        main(
            [
                "profiles",
                "add",
                "box",
                "--base-url",
                "http://127.0.0.1:8080/v1",
                "--model",
                "qwen",
                "--param",
                "temperature=0.2",
                "--param",
                "reasoning_effort=high",
                "--local",
            ]
        )
        == 0
    )
    assert main(["profiles", "default", "box"]) == 0
    text = path.read_text()
    assert "# my settings" in text and 'theme = "chatterm-light"' in text
    settings = load_settings()
    assert settings.default_profile == "box"
    assert settings.profiles["box"].params == {"temperature": 0.2, "reasoning_effort": "high"}
    assert choose(settings).profile == "box"
    assert main(["profiles", "remove", "box"]) == 0
    assert "box" not in load_settings().profiles and load_settings().default_profile is None
    assert main(["profiles", "remove", "groq"]) == 2, "a preset cannot be removed"
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_profiles_add_sets_a_native_api_and_its_effort() -> None:
    url = "http://127.0.0.1:8080/v1beta"
    added = main(["profiles", "add", "gem", "--base-url", url, "--model", "g", "--api", "gemini", "--effort", "low"])
    assert added == 0
    profile = load_settings().profiles["gem"]
    assert (profile.api, profile.effort) == ("gemini", "low")
    with pytest.raises(SystemExit) as refused:
        main(["profiles", "add", "gem", "--base-url", url, "--model", "g", "--effort", "most"])
    assert refused.value.code == 2


def test_first_run_picks_demo_then_a_provider_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    assert choose(load_settings()).profile == DEMO
    monkeypatch.setenv("XAI_API_KEY", TEST_KEY)
    choice = choose(load_settings())
    assert choice.profile == "xai" and choice.endpoint.api_key == TEST_KEY


def test_profiles_list_and_show(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    assert main(["profiles"]) == 0
    listing = capsys.readouterr().out
    assert "openai" in listing and "env:OPENAI_API_KEY" in listing and TEST_KEY not in listing
    assert main(["profiles", "show", "openai"]) == 0
    shown = capsys.readouterr().out
    assert "https://api.openai.com/v1" in shown and TEST_KEY not in shown


def test_every_command_that_takes_a_profile_knows_the_demo() -> None:
    listed = run_chatterm("profiles")
    assert listed.code == 0 and "demo" in listed.stdout
    status = run_chatterm("key", "status", "demo")
    assert status.code == 0, status.stderr
    assert status.stdout.strip() == "demo: no key needed (the offline demo answers from recordings)"
    for action in ("set", "delete"):
        result = run_chatterm("key", action, "demo", input=TEST_KEY + "\n")
        assert result.code == 2
        assert_one_line_error(result)
        assert "the offline demo needs no key" in result.stderr and "no profile" not in result.stderr
    removed = run_chatterm("profiles", "remove", "demo")
    assert removed.code == 2
    assert_one_line_error(removed)
    assert "'demo' is built in" in removed.stderr
    shown = run_chatterm("profiles", "show", "demo", "--models")
    assert shown.code == 0 and "key: none needed" in shown.stdout and "models: chatterm-demo" in shown.stdout
