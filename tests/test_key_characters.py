"""A key is sent as the provider gave it: the whitespace a paste adds around it (spaces, tabs, line ends, no-break and
other Unicode spaces) is dropped wherever a key is read (the environment, the keyring, `key set`), and a key that
still holds a character no HTTP header can carry is refused before any request, in one line naming where the key came
from and where the character is, never the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY, Result, assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER, FaultServer

KEYRING_KEY = "sk-trial-KEYRING-7e6d5c4b3a29"
"""The key the file keyring holds (TEST_KEY is never written to a file, and this keyring is a file)."""
PASTED = [(" \t", "\n"), ("\u00a0", "\u00a0"), ("\ufeff", "\u2003\r\n"), ("", "\u200b\u3000")]
"""What a paste puts before and after a key."""
BAD = [
    (f"{TEST_KEY}-ünï", f"U+00FC (not ASCII) at position {len(TEST_KEY) + 2}"),
    (f"sk-test-SEC\u00a0RET-{TEST_KEY}", "U+00A0 (not ASCII) at position 12"),
    (f"sk-test\x07{TEST_KEY}", "U+0007 (a control character) at position 8"),
    (f"{TEST_KEY}\nsk-other-line", f"U+000A (a control character) at position {len(TEST_KEY) + 1}"),
]
"""Keys that hold a character no header can carry, and the words that say where it is."""


def ask_with(url: str, key: str, *extra: str) -> Result:
    options = ["--base-url", url, "--model", "m", "--api-key-env", "KK", *extra]
    return run_chatterm("ask", *options, "hi", env={"KK": key})


def in_keyring(tmp_path: Path, key: str) -> dict[str, str]:
    """The environment of a subprocess whose keyring holds `key` for the groq profile, which asks `url`."""
    path = tmp_path / "keyring.json"
    path.write_text(json.dumps({"chatterm groq": key}))
    return {"PYTHON_KEYRING_BACKEND": "tests.keyrings.FileKeyring", "FILE_KEYRING": str(path)}


def assert_refused(result: Result, *words: str) -> None:
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    line = result.stderr.strip()
    for word in words:
        assert word in line, line
    assert "SECRET" not in line and "KEYRING-" not in line, f"the key was shown: {line}"


@pytest.mark.parametrize(("before", "after"), PASTED)
def test_ask_sends_a_pasted_key_without_the_whitespace_around_it(
    fault_server: FaultServer, before: str, after: str
) -> None:
    result = ask_with(fault_server.url("ok"), f"{before}{TEST_KEY}{after}")
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
    assert fault_server.seen[-1].headers["authorization"] == f"Bearer {TEST_KEY}"


@pytest.mark.parametrize(("key", "where"), BAD)
def test_ask_refuses_a_key_no_header_can_carry_before_any_request(
    fault_server: FaultServer, key: str, where: str
) -> None:
    result = ask_with(fault_server.url("ok"), key)
    assert_refused(result, "the variable KK", where)
    assert not fault_server.seen, "no request went out"


def test_the_app_refuses_such_a_key_at_start_in_one_line(fault_server: FaultServer) -> None:
    options = ["--base-url", fault_server.url("ok"), "--model", "m", "--api-key-env", "KK"]
    result = run_chatterm(*options, env={"KK": f"{TEST_KEY}ü"})
    assert_refused(result, "the variable KK", f"U+00FC (not ASCII) at position {len(TEST_KEY) + 1}")
    assert not fault_server.seen


def test_a_keyring_key_is_sent_without_the_whitespace_around_it(fault_server: FaultServer, tmp_path: Path) -> None:
    env = in_keyring(tmp_path, f"\u00a0{KEYRING_KEY}\n") | {"CHATTERM_PROFILES__GROQ__BASE_URL": fault_server.url("ok")}
    result = run_chatterm("ask", "--profile", "groq", "hi", env=env)
    assert result.code == 0, result.stderr
    assert fault_server.seen[-1].headers["authorization"] == f"Bearer {KEYRING_KEY}"


def test_a_keyring_key_no_header_can_carry_is_refused_naming_the_entry(
    fault_server: FaultServer, tmp_path: Path
) -> None:
    env = {**in_keyring(tmp_path, f"{KEYRING_KEY}ï"), "CHATTERM_PROFILES__GROQ__BASE_URL": fault_server.url("ok")}
    result = run_chatterm("ask", "--profile", "groq", "hi", env=env)
    assert_refused(result, "the keyring entry for groq", f"U+00EF (not ASCII) at position {len(KEYRING_KEY) + 1}")
    assert "chatterm key set groq" in result.stderr
    assert not fault_server.seen


def test_key_set_stores_the_key_without_the_whitespace_a_paste_adds(tmp_path: Path) -> None:
    env = in_keyring(tmp_path, "")
    result = run_chatterm("key", "set", "groq", input=f"\ufeff {KEYRING_KEY}\u200b\u00a0\r\n", env=env)
    assert result.code == 0, result.stderr
    assert json.loads(Path(env["FILE_KEYRING"]).read_text())["chatterm groq"] == KEYRING_KEY


def test_key_set_refuses_a_key_no_header_can_carry_and_stores_nothing(tmp_path: Path) -> None:
    env = in_keyring(tmp_path, "")
    result = run_chatterm("key", "set", "groq", input=f"{KEYRING_KEY[:9]}é{KEYRING_KEY[9:]}\n", env=env)
    assert_refused(result, "the key given", "U+00E9 (not ASCII) at position 10")
    assert json.loads(Path(env["FILE_KEYRING"]).read_text())["chatterm groq"] == ""
