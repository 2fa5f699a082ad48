"""Keyring backends that fail the way real ones do, for subprocess tests: `PYTHON_KEYRING_BACKEND=tests.keyrings.Broken`
with `BROKEN_KEYRING_ERROR` naming the error every call raises (a D-Bus error, an OSError, a RuntimeError)."""

from __future__ import annotations

import os

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
