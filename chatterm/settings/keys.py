"""API keys: the provider's environment variable first, then the system keyring (service `chatterm`).

A machine without a keyring backend (a headless Linux box) gets one clear line pointing to the
environment variable; nothing crashes. Keys are never written to the config file. A key is read without the
whitespace a paste adds around it (`chatterm.net.header_text`), wherever it comes from; `key_problem` says why one
that still holds a character no header can carry is refused, naming where it came from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from chatterm.net.header_text import cannot_carry, without_paste

SERVICE = "chatterm"


class KeyringUnavailable(Exception):
    """No usable keyring backend on this machine."""


class KeyringFailed(Exception):
    """The keyring is there but failed (a D-Bus error, a locked or broken backend); the message names the error."""


@dataclass(frozen=True)
class FoundKey:
    value: str
    source: str
    """Where it came from: `env:NAME` or `keyring`."""


def _failure(exc: Exception, secret: str = "") -> KeyringFailed:
    words = " ".join(str(exc).split())
    if len(secret) > 8:  # a backend may echo what it was given
        words = words.replace(secret, mask(secret))
    words = words[:200]
    return KeyringFailed(f"{type(exc).__name__}: {words}" if words else type(exc).__name__)


def _keyring() -> Any:
    """The keyring module with a usable backend. Backends are third-party code that may raise anything (D-Bus and
    OS errors among it), so every error becomes KeyringFailed."""
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
        usable = not isinstance(backend, fail.Keyring) and getattr(backend, "priority", 1) > 0
    except Exception as exc:
        raise _failure(exc) from None
    if not usable:
        raise KeyringUnavailable("no system keyring is available on this machine")
    return keyring


def require_keyring(profile: str) -> None:
    """Raise KeyringUnavailable or KeyringFailed now, before the user is asked for a key to store. A backend can be
    there and still refuse every call (no D-Bus session, a locked collection nobody can unlock): the keyring is
    asked for the profile's key, which fails as storing one would."""
    stored_key(profile)


def keyring_available() -> bool:
    try:
        _keyring()
    except (KeyringUnavailable, KeyringFailed):
        return False
    return True


def env_hint(env_var: str | None) -> str:
    if env_var:
        return f"set the key in the environment: export {env_var}=..."
    return "set the key in the profile's environment variable"


def no_keyring_hint(env_var: str | None) -> str:
    return f"no system keyring is available on this machine; {env_hint(env_var)}"


def stored_key(profile: str) -> str | None:
    """The key the keyring holds for a profile, or None; raises KeyringUnavailable or KeyringFailed."""
    keyring = _keyring()
    try:
        value = keyring.get_password(SERVICE, profile)
    except Exception as exc:
        raise _failure(exc) from None
    return (without_paste(value) or None) if isinstance(value, str) else None


def env_key(env_var: str | None) -> FoundKey | None:
    """The key an environment variable holds, or None when it is unset or holds only whitespace."""
    value = without_paste(os.environ.get(env_var, "")) if env_var else ""
    return FoundKey(value, f"env:{env_var}") if value else None


def find_key(profile: str, env_var: str | None) -> FoundKey | None:
    """The key for a profile, or None. Never raises for a missing or failing keyring."""
    found = env_key(env_var)
    if found is not None:
        return found
    try:
        value = stored_key(profile)
    except (KeyringUnavailable, KeyringFailed):
        return None
    return FoundKey(value, "keyring") if value else None


def key_problem(found: FoundKey, profile: str) -> str | None:
    """One line saying that the key found holds a character no header can carry, where it came from and what to do
    (never the key), or None when it can be sent."""
    problem = cannot_carry(found.value)
    if problem is None:
        return None
    if found.source.startswith("env:"):
        variable = found.source.removeprefix("env:")
        origin, fix = f"the variable {variable}", f"export {variable}=... again with the key as the provider gave it"
    else:
        origin, fix = f"the keyring entry for {profile}", f"store it again: chatterm key set {profile}"
    return f"the key in {origin} {problem}; {fix}"


def keyring_keys(profile: str) -> tuple[str, ...]:
    """The key the keyring holds for a profile, if any, as a key to mask: a profile whose variable gives the key in
    use may hold another there. Never raises for a missing or broken keyring."""
    try:
        stored = stored_key(profile)
    except (KeyringUnavailable, KeyringFailed):
        return ()
    return (stored,) if stored else ()


def set_key(profile: str, value: str) -> None:
    value = without_paste(value)
    keyring = _keyring()
    try:
        keyring.set_password(SERVICE, profile, value)
    except Exception as exc:
        raise _failure(exc, value) from None


def delete_key(profile: str) -> bool:
    """True if a key was deleted, False if the keyring held none."""
    from keyring.errors import PasswordDeleteError

    keyring = _keyring()
    try:
        keyring.delete_password(SERVICE, profile)
    except PasswordDeleteError:
        return False
    except Exception as exc:
        raise _failure(exc) from None
    return True


def mask(value: str) -> str:
    return f"{value[:3]}…{value[-2:]}" if len(value) > 8 else "…"
