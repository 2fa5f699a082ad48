"""Loading settings: four sources in their order of priority, and one clear line for every config chatterm refuses.

Each file under `data/configs/` is a config chatterm must refuse. Its `# expect:` lines say what the error holds:
the first is what follows the file's path, the others appear somewhere in the line. Every one goes through
`load_settings` and through the real command line.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from chatterm import locations
from chatterm.settings.config import Settings, load_settings
from chatterm.settings.errors import ConfigError
from chatterm.settings.presets import PRESETS
from tests.conftest import DATA, assert_one_line_error, run_chatterm

CONFIGS = DATA / "configs"
BAD_CONFIGS = sorted(path.name for path in CONFIGS.glob("*.toml"))


def expectations(path: Path) -> list[str]:
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    return [line.removeprefix("# expect: ") for line in lines if line.startswith("# expect: ")]


def install(source: Path) -> Path:
    """Copy a config to where chatterm looks for it (the test's own config dir)."""
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, path)
    return path


def write_config(text: str) -> Path:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def refused(path: Path | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def assert_the_command_says(message: str) -> None:
    result = run_chatterm("ask", "hi")
    assert result.code == 2
    assert_one_line_error(result)
    assert result.stderr.strip() == f"chatterm: {message}"


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_a_bad_config_is_one_line_naming_the_file_the_table_and_the_key(name: str) -> None:
    first, *rest = expectations(CONFIGS / name)
    explicit = refused(CONFIGS / name)
    assert explicit.startswith(f"{CONFIGS / name}: {first}"), explicit
    path = install(CONFIGS / name)
    message = refused()
    assert message.startswith(f"{path}: {first}"), message
    assert all(words in message for words in rest), message
    assert_the_command_says(message)


def test_every_kind_of_bad_config_is_kept() -> None:
    assert len(BAD_CONFIGS) >= 13, BAD_CONFIGS
    assert all(expectations(CONFIGS / name) for name in BAD_CONFIGS), "each file says what its error holds"


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("CHATTERM_PROFILES__GROQ__READ_TIMOUT", "5", "[profiles.groq] read_timout: unknown key"),
        (
            "CHATTERM_PROFILES__GROQ__READ_TIMEOUT",
            "soon",
            "[profiles.groq] read_timeout: input should be a valid number",
        ),
        ("CHATTERM_SHOW_REASONING", "maybe", "show_reasoning: input should be a valid boolean"),
        ("CHATTERM_READING_WIDTH", "10", "reading_width: input should be greater than or equal to 20"),
        ("CHATTERM_READING_WIDTH", "wide", "reading_width: input should be a valid integer"),
        ("CHATTERM_PROFILES", "not json", "not valid JSON"),
        # pydantic-settings 2.4 passes the text on, to fail as a value rather than as JSON
        ("CHATTERM_PROFILES__GROQ__PARAMS", "{temperature: 1}", "not valid JSON | [profiles.groq] params: should be"),
        ("CHATTERM_PROFILES__GROQ", "fast", "[profiles] groq: should be a JSON object"),
        ("CHATTERM_PROFILES", '{"groq": {"modle": "x"}}', "[profiles.groq] modle: unknown key"),
    ],
)
def test_a_bad_variable_is_one_line_naming_the_variable(
    variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, value)
    message = refused()
    assert any(message.startswith(f"{variable}: {words}") for words in expected.split(" | ")), message
    assert_the_command_says(message)


def test_the_error_names_the_source_the_bad_key_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    path = install(CONFIGS / "profile_typo.toml")
    monkeypatch.setenv("CHATTERM_PROFILES", '{"mine": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}}')
    assert refused().startswith(f"{path}: [profiles.x] read_timout: unknown key")
    write_config('[profiles.groq]\nmodel = "from-file"\n')
    monkeypatch.setenv("CHATTERM_PROFILES__GROQ__READ_TIMOUT", "5")
    assert refused().startswith("CHATTERM_PROFILES__GROQ__READ_TIMOUT: [profiles.groq] read_timout: unknown key")


def test_keywords_then_environment_then_file_then_presets(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(
        'theme = "from-file"\ndefault_profile = "groq"\n[profiles.groq]\nmodel = "from-file"\nread_timeout = 30\n'
    )
    monkeypatch.setenv("CHATTERM_THEME", "from-env")
    monkeypatch.setenv("CHATTERM_PROFILES__GROQ__MODEL", "from-env")
    monkeypatch.setenv("CHATTERM_PROFILES__GROQ__HEADERS", '{"X-Team": "blue"}')
    keywords: dict[str, Any] = {"theme": "from-keyword", "profiles": {"groq": {"connect_timeout": 3}}}
    settings = Settings(**keywords)
    assert settings.theme == "from-keyword"
    groq = settings.profiles["groq"]
    assert (groq.connect_timeout, groq.model, groq.read_timeout) == (3, "from-env", 30), "one field from each"
    assert groq.headers == {"X-Team": "blue"}
    assert groq.base_url == PRESETS["groq"].base_url and groq.api_key_env == "GROQ_API_KEY"
    assert settings.default_profile == "groq"
    assert settings.profiles["openai"] == PRESETS["openai"], "untouched presets stay as built"
    loaded = load_settings()
    assert loaded.theme == "from-env" and loaded.profiles["groq"].connect_timeout == PRESETS["groq"].connect_timeout


def test_the_file_is_found_at_load_time_or_given(tmp_path: Path) -> None:
    assert load_settings().profiles == PRESETS, "no file: the presets alone"
    write_config('theme = "chatterm-light"\n')
    assert load_settings().theme == "chatterm-light" and Settings().theme == "chatterm-light"
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('theme = "solarized"\n')
    assert load_settings(elsewhere).theme == "solarized"
    assert load_settings(tmp_path / "absent.toml").theme == "chatterm-dark"


def test_a_variable_that_names_no_setting_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switches such as `CHATTERM_SOAK_TURNS` share the prefix; only variables inside a setting are checked."""
    monkeypatch.setenv("CHATTERM_SOAK_TURNS", "5")
    assert load_settings().theme == "chatterm-dark"


def test_a_config_path_that_is_not_a_file_is_refused() -> None:
    path = locations.config_file()
    path.mkdir(parents=True)
    assert refused() == f"{path}: not a file"


def test_the_reading_width_is_about_100_columns_and_configurable() -> None:
    assert load_settings().reading_width == 100
    write_config("reading_width = 72\n")
    assert load_settings().reading_width == 72
