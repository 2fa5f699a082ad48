"""A provider profile's fields, in a module of their own so that the presets and the settings both build on them
without importing each other."""

from __future__ import annotations

import json
import math
from typing import Any, Self
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from chatterm.conversation.continuation import SERVERS
from chatterm.net.apis import APIS, EFFORTS
from chatterm.settings.errors import KeyInSettings, KeyInUrl, beyond_limits
from chatterm.settings.urls import check_base_url, check_link_local


def check_profile_name(name: str) -> str:
    """A name is how a profile is chosen, shown and found in the keyring: never empty, never control characters."""
    if not name.strip():
        raise ValueError("a profile name cannot be empty")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name):
        raise ValueError(f"the profile name {name!a} holds control characters")
    return name


KEY_HEADERS = frozenset({"authorization", "proxy-authorization", "x-goog-api-key"})
"""Headers that carry a key (in any case): refused in a profile, where they would keep it in the config file. The
key in use travels in the header its API documents (`chatterm.net.apis`), from the environment or the keyring."""
KEY_PARAMS = frozenset({"api_key", "api-key", "apikey", "key"})
"""Request parameters named for a key (in any case), refused in a profile for the same reason."""


def no_keys(values: dict[str, Any], names: frozenset[str]) -> dict[str, Any]:
    """`values` (a profile's headers or parameters) when none of them is named for a key."""
    for name in values:
        if name.lower() in names:
            raise KeyInSettings(name)
    return values


def no_key_in_url(url: str) -> str:
    """`url` (a profile's base URL) when it carries no key: no password, no parameter named for a key."""
    parts = urlsplit(url)
    if parts.password:
        raise KeyInUrl("its password")
    for name, _ in parse_qsl(parts.query, keep_blank_values=True):
        if name.lower() in KEY_PARAMS:
            raise KeyInUrl(f"its {name} parameter")
    return url


def one_of(value: str, choices: tuple[str, ...]) -> str:
    """`value` when it is one of `choices`; else what they are, in one line."""
    if value not in choices:
        raise ValueError(f"should be one of {', '.join(choices)}, not {value!r}")
    return value


class ProfileSettings(BaseModel):
    """One provider profile: an endpoint, the API it speaks, and how to talk to it.

    Unknown fields are refused, so a misspelt key in a `[profiles.NAME]` table is an error, not a setting that
    does nothing; values that could only make every request fail (a timeout of 0, a base URL that is not http(s),
    parameters JSON cannot carry) are refused when the profile is loaded."""

    model_config = ConfigDict(extra="forbid")

    base_url: str
    """The endpoint's base URL, up to and including `/v1` (chat is `{base_url}/chat/completions`; Gemini's is up to
    `/v1beta`)."""
    model: str
    """The model asked when none is chosen."""
    api: str = "openai"
    """The API the endpoint speaks: `openai` (chat completions), `responses`, `anthropic` or `gemini`."""
    server: str | None = None
    """The server behind a chat completions endpoint, where chatterm speaks to it in its own words: `deepseek`,
    `llamacpp`, `vllm` or `ollama` (their presets say so). A cut-short answer is continued its way (unset: the partial
    answer is sent with a request to go on)."""
    effort: str | None = None
    """The reasoning effort asked for (`off`, `low`, `medium`, `high`); unset leaves the provider's default."""
    reasoning_effort: bool = False
    """For chat completions: the endpoint takes `reasoning_effort`, so the effort is sent as it."""
    api_key_env: str | None = None
    """The environment variable the key is read from first (then the system keyring)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Extra request parameters sent with every chat request, e.g. `temperature`, `reasoning_effort`."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers sent with every request."""
    think_tags: bool = True
    """Split inline `<think>...</think>` reasoning out of the answer (switch off for models that use the tag)."""
    send_reasoning: bool = False
    """Send earlier reasoning back in the history (most providers, DeepSeek and Groq among them, reject it)."""
    stream_usage: bool = True
    """Ask for token usage at the end of the stream (`stream_options.include_usage`)."""
    connect_timeout: float = 10.0
    """Seconds to wait for a connection."""
    read_timeout: float = 300.0
    """Seconds without any data before an answer is given up as stalled."""
    local: bool = False
    """A local server (no key); the profile switcher says whether it answers on its port."""
    allow_link_local: bool = False
    """Allow a link-local base URL (169.254.0.0/16, fe80::/10, fd00:ec2::254), where cloud metadata services answer."""

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        return no_key_in_url(check_base_url(value))

    @field_validator("api")
    @classmethod
    def _api(cls, value: str) -> str:
        return one_of(value, APIS)

    @field_validator("server")
    @classmethod
    def _server(cls, value: str | None) -> str | None:
        return None if value is None else one_of(value, SERVERS)

    @field_validator("effort")
    @classmethod
    def _effort(cls, value: str | None) -> str | None:
        return None if value is None else one_of(value, EFFORTS)

    @field_validator("connect_timeout", "read_timeout")
    @classmethod
    def _seconds(cls, value: float) -> float:
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"should be a number of seconds above 0, not {value:g}")
        return value

    @field_validator("headers")
    @classmethod
    def _no_key_headers(cls, value: dict[str, str]) -> dict[str, str]:
        return no_keys(value, KEY_HEADERS)

    @field_validator("params")
    @classmethod
    def _json_params(cls, value: dict[str, Any]) -> dict[str, Any]:
        no_keys(value, KEY_PARAMS)
        try:
            json.dumps(value, allow_nan=False)
        except (ValueError, TypeError, RecursionError) as exc:
            raise ValueError(f"cannot be sent as JSON ({beyond_limits(exc)})") from None
        return value

    @model_validator(mode="after")
    def _not_link_local(self) -> Self:
        check_link_local(self.base_url, self.allow_link_local)
        return self
