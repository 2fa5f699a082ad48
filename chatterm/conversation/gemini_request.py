"""The conversation (kept in chat completions' shape) as the Gemini API takes it: `contents` of `user` and `model`
turns made of `parts`, and the system prompt as `systemInstruction`.

A model turn gives back the thought signatures it was answered with, each on the part it came on: the answer's
text, or the function call it was given with (the API refuses a function call's turn without its signature).
Function results become `functionResponse` parts, naming the tool as the call did.
"""

from __future__ import annotations

from typing import Any

from chatterm.conversation.history import message_text
from chatterm.conversation.tools import arguments_object, call_names, tool_calls

SIGNATURE = "thoughtSignature"


def gemini_contents(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt and the `contents` of a Gemini request."""
    system: list[str] = []
    names = call_names(messages)
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            system.append(message_text(message))
        elif role == "assistant":
            _add(out, "model", _model_parts(message))
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            response: dict[str, Any] = {"name": names.get(call_id, ""), "response": {"result": message_text(message)}}
            if call_id:
                response["id"] = call_id
            _add(out, "user", [{"functionResponse": response}])
        else:
            _add(out, "user", [{"text": message_text(message)}])
    return "\n\n".join(part for part in system if part), out


def _model_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    signatures: dict[int | None, str] = {}
    details = message.get("reasoning_details")
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and detail.get("type") == SIGNATURE and isinstance(detail.get("signature"), str):
            call = detail.get("call")
            signatures[call if isinstance(call, int) else None] = detail["signature"]
    parts: list[dict[str, Any]] = []
    text = message_text(message)
    if text or None in signatures:
        part: dict[str, Any] = {"text": text}
        if None in signatures:
            part[SIGNATURE] = signatures[None]
        parts.append(part)
    for number, call in enumerate(tool_calls(message)):
        function: dict[str, Any] = {"name": call["name"], "args": arguments_object(call)}
        if call["id"]:
            function["id"] = call["id"]
        part = {"functionCall": function}
        if number in signatures:
            part[SIGNATURE] = signatures[number]
        parts.append(part)
    return parts


def _add(out: list[dict[str, Any]], role: str, parts: list[dict[str, Any]]) -> None:
    if not parts:
        return
    if out and out[-1]["role"] == role:
        out[-1]["parts"].extend(parts)
    else:
        out.append({"role": role, "parts": parts})
