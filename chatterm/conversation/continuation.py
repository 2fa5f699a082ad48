"""Going on with an answer that was cut short (stopped, the token limit, a dropped connection).

The continuation is asked for as the same history with the partial answer after it, in the words of whoever
answers. An API or a server that takes a final assistant message as the start of its answer is given the partial
answer so and writes the rest: Anthropic's prefill; on chat completions, DeepSeek's prefix completion (the message
marked `prefix`, sent to its beta base URL), llama.cpp's and Ollama's trailing assistant message, vLLM's
`continue_final_message`. Any other is given the partial answer and asked, in a user message, to go on from where it
stopped. Either way the continuation is kept as an exchange of its own and read joined to the partial answer: one
answer, its seam kept in the session file. A server that sends the partial answer back before the rest (vLLM's
`echo`) is read without it (`without_echo`, `joined`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from chatterm.conversation.reply import Reply
from chatterm.events import Content, Event, Finish, StreamError

PREFILL_APIS = frozenset({"anthropic"})
"""The APIs that continue a final assistant message as their answer."""
SERVERS = ("deepseek", "llamacpp", "vllm", "ollama")
"""The servers behind chat completions whose own way of continuing an answer is used (a profile's `server`)."""
CONTINUE_PROMPT = (
    "Your previous answer was cut short. Continue it exactly where it stopped, without repeating any of it and "
    "without any preamble."
)
VLLM_CONTINUE = {"continue_final_message": True, "add_generation_prompt": False}
"""vLLM's request fields that leave the final message open for the model to go on with."""


@dataclass(frozen=True)
class Continuation:
    """The request that asks for the rest of a cut-short answer."""

    messages: list[dict[str, Any]]
    body: dict[str, Any] = field(default_factory=dict)
    """Fields laid over the request body (vLLM's)."""
    base_url: str | None = None
    """Where the request goes in place of the endpoint's base URL (DeepSeek's beta); None: the endpoint's."""
    partial: str = ""
    """The text of the partial answer: what a server that echoes it sends first."""


def continuation(
    asked: list[dict[str, Any]], partial: Reply, api: str, server: str | None = None, base_url: str = ""
) -> Continuation:
    """The request for the rest of `partial`, the answer to `asked`, from an endpoint speaking `api` (at `base_url`,
    served by `server`, one of `SERVERS`, when known)."""
    text = partial.content
    if api in PREFILL_APIS:
        # (the API refuses a prefill that ends in white space; the answer goes on after it)
        return Continuation([*asked, {"role": "assistant", "content": text.rstrip()}], partial=text)
    if api == "openai" and server == "deepseek":
        prefix = {"role": "assistant", "content": text, "prefix": True}
        return Continuation([*asked, prefix], base_url=deepseek_beta(base_url), partial=text)
    if api == "openai" and server in ("llamacpp", "ollama", "vllm"):
        extra = dict(VLLM_CONTINUE) if server == "vllm" else {}
        return Continuation([*asked, {"role": "assistant", "content": text}], body=extra, partial=text)
    return Continuation([*asked, partial.as_message(), {"role": "user", "content": CONTINUE_PROMPT}], partial=text)


def continuation_messages(asked: list[dict[str, Any]], partial: Reply, api: str) -> list[dict[str, Any]]:
    """The messages that ask for the rest of `partial` from an endpoint speaking `api`, whoever serves it."""
    return continuation(asked, partial, api).messages


def deepseek_beta(base_url: str) -> str:
    """DeepSeek's beta base URL (where prefix completion is served) on the host of `base_url`: `/beta` in place of
    `/v1`."""
    return base_url.rstrip("/").removesuffix("/v1") + "/beta"


def echoed(partial: str, text: str) -> int:
    """How much of the start of `text` repeats `partial` whole (with or without its trailing white space, which a
    prefill leaves out): 0 when it does not."""
    for repeated in (partial, partial.rstrip()):
        if repeated.strip() and text.startswith(repeated):
            return len(repeated)
    return 0


class EchoTrim:
    """Takes an echo of the partial answer off the start of a continuation's text as it streams: text that could
    still be the echo is held until it is all there (then dropped) or turns out to be something else (then given)."""

    def __init__(self, partial: str) -> None:
        self.partial = partial
        self.pending = ""
        self.done = not partial.strip()

    def feed(self, text: str) -> str:
        if self.done:
            return text
        self.pending += text
        if any(repeated.startswith(self.pending) for repeated in (self.partial, self.partial.rstrip())):
            return ""
        return self.flush()

    def flush(self) -> str:
        """The text held back (none when it was the echo); what comes after passes at once."""
        if self.done:
            return ""
        self.done = True
        held, self.pending = self.pending, ""
        return held[echoed(self.partial, held) :]


async def without_echo(events: AsyncIterator[Event], partial: str) -> AsyncIterator[Event]:
    """A continuation's events with an echo of the partial answer at the start of its text taken off."""
    trim = EchoTrim(partial)
    async for event in events:
        if isinstance(event, Content):
            text = trim.feed(event.text)
            if text:
                yield Content(text)
            continue
        if isinstance(event, (Finish, StreamError)) and (held := trim.flush()):  # (the text before its end)
            yield Content(held)
        yield event
    if held := trim.flush():
        yield Content(held)


def joined(parts: list[Reply]) -> Reply:
    """One answer from a cut-short answer and its continuations, in order: their text and reasoning one after the
    other (a continuation's echo of the text before it left out), the rest (tool calls, finish, usage, error) the
    last part's."""
    if len(parts) == 1:
        return parts[0]
    last = parts[-1]
    whole = Reply(
        status=last.status,
        model=last.model,
        tool_calls=dict(last.tool_calls),
        finish_reason=last.finish_reason,
        usage=last.usage,
        error=last.error,
    )
    for number, part in enumerate(parts):
        cut = echoed(whole.content, part.content) if number else 0
        whole.content_parts.extend([part.content[cut:]] if cut else part.content_parts)
        whole.reasoning_parts.extend(part.reasoning_parts)
        whole.reasoning_details.extend(part.reasoning_details)
        whole.warnings.extend(part.warnings)
    return whole
