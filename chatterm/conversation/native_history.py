"""A recorded request of a native API read back into the conversation chatterm keeps (chat completions' shape), so a
replayed session goes on live: the inverse of `anthropic_request`, `gemini_request` and `responses_request`.

Each assistant turn gets back what the request building puts in its API's words again: its text, its tool calls
(arguments as the JSON text chat completions carry), and, as `reasoning_details`, the continuity data it was sent
with, verbatim: Anthropic's `thinking` and `redacted_thinking` blocks, Gemini's thought signatures (with the
function call each was on), the Responses API's reasoning items. Tool results become `tool` messages; the system
prompt (`system`, `systemInstruction`, `instructions`) is returned beside the messages.
"""

from __future__ import annotations

import json
from typing import Any

History = tuple[str | None, list[dict[str, Any]]]


def _text(value: Any) -> str:
    """The text of a string, or of a list of text blocks or parts (joined as chatterm joins them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _text(value.get("parts"))
    if isinstance(value, list):
        return " ".join(str(p["text"]) for p in value if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _call(call_id: str, name: Any, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": str(name or ""), "arguments": arguments}}


def _assistant(text: str, calls: list[dict[str, Any]], details: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    if details:
        message["reasoning_details"] = details
    return message


def from_anthropic(payload: dict[str, Any]) -> History:
    messages: list[dict[str, Any]] = []
    for message in _dicts(payload.get("messages")):
        content = message.get("content")
        blocks = _dicts(content) if isinstance(content, list) else [{"type": "text", "text": _text(content)}]
        if message.get("role") == "assistant":
            details = [dict(b) for b in blocks if b.get("type") in ("thinking", "redacted_thinking")]
            text = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
            calls = [
                _call(str(b.get("id") or ""), b.get("name"), json.dumps(b.get("input") or {}, ensure_ascii=False))
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            messages.append(_assistant(text, calls, details))
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id") or "")
                messages.append({"role": "tool", "tool_call_id": call_id, "content": _text(block.get("content"))})
        texts = [str(b.get("text") or "") for b in blocks if b.get("type") == "text"]
        if texts:
            messages.append({"role": "user", "content": "\n\n".join(texts)})
    system = _text(payload.get("system"))
    return system or None, messages


def from_gemini(payload: dict[str, Any]) -> History:
    messages: list[dict[str, Any]] = []
    for content in _dicts(payload.get("contents")):
        parts = _dicts(content.get("parts"))
        if content.get("role") == "model":
            messages.append(_model_turn(parts))
            continue
        for part in parts:
            response = part.get("functionResponse")
            if isinstance(response, dict):
                result = response.get("response")
                words = result.get("result") if isinstance(result, dict) else None
                text = words if isinstance(words, str) else json.dumps(result, ensure_ascii=False)
                messages.append({"role": "tool", "tool_call_id": str(response.get("id") or ""), "content": text})
        texts = [str(part["text"]) for part in parts if isinstance(part.get("text"), str)]
        if texts:
            messages.append({"role": "user", "content": " ".join(texts)})
    system = _text(payload.get("systemInstruction"))
    return system or None, messages


def _model_turn(parts: list[dict[str, Any]]) -> dict[str, Any]:
    text = ""
    calls: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    for part in parts:
        call = part.get("functionCall")
        where: dict[str, int] = {}
        if isinstance(call, dict):
            where = {"call": len(calls)}
            arguments = json.dumps(call.get("args") or {}, ensure_ascii=False)
            calls.append(_call(str(call.get("id") or ""), call.get("name"), arguments))
        elif isinstance(part.get("text"), str) and part.get("thought") is not True:
            text += part["text"]
        signature = part.get("thoughtSignature")
        if isinstance(signature, str) and signature:
            details.append({"type": "thoughtSignature", "signature": signature, **where})
    return _assistant(text, calls, details)


def from_responses(payload: dict[str, Any]) -> History:
    items = payload.get("input")
    messages: list[dict[str, Any]] = []
    turn: dict[str, Any] | None = None
    for item in [{"role": "user", "content": items}] if isinstance(items, str) else _dicts(items):
        kind, role = item.get("type"), item.get("role")
        if kind == "reasoning" or kind == "function_call" or role == "assistant":
            if (
                turn is None
                or (role == "assistant" and turn["content"])
                or (kind == "reasoning" and turn.get("tool_calls"))
            ):
                turn = _assistant("", [], [])
                messages.append(turn)
            if kind == "reasoning":
                turn.setdefault("reasoning_details", []).append(dict(item))
            elif kind == "function_call":
                call = _call(str(item.get("call_id") or ""), item.get("name"), str(item.get("arguments") or ""))
                turn.setdefault("tool_calls", []).append(call)
            else:
                turn["content"] = _text(item.get("content"))
            continue
        turn = None
        if kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else _text(output)
            messages.append({"role": "tool", "tool_call_id": str(item.get("call_id") or ""), "content": text})
        elif role in ("user", "system", "developer"):
            messages.append({"role": "user" if role == "user" else "system", "content": _text(item.get("content"))})
    instructions = payload.get("instructions")
    return (instructions if isinstance(instructions, str) and instructions else None), messages


READERS = {"anthropic": from_anthropic, "gemini": from_gemini, "responses": from_responses}


def history_of(api: str, payload: Any) -> History | None:
    """The system prompt and messages of a recorded request of `api` (chat completions' `messages` for any API
    without a reader of its own); None when the body holds no conversation chatterm reads."""
    if not isinstance(payload, dict):
        return None
    if api in READERS:
        return READERS[api](payload)
    messages = payload.get("messages")
    if not isinstance(messages, list):
        return None
    return None, [message for message in messages if isinstance(message, dict)]
