"""The typed events a model answer is made of, whatever wire format carried it.

Every decoder (OpenAI chunks, the Responses API, Anthropic Messages, Gemini, Ollama, Bedrock) turns its input into
these, and everything above them (the accumulator, `ask`, the app, `show`) consumes only these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Reasoning:
    """A piece of the model's visible reasoning text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDetail:
    """An opaque reasoning entry (encrypted reasoning, a signature): kept, never shown."""

    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Content:
    """A piece of the answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of a tool call; fragments with the same index belong to one call."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by the provider."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    """Prompt tokens the provider read from its cache (counted in `prompt_tokens`)."""

    def as_dict(self) -> dict[str, int | None]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass(frozen=True, slots=True)
class UsageReport:
    """The provider reported usage (it may do so several times; the last report wins)."""

    usage: Usage


@dataclass(frozen=True, slots=True)
class ModelName:
    """The model the provider says answered."""

    model: str


@dataclass(frozen=True, slots=True)
class Finish:
    """The provider's reason for ending the answer (normalised to OpenAI's words where known)."""

    reason: str


FINISH_NOTICES = {"length": "stopped at the token limit", "content_filter": "filtered by the provider"}
"""The finish reasons a user is told of: the provider answered, but not with the whole answer it would have given."""


@dataclass(frozen=True, slots=True)
class StreamWarning:
    """Something in the stream was skipped, but the stream goes on (e.g. a malformed JSON line)."""

    message: str


@dataclass(frozen=True, slots=True)
class StreamError:
    """The answer ended in an error: an HTTP error, an error inside the stream, or a lost connection.

    `status` is the HTTP status (or the provider's numeric error code), None when there is none.
    `retry_after` is the server's Retry-After in seconds when it sent one.
    """

    status: int | None
    message: str
    kind: str = "http"
    retry_after: float | None = None


Event = (
    Reasoning
    | ReasoningDetail
    | Content
    | ToolCallDelta
    | UsageReport
    | ModelName
    | Finish
    | StreamWarning
    | StreamError
)


def usage_from_openai(raw: Any) -> Usage | None:
    """Read OpenAI's `usage` object (also Groq's `x_groq.usage`, same shape)."""
    if not isinstance(raw, dict):
        return None
    details = raw.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    prompt_details = raw.get("prompt_tokens_details")
    cached = prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None
    return Usage(
        prompt_tokens=_int_or_none(raw.get("prompt_tokens")),
        completion_tokens=_int_or_none(raw.get("completion_tokens")),
        total_tokens=_int_or_none(raw.get("total_tokens")),
        reasoning_tokens=_int_or_none(reasoning),
        cached_tokens=_int_or_none(cached),
    )


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
