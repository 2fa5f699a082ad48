"""A chat's own request parameters (temperature, top_p, the most tokens of an answer, the reasoning effort), set over
its profile's for the next requests, and said in each API's words.

They are kept in neutral words (`ChatParams`) because a chat keeps them across a profile switch, and the profile it
switches to may speak another API: chat completions and Anthropic take `temperature`, `top_p` and `max_tokens` at
the top of the body, the Responses API names the last `max_output_tokens`, and Gemini puts all three, camel-cased,
in its `generationConfig`. The effort goes its own way (`chatterm.net.apis`), since each API says it differently.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from chatterm.net.apis import EFFORTS

SAMPLING = ("temperature", "top_p", "max_tokens")
"""The parameters laid over a profile's `params`, in chatterm's words."""
WORDS = {
    "responses": {"max_tokens": "max_output_tokens"},
    "gemini": {"temperature": "temperature", "top_p": "topP", "max_tokens": "maxOutputTokens"},
}
"""Each API's name for a parameter, where it is not chatterm's own."""
GEMINI_CONFIG = "generationConfig"
LIMITS = {"temperature": (0.0, 2.0), "top_p": (0.0, 1.0)}


@dataclass
class ChatParams:
    """The values a chat asks with over its profile's; None leaves the profile's (or the provider's) own."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    effort: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The values set, as they are recorded with each turn (`x_chatterm`'s `params`)."""
        return {name: value for name, value in asdict(self).items() if value is not None}

    @classmethod
    def from_dict(cls, values: object) -> ChatParams:
        """The parameters a turn was recorded with; values chatterm could not have sent are left out."""
        found = ChatParams()
        if not isinstance(values, dict):
            return found
        for field in fields(cls):
            try:
                setattr(found, field.name, check(field.name, values.get(field.name)))
            except ValueError:
                continue
        return found

    def sampling(self) -> dict[str, Any]:
        """The sampling values set (the effort aside), in chatterm's words."""
        return {name: value for name in SAMPLING if (value := getattr(self, name)) is not None}


def check(name: str, value: object) -> Any:
    """`value` as parameter `name` takes it (None stays None); else a ValueError saying what it should be (the caller
    names the parameter, as a config file or a dialog does)."""
    if value is None:
        return None
    if name == "effort":
        if value not in EFFORTS:
            raise ValueError(f"should be one of {', '.join(EFFORTS)}, not {value!r}")
        return value
    if name == "max_tokens":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"should be a whole number above 0, not {value!r}")
        return value
    low, high = LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"should be a number from {low:g} to {high:g}, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"should be a number from {low:g} to {high:g}, not {value:g}")
    return float(value)


def parse(name: str, text: str) -> Any:
    """A parameter typed by the user (empty: None, the profile's); a ValueError as `check`'s when it cannot be one."""
    text = text.strip()
    if not text:
        return None
    if name == "effort":
        return check(name, text.lower())
    try:
        number: float | int = int(text) if name == "max_tokens" else float(text)
    except ValueError:
        raise ValueError(f"should be a number, not {text!r}") from None
    return check(name, number)


def lay_over(api: str, params: dict[str, Any], sampling: dict[str, Any]) -> dict[str, Any]:
    """A profile's `params` with a chat's sampling values (chatterm's words) laid over them in `api`'s words; the
    profile's dict is never changed."""
    if not sampling:
        return params
    words = WORDS.get(api, {})
    said = {words.get(name, name): value for name, value in sampling.items()}
    if api == "gemini":
        config = params.get(GEMINI_CONFIG)
        return {**params, GEMINI_CONFIG: {**(config if isinstance(config, dict) else {}), **said}}
    return {**params, **said}


def profile_sampling(api: str, params: dict[str, Any]) -> dict[str, Any]:
    """The sampling values a profile's `params` set, in chatterm's words (what a chat's own are compared with)."""
    words = WORDS.get(api, {})
    config = params.get(GEMINI_CONFIG) if api == "gemini" else params
    source = config if isinstance(config, dict) else {}
    return {name: source[words.get(name, name)] for name in SAMPLING if words.get(name, name) in source}
