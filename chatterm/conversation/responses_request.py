"""The conversation (kept in chat completions' shape) as OpenAI's Responses API takes it, statelessly: the whole
`input` each turn, nothing stored at OpenAI (`store: false`).

System messages become `instructions`; user and assistant text become input messages; an assistant turn gives
back, before its text and `function_call` items, the reasoning items it was answered with, verbatim (their
`encrypted_content` is how a stateless conversation keeps the model's reasoning); tool results become
`function_call_output` items. A reasoning item without its encrypted content is left out: without a stored
response the API could not find it.
"""

from __future__ import annotations

from typing import Any

from chatterm.conversation.history import message_text
from chatterm.conversation.tools import tool_calls


def responses_input(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The instructions and the `input` items of a Responses request."""
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            instructions.append(message_text(message))
        elif role == "assistant":
            items.extend(_assistant_items(message))
        elif role == "tool":
            output = {"type": "function_call_output", "call_id": str(message.get("tool_call_id") or "")}
            output["output"] = message_text(message)
            items.append(output)
        else:
            items.append({"role": "user", "content": message_text(message)})
    return "\n\n".join(part for part in instructions if part), items


def _assistant_items(message: dict[str, Any]) -> list[dict[str, Any]]:
    details = message.get("reasoning_details")
    items = [
        dict(detail)
        for detail in (details if isinstance(details, list) else [])
        if isinstance(detail, dict) and detail.get("type") == "reasoning" and detail.get("encrypted_content")
    ]
    text = message_text(message)
    if text:
        items.append({"role": "assistant", "content": text})
    for call in tool_calls(message):
        items.append(
            {"type": "function_call", "call_id": call["id"], "name": call["name"], "arguments": call["arguments"]}
        )
    return items
