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
