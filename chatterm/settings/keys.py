"""API keys: the provider's environment variable first, then the system keyring (service `chatterm`).

A machine without a keyring backend (a headless Linux box) gets one clear line pointing to the
environment variable; nothing crashes. Keys are never written to the config file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

SERVICE = "chatterm"


class KeyringUnavailable(Exception):
    """No usable keyring backend on this machine."""


@dataclass(frozen=True)
class FoundKey:
    value: str
    source: str
    """Where it came from: `env:NAME` or `keyring`."""


def _keyring() -> tuple[Any, type[Exception]]:
    import keyring
    from keyring.backends import fail
    from keyring.errors import KeyringError

    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 1) <= 0:
        raise KeyringUnavailable("no system keyring is available on this machine")
    return keyring, KeyringError


def keyring_available() -> bool:
    try:
        _keyring()
    except KeyringUnavailable:
        return False
    except Exception:
        return False
    return True


def no_keyring_hint(env_var: str | None) -> str:
    if env_var:
        return f"no system keyring is available on this machine; set the key in the environment: export {env_var}=..."
    return "no system keyring is available on this machine; set the key in the profile's environment variable"


def find_key(profile: str, env_var: str | None) -> FoundKey | None:
    """The key for a profile, or None. Never raises for a missing keyring."""
    if env_var and os.environ.get(env_var):
        return FoundKey(os.environ[env_var], f"env:{env_var}")
    try:
        keyring, _keyring_error = _keyring()
        value = keyring.get_password(SERVICE, profile)
    except KeyringUnavailable:
        return None
    except Exception:
        return None
    return FoundKey(value, "keyring") if value else None


def keyring_keys(profile: str) -> tuple[str, ...]:
    """The key the keyring holds for a profile, if any, as a key to mask: a profile whose variable gives the key in
    use may hold another there. Never raises for a missing or broken keyring."""
    try:
        keyring, _keyring_error = _keyring()
        stored = keyring.get_password(SERVICE, profile)
    except Exception:
        return ()
    return (stored,) if isinstance(stored, str) and stored else ()


def set_key(profile: str, value: str) -> None:
    keyring, keyring_error = _keyring()
    try:
        keyring.set_password(SERVICE, profile, value)
    except keyring_error as exc:
        raise KeyringUnavailable(f"the system keyring refused the key ({exc})") from None


def delete_key(profile: str) -> bool:
    """True if a key was deleted."""
    keyring, keyring_error = _keyring()
    try:
        keyring.delete_password(SERVICE, profile)
    except keyring_error:
        return False
    return True


def mask(value: str) -> str:
    return f"{value[:3]}…{value[-2:]}" if len(value) > 8 else "…"
