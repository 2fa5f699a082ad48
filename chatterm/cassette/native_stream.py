"""A whole native answer as the stream of events its API sends, for a client that asked to stream an answer that was
recorded whole (a stream recorded as a stream is sent as it was recorded).

The events are those of each API's streaming reference, in order, each block or item given in one delta:

- Anthropic: `message_start`, each content block as `content_block_start`, one delta (`thinking_delta` and
  `signature_delta`, `text_delta`, `input_json_delta`) and `content_block_stop`, then `message_delta` with the stop
  reason and the output tokens, and `message_stop`.
- Gemini: the whole `GenerateContentResponse` is one chunk of `streamGenerateContent?alt=sse`.
- Responses: `response.created`, each output item added, its summary or content part or arguments given and done,
  the item done, then `response.completed` (or `response.incomplete`) with the whole response.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.cassette.native_api import ANTHROPIC, GEMINI

EMPTY: dict[str, dict[str, Any]] = {
    "reasoning": {"summary": []},
    "message": {"content": []},
    "function_call": {"arguments": ""},
}
"""Each kind of output item as `response.output_item.added` gives it, before its parts have arrived."""


def event(payload: Any, name: str | None = None) -> bytes:
    """One SSE event (named, as Anthropic's and the Responses API's are)."""
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return (f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode()


def stream_of(api: str, whole: dict[str, Any]) -> bytes:
    """The stream of a whole answer (`native_whole.whole`) in `api`'s shape."""
    if api == ANTHROPIC:
        return b"".join(_anthropic(whole))
    if api == GEMINI:
        return b"data: " + json.dumps(whole, ensure_ascii=False).encode() + b"\r\n\r\n"
    return b"".join(_Responses().events(whole))


def _anthropic(message: dict[str, Any]) -> list[bytes]:
    def out(payload: dict[str, Any]) -> bytes:
        return event(payload, payload["type"])

    head = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 0}}
    events = [out({"type": "message_start", "message": head})]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        start, deltas = dict(block), []
        if kind == "thinking":
            start |= {"thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]}]
            deltas += [{"type": "signature_delta", "signature": block["signature"]}] if block["signature"] else []
        elif kind == "text":
            start["text"], deltas = "", [{"type": "text_delta", "text": block["text"]}]
        elif kind == "tool_use":
            start["input"] = {}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}]
        events.append(out({"type": "content_block_start", "index": index, "content_block": start}))
        events += [out({"type": "content_block_delta", "index": index, "delta": delta}) for delta in deltas]
        events.append(out({"type": "content_block_stop", "index": index}))
    ending = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": message["usage"]["output_tokens"]}
    events.append(out({"type": "message_delta", "delta": ending, "usage": usage}))
    events.append(out({"type": "message_stop"}))
    return events


class _Responses:
    """Numbers the events of one Responses stream (`sequence_number`), as the API does."""

    def __init__(self) -> None:
        self.number = 0

    def out(self, payload: dict[str, Any]) -> bytes:
        self.number += 1
        return event({**payload, "sequence_number": self.number}, payload["type"])

    def events(self, response: dict[str, Any]) -> list[bytes]:
        head = {**response, "status": "in_progress", "output": [], "usage": None, "incomplete_details": None}
        events = [self.out({"type": "response.created", "response": head})]
        for index, item in enumerate(response["output"]):
            events += self._item(index, item)
        return [*events, self.out({"type": f"response.{response['status']}", "response": response})]

    def _item(self, index: int, item: dict[str, Any]) -> list[bytes]:
        kind, where = item["type"], {"item_id": item.get("id", ""), "output_index": index}
        emptied = {**item, **EMPTY.get(kind, {})}
        events = [self.out({"type": "response.output_item.added", "output_index": index, "item": emptied})]
        if kind == "reasoning":
            for number, part in enumerate(item.get("summary") or []):
                at = {**where, "summary_index": number}
                begun = {**part, "text": ""}
                events.append(self.out({"type": "response.reasoning_summary_part.added", **at, "part": begun}))
                events.append(self.out({"type": "response.reasoning_summary_text.delta", **at, "delta": part["text"]}))
                events.append(self.out({"type": "response.reasoning_summary_text.done", **at, "text": part["text"]}))
                events.append(self.out({"type": "response.reasoning_summary_part.done", **at, "part": part}))
        elif kind == "message":
            for number, part in enumerate(item["content"]):
                at = {**where, "content_index": number}
                events.append(self.out({"type": "response.content_part.added", **at, "part": {**part, "text": ""}}))
                events.append(self.out({"type": "response.output_text.delta", **at, "delta": part["text"]}))
                events.append(self.out({"type": "response.output_text.done", **at, "text": part["text"]}))
                events.append(self.out({"type": "response.content_part.done", **at, "part": part}))
        elif kind == "function_call":
            arguments = item["arguments"]
            events.append(self.out({"type": "response.function_call_arguments.delta", **where, "delta": arguments}))
            events.append(self.out({"type": "response.function_call_arguments.done", **where, "arguments": arguments}))
        return [*events, self.out({"type": "response.output_item.done", "output_index": index, "item": item})]
