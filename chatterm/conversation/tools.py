"""The tool calls of a history message (chat completions' shape), read the same way by every API's request."""

from __future__ import annotations

import json
from typing import Any


def tool_calls(message: dict[str, Any]) -> list[dict[str, str]]:
    """The message's tool calls as `id`, `name` and `arguments` (the JSON text the model wrote)."""
    calls = message.get("tool_calls")
    found = []
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        arguments = function.get("arguments")
        found.append(
            {
                "id": str(call.get("id") or ""),
                "name": str(function.get("name") or ""),
                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments or {}),
            }
        )
    return found


def arguments_object(call: dict[str, str]) -> Any:
    """A call's arguments as the object the APIs that take JSON want (an empty object when they are not JSON)."""
    try:
        value = json.loads(call["arguments"]) if call["arguments"].strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def call_names(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Each tool call's name by its id, for the APIs whose tool results name the tool."""
    return {call["id"]: call["name"] for message in messages for call in tool_calls(message)}


NOT_RUN = "(not run: chatterm runs no tools)"
"""The result sent for a tool call that has none when the conversation goes on."""


def with_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with a `tool` message saying it was not run after each call that no message answers, where more
    messages follow it (a recording that ended in tool calls, going on with a new prompt): every API refuses a
    history whose tool call is not answered right after it. A call in the last message, which a continuation
    sends to be finished, is left as it is."""
    out: list[dict[str, Any]] = []
    for n, message in enumerate(messages):
        out.append(message)
        calls = tool_calls(message) if message.get("role") == "assistant" else []
        if not calls or n == len(messages) - 1:
            continue
        following = messages[n + 1 :]
        answers = following[: next((k for k, m in enumerate(following) if m.get("role") != "tool"), len(following))]
        answered = {str(m.get("tool_call_id") or "") for m in answers}
        missing = [call["id"] for call in calls if call["id"] not in answered]
        out += [{"role": "tool", "tool_call_id": call_id, "content": NOT_RUN} for call_id in missing]
    return out
