"""Where and how to ask: the endpoint a provider profile resolves to, and the request it is sent.

Kept apart from the client so that choosing a profile does not import the HTTP stack (start-up time).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chatterm import __version__
from chatterm.net import apis
from chatterm.net.sampling import lay_over

CREDENTIAL_WORDS = ("key", "token", "auth", "secret", "password", "signature", "cookie", "credential")


def is_credential(header: str) -> bool:
    """A header whose name holds a word such as `key` or `auth` carries a credential: its value is a secret."""
    return any(word in header.lower() for word in CREDENTIAL_WORDS)


@dataclass
class Endpoint:
    """Where and how to ask: what a provider profile resolves to."""

    base_url: str
    model: str
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    think_tags: bool = True
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    stream_usage: bool = True
    api: str = "openai"
    """The API the endpoint speaks (`chatterm.net.apis.APIS`)."""
    server: str | None = None
    """The server behind a chat completions endpoint when the profile names it (`continuation.SERVERS`)."""
    effort: str | None = None
    """The reasoning effort of the next requests (`chatterm.net.apis.EFFORTS`), None for the provider's default."""
    sampling: dict[str, Any] = field(default_factory=dict)
    """A chat's own temperature, top_p and max_tokens (`chatterm.net.sampling`), laid over `params`."""
    reasoning_effort: bool = False
    """Chat completions only: the endpoint takes `reasoning_effort`, so an effort chosen is sent as it."""
    held_keys: tuple[str, ...] = ()
    """Other keys chatterm holds for the profile: never sent, always masked."""
    find_held_keys: Callable[[], tuple[str, ...]] | None = field(default=None, repr=False)
    """Finds more held keys (the profile's keyring entry, when its variable gives the key in use). A keyring can take
    a moment to answer, so the client asks it in a thread while its first request goes out (`ChatClient`)."""

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret this endpoint knows: the key in use, the values of credential headers, the held keys."""
        found = [self.api_key] if self.api_key else []
        for name, value in self.headers.items():
            if is_credential(name):
                found += [value, value.split()[-1]] if value.strip() else []
        return tuple(dict.fromkeys([*found, *self.held_keys]))

    @property
    def chat_url(self) -> str:
        return self.url_for(self.model)

    def url_for(self, model: str | None = None, base_url: str | None = None) -> str:
        """Where a chat request for `model` (by default the endpoint's) goes; `base_url` in place of the endpoint's
        for a request served elsewhere (DeepSeek's beta)."""
        return apis.chat_url(self.api, base_url or self.base_url, model or self.model)

    def request_body(self, messages: list[dict[str, Any]], model: str | None = None) -> dict[str, Any]:
        """The body of one streamed request, in the endpoint's API's shape, from history messages in chat
        completions' shape."""
        return apis.request_body(
            self.api,
            messages,
            model or self.model,
            lay_over(self.api, self.params, self.sampling),
            effort=self.effort,
            stream_usage=self.stream_usage,
            reasoning_effort=self.reasoning_effort,
        )

    def auth_headers(self) -> dict[str, str]:
        """The headers that carry the key (and the API version where the API wants one), without the profile's."""
        return apis.auth_headers(self.api, self.api_key)

    def request_headers(self) -> dict[str, str]:
        headers = {
            "Accept": "text/event-stream",
            "Accept-Encoding": "identity",
            "User-Agent": f"chatterm/{__version__}",
        }
        headers.update(self.auth_headers())
        headers.update(self.headers)
        return headers
