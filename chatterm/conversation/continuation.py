"""Going on with an answer that was cut short (stopped, the token limit, a dropped connection).

The continuation is asked for as the same history with the partial answer after it. An API that takes a final
assistant message as the start of its answer (Anthropic's prefill) is given the partial answer so and writes the
rest; any other is given the partial answer and asked, in a user message, to go on from where it stopped. Either
way the continuation is kept as an exchange of its own and read joined to the partial answer: one answer, its
seam kept in the session file.
"""

from __future__ import annotations

from typing import Any

from chatterm.conversation.reply import Reply

PREFILL_APIS = frozenset({"anthropic"})
"""The APIs that continue a final assistant message as their answer."""
CONTINUE_PROMPT = (
    "Your previous answer was cut short. Continue it exactly where it stopped, without repeating any of it and "
    "without any preamble."
)


def continuation_messages(asked: list[dict[str, Any]], partial: Reply, api: str) -> list[dict[str, Any]]:
    """The history that asks for the rest of `partial`, the answer to `asked`, from an endpoint speaking `api`."""
    if api in PREFILL_APIS:
        # (the API refuses a prefill that ends in white space; the answer goes on after it)
        return [*asked, {"role": "assistant", "content": partial.content.rstrip()}]
    return [*asked, partial.as_message(), {"role": "user", "content": CONTINUE_PROMPT}]


def joined(parts: list[Reply]) -> Reply:
    """One answer from a cut-short answer and its continuations, in order: their text and reasoning one after the
    other, the rest (tool calls, finish, usage, error) the last part's."""
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
    for part in parts:
        whole.content_parts.extend(part.content_parts)
        whole.reasoning_parts.extend(part.reasoning_parts)
        whole.reasoning_details.extend(part.reasoning_details)
        whole.warnings.extend(part.warnings)
    return whole
