"""A provider profile's fields, in a module of their own so that the presets and the settings both build on them
without importing each other."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ProfileSettings(BaseModel):
    """One provider profile: an OpenAI-compatible endpoint and how to talk to it.

    Unknown fields are refused, so a misspelt key in a `[profiles.NAME]` table is an error, not a setting that
    does nothing."""

    model_config = ConfigDict(extra="forbid")

    base_url: str
    """The endpoint's base URL, up to and including `/v1` (chat is `{base_url}/chat/completions`)."""
    model: str
    """The model asked when none is chosen."""
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
    """A local server (no key); offered only when it answers on its port."""
