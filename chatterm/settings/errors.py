"""The one line a user reads when the settings cannot be used: where (a file or a variable), the table, the key, and
what is wrong, in the words of the config file rather than of the validation library.

This module imports nothing heavy, so commands that only need to catch `ConfigError` stay fast.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
"""A TOML key that needs no quotes; any other is quoted, as the user would write it in the file."""


class ConfigError(Exception):
    """The settings cannot be used; the message is one line naming the file or variable and what is wrong."""


class KeyInSettings(ValueError):
    """A profile's header or request parameter that carries an API key: keys are never settings. `key` is its name,
    where the user is to look; `words` say where keys go, for the profile at fault."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def words(self, profile: str) -> str:
        return (
            "carries an API key, and keys are never settings: store it in the keyring (chatterm key set "
            f"{profile}) or in an environment variable (named by the profile's api_key_env)"
        )


class KeyInUrl(KeyInSettings):
    """A profile's base URL that carries a key (`part`: its password, a key parameter)."""

    def __init__(self, part: str) -> None:
        super().__init__("")
        self.part = part

    def words(self, profile: str) -> str:
        return super().words(profile).replace("carries an API key", f"carries an API key ({self.part})", 1)


def beyond_limits(exc: Exception) -> str:
    """What a reader's own limit says (nesting, the digits of a number), without Python's advice after the `;`
    (a setting the user has no reason to change)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(";")[0]


def toml_key(part: str | int) -> str:
    text = str(part)
    return text if BARE_KEY.fullmatch(text) else json.dumps(text)


def where(loc: Sequence[str | int]) -> str:
    """`[profiles.groq] read_timeout` for a key in a table, `theme` for a key at the top of the file."""
    *table, key = loc
    if not table:
        return toml_key(key)
    return f"[{'.'.join(toml_key(part) for part in table)}] {toml_key(key)}"


def problem(error: ErrorDetails, in_environment: bool = False, known: Sequence[str] = ()) -> str:
    """What is wrong with the value, said for a config file (or a variable, when one set it); `known` are the keys
    the table may hold, for a guess at what a misspelt one meant."""
    loc, kind = error["loc"], error["type"]
    if kind == "extra_forbidden" and loc[-1] == "api_key":
        name = loc[1] if len(loc) == 3 and loc[0] == "profiles" else "NAME"
        return (
            "unknown key; API keys are never settings: set the profile's api_key_env to the variable holding the "
            f"key, or run 'chatterm key set {name}'"
        )
    if kind == "extra_forbidden":
        from difflib import get_close_matches

        close = get_close_matches(str(loc[-1]), known, n=1)
        return f"unknown key (did you mean {close[0]}?)" if close else "unknown key"
    if kind == "missing" and len(loc) == 3 and loc[0] == "profiles":
        return "missing; a profile that is not a built-in preset needs base_url and model"
    if kind == "missing":
        return "missing"
    if kind in ("model_type", "dict_type"):
        return "should be a JSON object" if in_environment else "should be a table"
    cause = error.get("ctx", {}).get("error")
    if kind == "value_error" and isinstance(cause, KeyInSettings):
        return cause.words(str(loc[1]) if len(loc) > 1 and loc[0] == "profiles" else "NAME")
    if kind == "value_error" and isinstance(cause, ValueError):
        return str(cause)  # chatterm's own validators say it in full
    message = error["msg"]
    return message[:1].lower() + message[1:]


def first_to_tell(errors: Sequence[ErrorDetails]) -> ErrorDetails:
    """The error a user is told of: an unknown key before any other, since a misspelt key is most often why another
    is missing (`modle` for `model`)."""
    return next((error for error in errors if error["type"] == "extra_forbidden"), errors[0])


def located(error: ErrorDetails) -> tuple[str | int, ...]:
    """Where the value at fault is: a link-local base URL is refused by its profile (which holds the opt-in), but it
    is the base_url the user is to look at."""
    loc = tuple(error["loc"])
    key = getattr(error.get("ctx", {}).get("error"), "key", None)
    return (*loc, key) if isinstance(key, str) and key else loc


def describe(error: ErrorDetails, in_environment: bool = False, known: Sequence[str] = ()) -> str:
    return f"{where(located(error))}: {problem(error, in_environment, known)}"
