"""Values the settings refuse when they are loaded or added, not when a request fails: timeouts, base URLs (only
http(s); a link-local address only when the profile opts in), profile names, numbers on the command line, and a
keyring that fails. Each is one line naming the value, exit code 2. (Bad config files are under `data/configs/`,
checked by `test_config.py`.)"""

from __future__ import annotations

import os

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from chatterm import locations
from chatterm.settings.choice import ResolveError, choose
from chatterm.settings.config import load_settings
from chatterm.settings.errors import ConfigError
from chatterm.settings.profile import ProfileSettings
from chatterm.terminal_text import MESSAGE
from tests.conftest import TEST_KEY, assert_one_line_error, run_chatterm

DEEP = "[" * 5000 + "]" * 5000


def refused_by_the_command(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
    result = run_chatterm(*args, env=env, input=input, timeout=30)
    assert result.code == 2, (args, result.code, result.stdout[:200], result.stderr)
    assert_one_line_error(result)
    return result.stderr.strip()


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        (
            "CHATTERM_PROFILES__GROQ__READ_TIMEOUT",
            "-5",
            "[profiles.groq] read_timeout: should be a number of seconds above 0, not -5",
        ),
        (
            "CHATTERM_PROFILES__GROQ__CONNECT_TIMEOUT",
            "nan",
            "[profiles.groq] connect_timeout: should be a number of seconds above 0, not nan",
        ),
        ("CHATTERM_PROFILES__GROQ__READ_TIMEOUT", "0", "[profiles.groq] read_timeout: should be a number of seconds"),
        pytest.param("CHATTERM_PROFILES", '{"x": ' + DEEP + "}", "nested too deeply", id="deep-json"),
        (
            "CHATTERM_PROFILES",
            '{"x": {"base_url": "http://[::1", "model": "m"}}',
            "[profiles.x] base_url: 'http://[::1' is not a valid URL",
        ),
        (
            "CHATTERM_PROFILES__GROQ__BASE_URL",
            "file:///etc/passwd",
            "[profiles.groq] base_url: 'file:///etc/passwd' is not an http or https URL",
        ),
        (
            "CHATTERM_PROFILES__GROQ__BASE_URL",
            "http://169.254.169.254/v1",
            "[profiles.groq] base_url: 'http://169.254.169.254/v1' is a link-local address",
        ),
        (
            "CHATTERM_PROFILES",
            '{"": {"base_url": "http://127.0.0.1:8080/v1", "model": "m"}}',
            "profiles: a profile name cannot be empty",
        ),
    ],
)
def test_a_bad_value_in_a_variable_is_one_line_naming_it(
    variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"{variable}: {expected}"), message
    assert refused_by_the_command("ask", "hi", env={variable: value}) == f"chatterm: {message}"


LINK_LOCAL = [
    "http://169.254.169.254/latest",
    "http://169.254.0.1:8080/v1",
    "https://[fe80::1]/v1",
    "http://[fe80::a:b%25eth0]/v1",
    "http://[fd00:ec2::254]/v1",
    "http://[::ffff:169.254.169.254]/v1",
    "http://2852039166/v1",
    "http://0xa9fea9fe/v1",
    "http://0251.0376.0251.0376/v1",
    "http://169.254.169.254./v1",
]
NOT_LINK_LOCAL = [
    "http://127.0.0.1:8080/v1",
    "http://[::1]:8080/v1",
    "http://10.0.0.1/v1",
    "http://169.255.0.1/v1",
    "https://api.example.com/v1",
    "http://[fd00::1]/v1",
    "http://localhost:11434/v1",
]


@pytest.mark.parametrize("url", LINK_LOCAL)
def test_a_link_local_address_needs_the_profile_to_opt_in(url: str) -> None:
    with pytest.raises(ValidationError) as caught:
        ProfileSettings(base_url=url, model="m")
    assert "link-local" in str(caught.value)
    assert ProfileSettings(base_url=url, model="m", allow_link_local=True).base_url == url


@pytest.mark.parametrize("url", NOT_LINK_LOCAL)
def test_other_addresses_need_no_opt_in(url: str) -> None:
    assert ProfileSettings(base_url=url, model="m").base_url == url


def test_a_config_that_opts_in_loads() -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[profiles.box]\nbase_url = "http://169.254.169.254/v1"\nmodel = "m"\nallow_link_local = true\n')
    assert load_settings().profiles["box"].allow_link_local


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://[::1", "'http://[::1' is not a valid URL"),
        ("http://127.0.0.1:99999/v1", "'http://127.0.0.1:99999/v1' is not a valid URL"),
        ("ftp://example.com/v1", "'ftp://example.com/v1' is not an http or https URL"),
        ("http://169.254.169.254/v1", "'http://169.254.169.254/v1' is a link-local address"),
        ("http://[fe80::1]/v1", "--allow-link-local"),
    ],
)
def test_an_ad_hoc_base_url_is_checked_before_anything_starts(url: str, expected: str) -> None:
    for command in (("ask", "--base-url", url, "hi"), ("--base-url", url)):
        message = refused_by_the_command(*command)
        assert expected in message and "--base-url" in message, message


def test_an_ad_hoc_link_local_url_is_used_when_allowed() -> None:
    """With the opt-in the request is made (and fails only as a connection: nothing answers on fe80::1)."""
    result = run_chatterm("ask", "--base-url", "http://[fe80::1]:9/v1", "--allow-link-local", "hi", timeout=30)
    assert result.code == 1, result.stderr
    assert_one_line_error(result)
    assert "link-local" not in result.stderr and "fe80::1" in result.stderr
    settings = load_settings()
    with pytest.raises(ResolveError):
        choose(settings, base_url="http://169.254.169.254/v1")
    choice = choose(settings, base_url="http://169.254.169.254/v1", allow_link_local=True)
    assert choice.endpoint.base_url == "http://169.254.169.254/v1"


def profiles_add(*args: str) -> list[str]:
    return ["profiles", "add", *args]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (profiles_add("", "--base-url", "http://127.0.0.1:8080/v1", "--model", "m"), "a profile name cannot be empty"),
        (profiles_add("  ", "--base-url", "http://127.0.0.1:8080/v1", "--model", "m"), "cannot be empty"),
        (profiles_add("box", "--base-url", "http://[::1", "--model", "m"), "--base-url: 'http://[::1' is not a valid"),
        (profiles_add("box", "--base-url", "gopher://x/v1", "--model", "m"), "is not an http or https URL"),
        (
            profiles_add("box", "--base-url", "http://169.254.169.254/v1", "--model", "m"),
            "is a link-local address",
        ),
    ],
)
def test_profiles_add_refuses_a_value_it_could_not_use(args: list[str], expected: str) -> None:
    message = refused_by_the_command(*args)
    assert expected in message, message
    assert not locations.config_file().exists(), "nothing is saved"


def test_profiles_add_saves_a_link_local_profile_when_told() -> None:
    args = profiles_add("box", "--base-url", "http://169.254.169.254/v1", "--model", "m")
    assert "--allow-link-local" in refused_by_the_command(*args)
    result = run_chatterm(*args, "--allow-link-local")
    assert result.code == 0, result.stderr
    assert "allow_link_local = true" in locations.config_file().read_text()
    assert load_settings().profiles["box"].allow_link_local


@pytest.mark.parametrize(
    ("args", "value"),
    [
        (("ask", "--read-timeout", "nan", "hi"), "nan"),
        (("ask", "--read-timeout", "-1", "hi"), "-1"),
        (("serve", "x.yaml", "--speed", "inf"), "inf"),
        (("serve", "x.yaml", "--port", "70000"), "70000"),
        (("serve", "x.yaml", "--port", "-5"), "-5"),
        (profiles_add("box", "--base-url", "http://127.0.0.1:8080/v1", "--model", "m", "--read-timeout", "0"), "0"),
    ],
)
def test_numbers_on_the_command_line_are_checked(args: tuple[str, ...], value: str) -> None:
    result = run_chatterm(*args, timeout=30)
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"'{value}'" in result.stderr.splitlines()[-1], result.stderr


BROKEN = {"PYTHON_KEYRING_BACKEND": "tests.keyrings.Broken"}


@pytest.mark.parametrize("error", ["RuntimeError", "OSError", "DBus"])
@pytest.mark.parametrize("action", ["set", "delete", "status"])
def test_a_failing_keyring_is_one_line(action: str, error: str) -> None:
    env = {**BROKEN, "BROKEN_KEYRING_ERROR": error}
    message = refused_by_the_command("key", action, "groq", env=env, input=TEST_KEY + "\n")
    assert "the system keyring failed" in message and "the keyring daemon went away" in message, message
    assert "export GROQ_API_KEY=" in message
    assert TEST_KEY not in message, "a key the backend echoes is masked"


def test_key_set_says_there_is_no_keyring_before_asking_for_the_key() -> None:
    """With no keyring on the machine, `key set` says so at once: it never asks for a secret it cannot keep."""
    result = run_chatterm("key", "set", "groq")
    assert result.code == 2
    assert_one_line_error(result)
    assert "no system keyring is available" in result.stderr and "export GROQ_API_KEY=" in result.stderr
    assert "no key given" not in result.stderr


def test_a_failing_keyring_does_not_stop_other_commands() -> None:
    """Where a key may come from elsewhere (the environment), a failing keyring is only a missing key."""
    env = {**BROKEN, "GROQ_API_KEY": TEST_KEY}
    result = run_chatterm("profiles", "list", env=env)
    assert result.code == 0, result.stderr
    assert "env:GROQ_API_KEY" in result.stdout and TEST_KEY not in result.stdout


def test_a_config_that_is_a_fifo_is_named_not_read() -> None:
    """The config found where a file should be is named, not read (a FIFO would block)."""
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    message = refused_by_the_command("profiles", "list")
    assert message == f"chatterm: {path}: not a file"


URL_TEXT = st.text(alphabet=st.sampled_from("abAB09.:-_[]%@/?#~!$&'()*+,;= \\^`{}|<>\"\x00\x7fé²😍"), max_size=24)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "http:/", ""]), URL_TEXT, st.text(max_size=8))
def test_a_base_url_accepted_when_loaded_is_one_the_client_can_send_to(scheme: str, host: str, rest: str) -> None:
    """Whatever the check lets through, the HTTP client reads too: a profile never fails at its first request for a
    URL it was loaded with."""
    url = scheme + host + rest
    try:
        ProfileSettings(base_url=url, model="m")
    except ValidationError:
        return
    parsed = httpx.URL(url.rstrip("/") + "/chat/completions")
    assert parsed.scheme in ("http", "https") and parsed.host


def test_numbers_in_variables_are_still_read_from_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHATTERM_PROFILES__GROQ__READ_TIMEOUT", "10")
    monkeypatch.setenv("CHATTERM_READING_WIDTH", "80")
    settings = load_settings()
    assert settings.profiles["groq"].read_timeout == 10.0 and settings.reading_width == 80


def test_a_default_profile_that_names_no_profile_is_said() -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('default_profile = "nonexist"\n')
    said = "default_profile 'nonexist' names no profile"
    listed = run_chatterm("profiles", "list")
    assert listed.code == 0 and "groq" in listed.stdout and "*" not in listed.stdout, "the list, to choose from"
    (warning,) = listed.stderr.splitlines()
    assert warning.startswith(f"chatterm: warning: {said}") and "chatterm profiles default NAME" in warning
    assert said in refused_by_the_command("ask", "hi")
    assert run_chatterm("profiles", "default", "groq").code == 0, "the default can be set again"
    assert run_chatterm("profiles", "list").stderr == ""


def test_a_long_value_is_shortened_in_the_error_line() -> None:
    """A value from a file or the environment is named in the error, not printed whole (a line screens long)."""
    value = "ftp://" + "x" * 50_000
    message = refused_by_the_command("profiles", "list", env={"CHATTERM_PROFILES__GROQ__BASE_URL": value})
    assert len(message) <= MESSAGE and "\u2026" in message and "base_url" in message, message[:400]
