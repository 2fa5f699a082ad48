"""A recorded answer as one whole answer of a native API: what `serve` sends a request made without streaming.

Each is built from the answer as `show --json` reports it (`Reply`), so a client of any API receives the same
content, reasoning, tool calls, finish reason and usage, and from the continuity data the answer came with, kept
verbatim, so the client can send it back on its next turn as the API requires:

- Anthropic: a `message` whose content is its `thinking` and `redacted_thinking` blocks (signatures included), then
  its `text`, then its `tool_use` blocks; `stop_reason` and `usage` in the API's words (the cached part of the prompt
  as `cache_read_input_tokens`, the rest as `input_tokens`).
- Gemini: a `GenerateContentResponse` whose one candidate holds a `thought: true` part with the reasoning, the answer's
  text and its `functionCall` parts, each with the thought signature it came with; `finishReason`, `usageMetadata`.
- Responses: a `response` object whose output is its reasoning items (with their encrypted content), a `message` and
  its `function_call` items; `status` is `incomplete` with the reason when the answer stopped at a limit or a filter.
"""

from __future__ import annotations

import json
import time
from typing import Any

from chatterm.cassette.native_api import ANTHROPIC, GEMINI
from chatterm.conversation.reply import Reply

STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "content_filter": "refusal"}
FINISH_REASONS = {"stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP", "content_filter": "SAFETY"}
INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def whole(api: str, reply: Reply) -> dict[str, Any]:
    """The whole answer in `api`'s shape."""
    if api == ANTHROPIC:
        return anthropic_message(reply)
    if api == GEMINI:
        return gemini_response(reply)
    return responses_object(reply)


def _arguments(text: str) -> Any:
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def anthropic_message(reply: Reply) -> dict[str, Any]:
    blocks = [dict(d) for d in reply.reasoning_details if d.get("type") in ("thinking", "redacted_thinking")]
    if reply.reasoning and not any(block["type"] == "thinking" for block in blocks):
        blocks.insert(0, {"type": "thinking", "thinking": reply.reasoning, "signature": ""})
    if reply.content:
        blocks.append({"type": "text", "text": reply.content})
    for _, call in sorted(reply.tool_calls.items()):
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _arguments(call.arguments)})
    usage = reply.usage
    prompt = (usage.prompt_tokens or 0) if usage else 0
    cached = (usage.cached_tokens or 0) if usage else 0
    reason = reply.finish_reason or "stop"
    return {
        "id": "msg_replay",
        "type": "message",
        "role": "assistant",
        "model": reply.model or "recording",
        "content": blocks,
        "stop_reason": STOP_REASONS.get(reason, reason),
        "stop_sequence": None,
        "usage": {
            "input_tokens": max(prompt - cached, 0),
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": 0,
            "output_tokens": (usage.completion_tokens or 0) if usage else 0,
        },
    }


def gemini_response(reply: Reply) -> dict[str, Any]:
    signatures: dict[int | None, str] = {}
    for detail in reply.reasoning_details:
        if detail.get("type") == "thoughtSignature" and isinstance(detail.get("signature"), str):
            call = detail.get("call")
            signatures[call if isinstance(call, int) else None] = detail["signature"]
    parts: list[dict[str, Any]] = [{"text": reply.reasoning, "thought": True}] if reply.reasoning else []
    if reply.content or None in signatures:
        parts.append({"text": reply.content} | ({"thoughtSignature": signatures[None]} if None in signatures else {}))
    for number, (_, call) in enumerate(sorted(reply.tool_calls.items())):
        function: dict[str, Any] = {"name": call.name, "args": _arguments(call.arguments)}
        if call.id:
            function["id"] = call.id
        part: dict[str, Any] = {"functionCall": function}
        if number in signatures:
            part["thoughtSignature"] = signatures[number]
        parts.append(part)
    reason = reply.finish_reason or "stop"
    candidate = {
        "content": {"role": "model", "parts": parts},
        "finishReason": FINISH_REASONS.get(reason, reason.upper()),
    }
    payload: dict[str, Any] = {"candidates": [candidate | {"index": 0}]}
    usage = reply.usage
    if usage is not None:
        answer = None if usage.completion_tokens is None else usage.completion_tokens - (usage.reasoning_tokens or 0)
        counts = {
            "promptTokenCount": usage.prompt_tokens,
            "candidatesTokenCount": answer,
            "thoughtsTokenCount": usage.reasoning_tokens,
            "cachedContentTokenCount": usage.cached_tokens,
            "totalTokenCount": usage.total_tokens,
        }
        payload["usageMetadata"] = {key: value for key, value in counts.items() if value is not None}
    return payload | {"modelVersion": reply.model or "recording", "responseId": "replay"}


def responses_object(reply: Reply) -> dict[str, Any]:
    output = [dict(d) for d in reply.reasoning_details if d.get("type") == "reasoning"]
    if reply.reasoning and not output:
        summary = [{"type": "summary_text", "text": reply.reasoning}]
        output.append({"id": "rs_replay", "type": "reasoning", "summary": summary})
    if reply.content:
        text = {"type": "output_text", "text": reply.content, "annotations": []}
        output.append(
            {"id": "msg_replay", "type": "message", "status": "completed", "role": "assistant", "content": [text]}
        )
    for number, (_, call) in enumerate(sorted(reply.tool_calls.items())):
        item = {"id": f"fc_replay_{number}", "type": "function_call", "status": "completed", "call_id": call.id}
        output.append(item | {"name": call.name, "arguments": call.arguments})
    reason = INCOMPLETE.get(reply.finish_reason or "")
    usage = reply.usage
    return {
        "id": "resp_replay",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if reason else "completed",
        "incomplete_details": {"reason": reason} if reason else None,
        "error": None,
        "model": reply.model or "recording",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None if usage is None else responses_usage(usage.as_dict()),
    }


def responses_usage(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "input_tokens": usage["prompt_tokens"],
        "input_tokens_details": {"cached_tokens": usage["cached_tokens"]},
        "output_tokens": usage["completion_tokens"],
        "output_tokens_details": {"reasoning_tokens": usage["reasoning_tokens"]},
        "total_tokens": usage["total_tokens"],
    }
