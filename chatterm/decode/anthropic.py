"""Anthropic Messages events (streamed or whole) to events.

Also the body of AWS Bedrock's `invoke-with-response-stream`, whose frames wrap the same events.

A thinking block is shown as it streams (`thinking_delta`) and, once it has ended (`content_block_stop`), kept whole
with its signature as a `ReasoningDetail` in the block's own shape, as are `redacted_thinking` blocks: the API
wants them back, unchanged, with the next turn.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.decode.errors import stream_error
from chatterm.events import (
    Content,
    Event,
    Finish,
    ModelName,
    Reasoning,
    ReasoningDetail,
    ToolCallDelta,
    Usage,
    UsageReport,
)

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}

EVENT_TYPES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)


def is_anthropic(payload: dict[str, Any]) -> bool:
    """True for an Anthropic stream event or a whole Anthropic message."""
    kind = payload.get("type")
    return kind in EVENT_TYPES or (kind == "message" and isinstance(payload.get("content"), list))


class AnthropicDecoder:
    """Decodes the events of one Anthropic answer; tool calls are numbered in the order they start."""

    def __init__(self) -> None:
        self._tools: dict[int, int] = {}
        self._thinking: dict[int, dict[str, Any]] = {}
        """The thinking blocks begun and not yet ended, by index, as far as they have arrived."""
        self._input_tokens: int | None = None
        self._cached_tokens: int | None = None
        self._output_tokens: int | None = None

    def event(self, payload: dict[str, Any]) -> list[Event]:
        kind = payload.get("type")
        events: list[Event] = []
        if kind == "message_start":
            message = payload.get("message")
            if isinstance(message, dict):
                events.extend(self._message_head(message))
        elif kind == "content_block_start":
            block = payload.get("content_block")
            if isinstance(block, dict):
                events.extend(self._block(_index(payload), block, whole=False))
        elif kind == "content_block_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict):
                events.extend(self._block_delta(_index(payload), delta))
        elif kind == "content_block_stop":
            block = self._thinking.pop(_index(payload), None)
            if block is not None:
                events.append(ReasoningDetail({"type": "thinking", **block}))
        elif kind == "message_delta":
            delta = payload.get("delta")
            reason = delta.get("stop_reason") if isinstance(delta, dict) else None
            if isinstance(reason, str):
                events.append(Finish(STOP_REASONS.get(reason, reason)))
            events.extend(self._usage(payload.get("usage")))
        elif kind == "error":
            events.append(stream_error(payload))
        elif kind == "message":
            events.extend(self._message_head(payload))
            for index, block in enumerate(payload.get("content") or []):
                if isinstance(block, dict):
                    events.extend(self._block(index, block, whole=True))
            reason = payload.get("stop_reason")
            if isinstance(reason, str):
                events.append(Finish(STOP_REASONS.get(reason, reason)))
        return events

    def _message_head(self, message: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        if isinstance(message.get("model"), str) and message["model"]:
            events.append(ModelName(message["model"]))
        events.extend(self._usage(message.get("usage")))
        return events

    def _usage(self, raw: Any) -> list[Event]:
        if not isinstance(raw, dict):
            return []
        if isinstance(raw.get("input_tokens"), int):
            cached = [raw.get(key) for key in ("cache_read_input_tokens", "cache_creation_input_tokens")]
            read, written = (value if isinstance(value, int) else 0 for value in cached)
            self._input_tokens = raw["input_tokens"] + read + written  # (the prompt, as other APIs count it)
            self._cached_tokens = read
        if isinstance(raw.get("output_tokens"), int):
            self._output_tokens = raw["output_tokens"]
        total = None
        if self._input_tokens is not None and self._output_tokens is not None:
            total = self._input_tokens + self._output_tokens
        usage = Usage(
            prompt_tokens=self._input_tokens,
            completion_tokens=self._output_tokens,
            total_tokens=total,
            cached_tokens=self._cached_tokens,
        )
        return [UsageReport(usage)]

    def _block(self, index: int, block: dict[str, Any], whole: bool) -> list[Event]:
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
            return [Content(block["text"])]
        if kind == "thinking":
            events: list[Event] = []
            text = block.get("thinking") if isinstance(block.get("thinking"), str) else ""
            if text:
                events.append(Reasoning(text))
            if whole:
                events.append(ReasoningDetail(dict(block)))
            else:
                signature = block.get("signature") if isinstance(block.get("signature"), str) else ""
                self._thinking[index] = {"thinking": text, "signature": signature}
            return events
        if kind == "redacted_thinking":
            return [ReasoningDetail(dict(block))]
        if kind in ("tool_use", "server_tool_use"):
            ordinal = self._tools.setdefault(index, len(self._tools))
            arguments = ""
            if whole or block.get("input"):
                arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
            return [ToolCallDelta(index=ordinal, id=block.get("id"), name=block.get("name"), arguments=arguments)]
        return []

    def _block_delta(self, index: int, delta: dict[str, Any]) -> list[Event]:
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str) and delta["text"]:
            return [Content(delta["text"])]
        block = self._thinking.get(index)
        if kind == "thinking_delta" and isinstance(delta.get("thinking"), str) and delta["thinking"]:
            if block is not None:
                block["thinking"] += delta["thinking"]
            return [Reasoning(delta["thinking"])]
        if kind == "signature_delta" and isinstance(delta.get("signature"), str):
            if block is not None:
                block["signature"] += delta["signature"]
            return []
        if kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            ordinal = self._tools.setdefault(index, len(self._tools))
            return [ToolCallDelta(index=ordinal, arguments=delta["partial_json"])]
        return []


def _index(payload: dict[str, Any]) -> int:
    index = payload.get("index")
    return index if isinstance(index, int) else 0
