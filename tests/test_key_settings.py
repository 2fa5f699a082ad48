"""Keys are never settings: `profiles add` refuses a header or a request parameter that carries an API key, in one
line saying where keys go, and writes nothing (a config file holding one is refused when it is loaded:
`data/configs/key_*.toml`)."""

from __future__ import annotations

import pytest

from chatterm import locations
from tests.conftest import assert_one_line_error, run_chatterm


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--header", "Authorization=Bearer sk-inline-SECRET", "--header Authorization"),
        ("--header", "proxy-authorization=Basic sk-inline-SECRET", "--header proxy-authorization"),
        ("--header", "X-Goog-Api-Key=sk-inline-SECRET", "--header X-Goog-Api-Key"),
        ("--param", "api_key=sk-inline-SECRET", "--param api_key"),
        ("--param", "APIKEY=sk-inline-SECRET", "--param APIKEY"),
        ("--param", "key=sk-inline-SECRET", "--param key"),
    ],
)
def test_profiles_add_refuses_a_key_in_a_header_or_a_parameter(option: str, value: str, named: str) -> None:
    given = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--header", "X-Title=my app", option, value]
    result = run_chatterm("profiles", "add", "t3", *given)
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    line = result.stderr.strip()
    assert line.startswith(f"chatterm: {named}: carries an API key"), line
    assert "chatterm key set t3" in line and "environment variable" in line
    assert "SECRET" not in line
    assert not locations.config_file().exists(), "nothing was written"


def test_profiles_add_keeps_a_header_that_carries_no_key() -> None:
    given = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--header", "X-Title=my app"]
    result = run_chatterm("profiles", "add", "t3", *given, "--param", "keyword=x")
    assert result.code == 0, result.stderr
    assert "my app" in locations.config_file().read_text()


@pytest.mark.parametrize(
    ("base_url", "part"),
    [
        ("http://u:sk-inline-SECRET@127.0.0.1:9/v1", "its password"),
        ("http://127.0.0.1:9/v1?api_key=sk-inline-SECRET", "its api_key parameter"),
        ("http://127.0.0.1:9/v1?x=1&Key=sk-inline-SECRET", "its Key parameter"),
    ],
)
def test_a_key_in_a_profile_s_base_url_is_refused(base_url: str, part: str) -> None:
    """A base URL carrying a key (a password, a key parameter) was written to config.toml and printed back by
    `profiles show`; a config file holding one is refused when it is loaded, naming the table and the key."""
    result = run_chatterm("profiles", "add", "t4", "--base-url", base_url, "--model", "m")
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    line = result.stderr.strip()
    assert line.startswith(f"chatterm: --base-url: carries an API key ({part})"), line
    assert "SECRET" not in line and not locations.config_file().exists()

    locations.config_file().parent.mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text(f'[profiles.t4]\nbase_url = "{base_url}"\nmodel = "m"\n')
    loaded = run_chatterm("profiles", "list")
    assert loaded.code == 2, loaded.stderr
    assert_one_line_error(loaded)
    assert "[profiles.t4] base_url" in loaded.stderr and f"carries an API key ({part})" in loaded.stderr
    assert "SECRET" not in loaded.stderr


def test_an_ad_hoc_base_url_carrying_a_key_says_how_to_give_the_key() -> None:
    result = run_chatterm("ask", "--base-url", "http://u:sk-inline-SECRET@127.0.0.1:9/v1", "-m", "m", "hi")
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    assert "--base-url carries an API key (its password)" in result.stderr and "--api-key-env" in result.stderr
    assert "SECRET" not in result.stderr


def test_an_empty_key_variable_is_said_to_be_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMPTY_KEY", "")
    result = run_chatterm("ask", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "EMPTY_KEY", "-m", "m", "hi")
    assert result.code == 2 and "--api-key-env EMPTY_KEY: the variable is empty" in result.stderr, result.stderr
