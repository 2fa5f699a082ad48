"""Keyring backends for subprocess tests: `PYTHON_KEYRING_BACKEND=tests.keyrings.Broken` fails the way real ones do,
with `BROKEN_KEYRING_ERROR` naming the error every call raises (a D-Bus error, an OSError, a RuntimeError);
`tests.keyrings.FileKeyring` keeps its keys in a file a test can read and write."""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend


class DBusErrorResponse(Exception):
    """What a D-Bus library raises when the secret service answers with an error (it is no keyring error)."""


ERRORS: dict[str, type[Exception]] = {"RuntimeError": RuntimeError, "OSError": OSError, "DBus": DBusErrorResponse}


class Broken(KeyringBackend):
    """A keyring whose every call raises the error named by `BROKEN_KEYRING_ERROR`."""

    priority = 1  # type: ignore[assignment]

    def _fail(self, given: str = "") -> None:
        error = ERRORS[os.environ.get("BROKEN_KEYRING_ERROR", "RuntimeError")]
        raise error(f"{given} the keyring daemon went away".strip())

    def get_password(self, service: str, username: str) -> str | None:
        self._fail()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._fail(f"cannot store {password}:")  # as a careless backend might

    def delete_password(self, service: str, username: str) -> None:
        self._fail()


class FileKeyring(KeyringBackend):
    """A keyring kept as JSON in the file `FILE_KEYRING` names ({"service username": password}), so a test can put a
    key in before a subprocess runs and read what the subprocess stored."""

    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ["FILE_KEYRING"])

    def _read(self) -> dict[str, str]:
        path = self._path()
        return dict(json.loads(path.read_text())) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._read().get(f"{service} {username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        self._path().write_text(json.dumps({**self._read(), f"{service} {username}": password}))

    def delete_password(self, service: str, username: str) -> None:
        held = self._read()
        held.pop(f"{service} {username}")
        self._path().write_text(json.dumps(held))
