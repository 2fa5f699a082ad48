"""The benchmark stream in each native API's shape, one event per token as chat completions' is, and the bare
client's reading of it.

- `anthropic`: the Messages stream (`message_start`, a `thinking` block of `thinking_delta`s and its
  `signature_delta`, a `text` block of `text_delta`s, `message_delta` with the stop reason and usage,
  `message_stop`), each event named by an `event:` line.
- `gemini`: `streamGenerateContent?alt=sse` chunks, a `thought: true` part per reasoning token, a text part per
  answer token, the last chunk with `finishReason` and `usageMetadata`, events ended by CRLF CRLF as Google sends.
- `responses`: the Responses stream (`response.created`, a reasoning item with `response.reasoning_summary_text.delta`s,
  a message item with `response.output_text.delta`s, `response.completed` with usage), numbered as the API does.
"""

from __future__ import annotations

import json
from typing import Any

PATHS = {
    "anthropic": "/messages",
    "gemini": "/models/bench-model:streamGenerateContent?alt=sse",
    "responses": "/responses",
}
"""Where each API's request goes, after the `/v1` base URL."""


def _named(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def anthropic(reasoning: list[str], answer: list[str]) -> list[bytes]:
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {"id": "msg_bench", "type": "message", "role": "assistant", "model": "bench-model", "content": []}
    out = [_named({"type": "message_start", "message": {**message, "usage": usage}})]
    index = 0
    if reasoning:
        block = {"type": "thinking", "thinking": "", "signature": ""}
        out.append(_named({"type": "content_block_start", "index": 0, "content_block": block}))
        for word in reasoning:
            delta = {"type": "thinking_delta", "thinking": word}
            out.append(_named({"type": "content_block_delta", "index": 0, "delta": delta}))
        signature = {"type": "signature_delta", "signature": "YmVuY2g="}
        out.append(_named({"type": "content_block_delta", "index": 0, "delta": signature}))
        out.append(_named({"type": "content_block_stop", "index": 0}))
        index = 1
    text = {"type": "text", "text": ""}
    out.append(_named({"type": "content_block_start", "index": index, "content_block": text}))
    for word in answer:
        out.append(
            _named({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": word}})
        )
    out.append(_named({"type": "content_block_stop", "index": index}))
    ending = {"output_tokens": len(reasoning) + len(answer)}
    out.append(_named({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": ending}))
    return [*out, _named({"type": "message_stop"})]


def gemini(reasoning: list[str], answer: list[str]) -> list[bytes]:
    def chunk(part: dict[str, Any], last: bool = False) -> bytes:
        candidate: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        payload: dict[str, Any] = {"candidates": [candidate], "modelVersion": "bench-model"}
        if last:
            candidate["finishReason"] = "STOP"
            counts = {"candidatesTokenCount": len(answer), "thoughtsTokenCount": len(reasoning)}
            payload["usageMetadata"] = {"promptTokenCount": 10, **counts}
        return b"data: " + json.dumps(payload).encode() + b"\r\n\r\n"

    out = [chunk({"text": word, "thought": True}) for word in reasoning]
    return out + [chunk({"text": word}, last=n == len(answer) - 1) for n, word in enumerate(answer)]


def responses(reasoning: list[str], answer: list[str]) -> list[bytes]:
    number = 0

    def out(payload: dict[str, Any]) -> bytes:
        nonlocal number
        number += 1
        return _named({**payload, "sequence_number": number})

    head = {"id": "resp_bench", "object": "response", "status": "in_progress", "model": "bench-model", "output": []}
    events = [out({"type": "response.created", "response": head})]
    position = 0
    if reasoning:
        item = {"id": "rs_bench", "type": "reasoning", "summary": []}
        events.append(out({"type": "response.output_item.added", "output_index": 0, "item": item}))
        where = {"item_id": "rs_bench", "output_index": 0, "summary_index": 0}
        events += [out({"type": "response.reasoning_summary_text.delta", **where, "delta": w}) for w in reasoning]
        events.append(out({"type": "response.output_item.done", "output_index": 0, "item": item}))
        position = 1
    item = {"id": "msg_bench", "type": "message", "role": "assistant", "content": []}
    events.append(out({"type": "response.output_item.added", "output_index": position, "item": item}))
    where = {"item_id": "msg_bench", "output_index": position, "content_index": 0}
    events += [out({"type": "response.output_text.delta", **where, "delta": word}) for word in answer]
    usage = {"input_tokens": 10, "output_tokens": len(reasoning) + len(answer), "total_tokens": 10}
    usage["output_tokens_details"] = {"reasoning_tokens": len(reasoning)}
    return [*events, out({"type": "response.completed", "response": {**head, "status": "completed", "usage": usage}})]


SHAPES = {"anthropic": anthropic, "gemini": gemini, "responses": responses}


def body(api: str) -> dict[str, Any]:
    """The bare client's request body."""
    if api == "gemini":
        return {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}
    if api == "responses":
        return {"model": "m", "input": "go", "stream": True}
    return {"model": "m", "max_tokens": 8192, "messages": [{"role": "user", "content": "go"}], "stream": True}


def answer_text(api: str, payload: Any) -> str:
    """The answer text one event of `api` carries, as a bare client of that API reads it."""
    if not isinstance(payload, dict):
        return ""
    if api == "anthropic":
        delta = payload.get("delta") if payload.get("type") == "content_block_delta" else None
        return str(delta.get("text") or "") if isinstance(delta, dict) and delta.get("type") == "text_delta" else ""
    if api == "gemini":
        parts = (payload.get("candidates") or [{}])[0].get("content", {}).get("parts", [])
        return "".join(part.get("text", "") for part in parts if not part.get("thought"))
    return str(payload.get("delta") or "") if payload.get("type") == "response.output_text.delta" else ""
