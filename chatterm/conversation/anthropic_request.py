"""The conversation (kept in chat completions' shape) as the Anthropic Messages API takes it.

System messages become the top-level `system`; an assistant turn becomes content blocks, its thinking first (the
`thinking` and `redacted_thinking` blocks it was answered with, verbatim, signatures included: the API checks them
and needs them back beside a tool call), then its text and `tool_use` blocks; tool results become `tool_result`
blocks of a user turn. Turns of one role in a row are joined, since the API wants the roles to alternate.
"""

from __future__ import annotations

from typing import Any

from chatterm.conversation.history import message_text
from chatterm.conversation.tools import arguments_object, tool_calls

THINKING_BLOCKS = ("thinking", "redacted_thinking")


def anthropic_messages(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt and the messages of an Anthropic request."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            system.append(message_text(message))
            continue
        if role == "assistant":
            _add(out, "assistant", _assistant_blocks(message))
        elif role == "tool":
            result = {"type": "tool_result", "tool_use_id": str(message.get("tool_call_id") or ""), "content": ""}
            result["content"] = message_text(message)
            _add(out, "user", [result])
        else:
            _add(out, "user", [{"type": "text", "text": message_text(message)}])
    return "\n\n".join(part for part in system if part), [_plain(message) for message in out]


def _assistant_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    details = message.get("reasoning_details")
    blocks = [
        dict(detail)
        for detail in (details if isinstance(details, list) else [])
        if isinstance(detail, dict) and detail.get("type") in THINKING_BLOCKS
    ]
    text = message_text(message)
    if text:
        blocks.append({"type": "text", "text": text})
    for call in tool_calls(message):
        blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"], "input": arguments_object(call)})
    return blocks


def _add(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:
        return
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(blocks)
    else:
        out.append({"role": role, "content": blocks})


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    """A turn of one text block as a plain string, as most requests write it."""
    content = message["content"]
    if len(content) == 1 and content[0].get("type") == "text":
        return {"role": message["role"], "content": content[0]["text"]}
    return message
