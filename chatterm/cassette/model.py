"""What a recording holds, whatever file format it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from chatterm.decode.safejson import loads

Headers = dict[str, list[str]]


class RecordingError(Exception):
    """A recording cannot be read safely; the message is one line for the user."""


def mapping(value: Any) -> dict[str, Any]:
    """A parsed value as a dict, or an empty dict when it is anything else."""
    return value if isinstance(value, dict) else {}


def header(headers: Headers, name: str) -> str | None:
    """The first value of a header, looked up without regard to case."""
    lowered = name.lower()
    for key, values in headers.items():
        if key.lower() == lowered and values:
            return values[0]
    return None


def without_headers(headers: Headers, *names: str) -> Headers:
    drop = {n.lower() for n in names}
    return {k: v for k, v in headers.items() if k.lower() not in drop}


@dataclass
class Request:
    method: str
    url: str
    headers: Headers = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON (or is nested too deeply to be a request)."""
        try:
            return loads(self.body) if self.body else None
        except ValueError:
            return None

    @property
    def model(self) -> str | None:
        payload = self.json()
        model = payload.get("model") if isinstance(payload, dict) else None
        return model if isinstance(model, str) else None

    @property
    def messages(self) -> list[Any]:
        """The chat messages of the request, in any of the shapes chatterm reads."""
        return conversation_of(self.json())


def conversation_of(payload: Any) -> list[Any]:
    """The chat messages of a request body, in any of the shapes chatterm reads: chat completions' and Anthropic's
    `messages`, Gemini's `contents`, the Responses API's `input`."""
    if not isinstance(payload, dict):
        return []
    messages = payload.get("messages")
    if isinstance(messages, list):
        return messages
    contents = payload.get("contents")  # Gemini
    if isinstance(contents, list):
        return contents
    items = payload.get("input")  # the Responses API: a list of items, or the user's text alone
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    return items if isinstance(items, list) and "model" in payload else []


@dataclass
class Response:
    """A response as the client received it: the body is already free of any Content-Encoding.

    `offsets` holds (seconds since the request was sent, end of an event in the body) pairs; `duration`
    is the whole response time when only that is known (go-vcr).
    """

    status: int | None
    headers: Headers = field(default_factory=dict)
    body: bytes = b""
    reason: str = ""
    offsets: list[tuple[float, int]] | None = None
    duration: float | None = None
    error: dict[str, Any] | None = None
    """A failure recorded with the answer: the stream cut short, a read timeout, a stop by the user."""

    @property
    def content_type(self) -> str | None:
        return header(self.headers, "content-type")


@dataclass
class Interaction:
    request: Request | None
    response: Response
    meta: dict[str, Any] = field(default_factory=dict)
    """chatterm's own notes on a turn: the profile and model that answered it, when."""
    note: str | None = None
    """Why the body could not be understood, when it could not."""
    done: bool = False
    """Finished and never to change again (lets a long session's saves reuse its rendering)."""


@dataclass(frozen=True)
class Switch:
    """A change of a conversation's active branch that made no new exchange (a user chose another branch).

    `to` is the new active leaf's id, `after` the number of interactions the recording held then: a recording's
    switches and its interactions, in order, give the active branch (`chatterm.cassette.branches`).
    """

    to: str
    after: int


@dataclass
class Recording:
    format: str
    interactions: list[Interaction] = field(default_factory=list)
    switches: list[Switch] = field(default_factory=list)
    """The branch switches of a chatterm session, oldest first (a vcrpy cassette keeps them beside its items)."""


def reason_phrase(status: int | None) -> str:
    """The standard reason phrase of an HTTP status ("" for one HTTP does not name)."""
    try:
        return HTTPStatus(status or 200).phrase
    except ValueError:
        return ""
