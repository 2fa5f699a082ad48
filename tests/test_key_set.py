"""`chatterm key set` at a terminal: a key that could not be kept is never asked for."""

from __future__ import annotations

import os
import pty
import select
import sys
import time

import pytest

from tests.conftest import TEST_KEY

PROMPT = b"API key for"


def at_a_terminal(*args: str, env: dict[str, str]) -> bytes:
    """Run `chatterm` with a terminal of its own (its controlling terminal, as at a shell), answering a key prompt
    if one comes: everything the terminal showed."""
    pid, master = pty.fork()
    if pid == 0:  # (the child only replaces itself)
        os.execve(sys.executable, [sys.executable, "-m", "chatterm", *args], {**os.environ, **env})
    shown = b""
    answered = False
    deadline = time.monotonic() + 60  # (a guard against a hang, not a measurement)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if not ready:
            continue
        try:
            data = os.read(master, 65536)
        except OSError:  # (EIO: the command ended and closed the terminal)
            break
        if not data:
            break
        shown += data
        if PROMPT in shown and not answered:
            os.write(master, TEST_KEY.encode() + b"\n")
            answered = True
    os.waitpid(pid, 0)
    os.close(master)
    return shown.replace(b"\r\n", b"\n")


@pytest.mark.parametrize(
    ("keyring", "said"),
    [
        ({"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}, b"no system keyring is available"),
        ({"PYTHON_KEYRING_BACKEND": "tests.keyrings.Broken"}, b"the system keyring failed"),
    ],
    ids=["no keyring", "a failing keyring"],
)
def test_key_set_says_the_keyring_cannot_keep_a_key_before_asking_for_one(keyring: dict[str, str], said: bytes) -> None:
    shown = at_a_terminal("key", "set", "groq", env=keyring)
    assert PROMPT not in shown, f"asked for a key it could not keep: {shown!r}"
    assert said in shown and b"export GROQ_API_KEY=" in shown, shown
    assert b"Traceback" not in shown
