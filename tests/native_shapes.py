"""Streams of the native APIs as a live provider sends them, reasoning and continuity data included, and their
errors, for the fault server and the multi-turn tests.

- Anthropic Messages: the event sequence of Anthropic's "Streaming Messages" reference (message_start, a `thinking`
  block with `thinking_delta`s and one `signature_delta`, a `redacted_thinking` block, a `text` block, message_delta
  with `stop_reason` and usage, message_stop); errors as its `error` event (`overloaded_error`) and error bodies.
- Gemini: `streamGenerateContent?alt=sse` chunks as Google's API reference gives them (`candidates[].content.parts`,
  `thought: true` summary parts, a `thoughtSignature` on the answer's last part, `finishReason` on the last chunk,
  `usageMetadata` with `thoughtsTokenCount`); errors as its `{"error": {"code", "message", "status"}}` JSON.
- Responses: the streaming events of OpenAI's API reference ("Responses streaming"): response.created, a reasoning
  output item with `response.reasoning_summary_text.delta`s and, at `response.output_item.done`, its
  `encrypted_content`; a message item with `response.output_text.delta`s; then `response.completed` (usage with
  `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`), `response.incomplete` or
  `response.failed`; errors as its `error` event and `{"error": {"message", "type", "code"}}` bodies.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

API_PATHS = {"anthropic": "/v1/messages", "gemini": ":streamGenerateContent", "responses": "/v1/responses"}
SIGNATURE = "EqQBCkYIBxgCKkBsig+nature/with=base64chars"
REDACTED = "EmwKAhgBEgy3redacted+thinking/data=="
THOUGHT_SIGNATURE = "CiQBvj72+thought/signature+base64w=="  # (valid base64, as Google's SDK checks)
ENCRYPTED = "gAAAAABo-encrypted/reasoning+content=="
REASONING_ID = "rs_0123456789abcdef"


def api_of(path: str) -> str:
    """The API a request path asks in (chat completions when it is none of the native ones)."""
    return next((api for api, end in API_PATHS.items() if end in path), "openai")


def _sse(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


def _anthropic(payload: dict[str, Any]) -> bytes:
    return _sse(payload, payload["type"])


def anthropic(words: list[str], reasoning: Sequence[str] = (), end: bool = True, stop: str = "end_turn") -> list[bytes]:
    message: dict[str, Any] = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-fault"}
    message["content"] = []
    message |= {"stop_reason": None, "usage": {"input_tokens": 12, "cache_read_input_tokens": 3, "output_tokens": 1}}
    out = [_anthropic({"type": "message_start", "message": message})]
    index = 0
    if reasoning:
        block = {"type": "thinking", "thinking": "", "signature": ""}
        out.append(_anthropic({"type": "content_block_start", "index": 0, "content_block": block}))
        for piece in reasoning:
            delta = {"type": "thinking_delta", "thinking": piece}
            out.append(_anthropic({"type": "content_block_delta", "index": 0, "delta": delta}))
        signature = {"type": "signature_delta", "signature": SIGNATURE}
        out.append(_anthropic({"type": "content_block_delta", "index": 0, "delta": signature}))
        out.append(_anthropic({"type": "content_block_stop", "index": 0}))
        redacted = {"type": "redacted_thinking", "data": REDACTED}
        out.append(_anthropic({"type": "content_block_start", "index": 1, "content_block": redacted}))
        out.append(_anthropic({"type": "content_block_stop", "index": 1}))
        index = 2
    out.append(
        _anthropic({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
    )
    out.append(b'event: ping\ndata: {"type": "ping"}\n\n')
    for word in words:
        delta = {"type": "text_delta", "text": word}
        out.append(_anthropic({"type": "content_block_delta", "index": index, "delta": delta}))
    if end:
        out.append(_anthropic({"type": "content_block_stop", "index": index}))
        usage = {"output_tokens": 30}
        out.append(_anthropic({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": usage}))
        out.append(_anthropic({"type": "message_stop"}))
    return out


def gemini(words: list[str], reasoning: Sequence[str] = (), end: bool = True, finish: str = "STOP") -> list[bytes]:
    def chunk(parts: list[dict[str, Any]], last: bool = False) -> bytes:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        payload: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-fault", "responseId": "r1"}
        if last:
            candidate["finishReason"] = finish
            payload["usageMetadata"] = {
                "promptTokenCount": 12,
                "candidatesTokenCount": 8,
                "thoughtsTokenCount": 20,
                "cachedContentTokenCount": 4,
                "totalTokenCount": 40,
            }
        return b"data: " + json.dumps(payload).encode() + b"\r\n\r\n"

    out = [chunk([{"text": piece, "thought": True}]) for piece in reasoning]
    for number, word in enumerate(words, start=1):
        part: dict[str, Any] = {"text": word}
        last = end and number == len(words)
        if last and reasoning:
            part["thoughtSignature"] = THOUGHT_SIGNATURE
        out.append(chunk([part], last))
    return out


def _responses(payload: dict[str, Any], number: list[int]) -> bytes:
    number[0] += 1
    return _sse({**payload, "sequence_number": number[0]}, payload["type"])


def responses(
    words: list[str],
    reasoning: Sequence[str] = (),
    end: bool = True,
    status: str = "completed",
    reason: str = "max_output_tokens",
) -> list[bytes]:
    seq = [0]
    head = {"id": "resp_01", "object": "response", "created_at": 1, "status": "in_progress", "model": "gpt-fault"}
    head |= {"output": [], "usage": None}
    out = [_responses({"type": "response.created", "response": head}, seq)]
    out.append(_responses({"type": "response.in_progress", "response": head}, seq))
    output: list[dict[str, Any]] = []
    position = 0
    if reasoning:
        item: dict[str, Any] = {"id": REASONING_ID, "type": "reasoning", "summary": []}
        out.append(_responses({"type": "response.output_item.added", "output_index": 0, "item": item}, seq))
        where = {"item_id": REASONING_ID, "output_index": 0, "summary_index": 0}
        part = {"type": "summary_text", "text": ""}
        out.append(_responses({"type": "response.reasoning_summary_part.added", **where, "part": part}, seq))
        for piece in reasoning:
            out.append(_responses({"type": "response.reasoning_summary_text.delta", **where, "delta": piece}, seq))
        text = "".join(reasoning)
        out.append(_responses({"type": "response.reasoning_summary_text.done", **where, "text": text}, seq))
        done = {"type": "summary_text", "text": text}
        out.append(_responses({"type": "response.reasoning_summary_part.done", **where, "part": done}, seq))
        item = {"id": REASONING_ID, "type": "reasoning", "summary": [done], "encrypted_content": ENCRYPTED}
        out.append(_responses({"type": "response.output_item.done", "output_index": 0, "item": item}, seq))
        output.append(item)
        position = 1
    message: dict[str, Any] = {"id": "msg_01", "type": "message", "status": "in_progress", "role": "assistant"}
    message["content"] = []
    out.append(_responses({"type": "response.output_item.added", "output_index": position, "item": message}, seq))
    where = {"item_id": "msg_01", "output_index": position, "content_index": 0}
    empty = {"type": "output_text", "text": "", "annotations": []}
    out.append(_responses({"type": "response.content_part.added", **where, "part": empty}, seq))
    for word in words:
        out.append(_responses({"type": "response.output_text.delta", **where, "delta": word, "logprobs": []}, seq))
    if not end:
        return out
    text = "".join(words)
    out.append(_responses({"type": "response.output_text.done", **where, "text": text, "logprobs": []}, seq))
    whole = {"type": "output_text", "text": text, "annotations": []}
    out.append(_responses({"type": "response.content_part.done", **where, "part": whole}, seq))
    message = {**message, "status": "completed", "content": [whole]}
    out.append(_responses({"type": "response.output_item.done", "output_index": position, "item": message}, seq))
    output.append(message)
    usage = {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 4}, "output_tokens": 30}
    usage |= {"output_tokens_details": {"reasoning_tokens": 20}, "total_tokens": 42}
    final = {**head, "status": status, "output": output, "usage": usage}
    if status == "incomplete":
        final["incomplete_details"] = {"reason": reason}
    out.append(_responses({"type": f"response.{status}", "response": final}, seq))
    return out


def answer(api: str, words: list[str], reasoning: Sequence[str] = (), end: bool = True) -> list[bytes]:
    """A whole (or, without `end`, cut) streamed answer in `api`'s shape."""
    if api == "anthropic":
        return anthropic(words, reasoning, end)
    if api == "gemini":
        return gemini(words, reasoning, end)
    return responses(words, reasoning, end)


def stopped(api: str, words: list[str], filtered: bool) -> list[bytes]:
    """An answer the provider ended early: at the token limit, or withheld by a filter."""
    if api == "anthropic":
        return anthropic(words, stop="refusal" if filtered else "max_tokens")
    if api == "gemini":
        return gemini(words, finish="SAFETY" if filtered else "MAX_TOKENS")
    return responses(words, status="incomplete", reason="content_filter" if filtered else "max_output_tokens")


def stream_error(api: str, message: str) -> bytes:
    """An error inside a 200 stream, in the API's own shape (Anthropic's is an overload: it is retried)."""
    if api == "anthropic":
        return _sse({"type": "error", "error": {"type": "overloaded_error", "message": message}}, "error")
    if api == "gemini":
        return (
            b"data: "
            + json.dumps({"error": {"code": 503, "message": message, "status": "UNAVAILABLE"}}).encode()
            + b"\r\n\r\n"
        )
    failed: dict[str, Any] = {"id": "resp_01", "object": "response", "status": "failed", "model": "gpt-fault"}
    failed["error"] = {"code": "server_error", "message": message}
    return _sse({"type": "response.failed", "response": failed, "sequence_number": 9}, "response.failed")


def error_body(api: str, status: int, message: str) -> dict[str, Any]:
    """An HTTP error's JSON body in the API's own shape."""
    if api == "anthropic":
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if api == "gemini":
        words = {429: "RESOURCE_EXHAUSTED", 400: "INVALID_ARGUMENT"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": words}}
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}


def tool_call(api: str, name: str, arguments: str) -> list[bytes]:
    """A streamed answer that is one function call (Anthropic's `tool_use` block with `input_json_delta`s; Gemini's
    `functionCall` part; the Responses API's `function_call` item with `response.function_call_arguments.delta`s)."""
    half = len(arguments) // 2
    if api == "anthropic":
        out = anthropic([], end=False)[:1]
        block = {"type": "tool_use", "id": "toolu_01", "name": name, "input": {}}
        out.append(_anthropic({"type": "content_block_start", "index": 0, "content_block": block}))
        for piece in (arguments[:half], arguments[half:]):
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append(_anthropic({"type": "content_block_delta", "index": 0, "delta": delta}))
        out.append(_anthropic({"type": "content_block_stop", "index": 0}))
        ending = {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}
        out.append(_anthropic(ending))
        return [*out, _anthropic({"type": "message_stop"})]
    if api == "gemini":
        part = {"functionCall": {"name": name, "args": json.loads(arguments)}, "thoughtSignature": THOUGHT_SIGNATURE}
        candidate = {"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}
        counts = {"promptTokenCount": 12, "candidatesTokenCount": 9, "totalTokenCount": 21}
        payload = {"candidates": [candidate], "usageMetadata": counts, "modelVersion": "gemini-fault"}
        return [b"data: " + json.dumps(payload).encode() + b"\r\n\r\n"]
    seq = [0]
    head = {"id": "resp_02", "object": "response", "created_at": 1, "status": "in_progress", "model": "gpt-fault"}
    out = [_responses({"type": "response.created", "response": {**head, "output": [], "usage": None}}, seq)]
    item = {"id": "fc_01", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_01"}
    item["name"] = name
    out.append(_responses({"type": "response.output_item.added", "output_index": 0, "item": item}, seq))
    where = {"item_id": "fc_01", "output_index": 0}
    for piece in (arguments[:half], arguments[half:]):
        out.append(_responses({"type": "response.function_call_arguments.delta", **where, "delta": piece}, seq))
    out.append(_responses({"type": "response.function_call_arguments.done", **where, "arguments": arguments}, seq))
    done = {**item, "status": "completed", "arguments": arguments}
    out.append(_responses({"type": "response.output_item.done", "output_index": 0, "item": done}, seq))
    usage: dict[str, Any] = {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 9}
    usage |= {"output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 21}
    final = {**head, "status": "completed", "output": [done], "usage": usage}
    return [*out, _responses({"type": "response.completed", "response": final}, seq)]


def whole(api: str, text: str, reasoning: str) -> dict[str, Any]:
    """An answer recorded whole (a request made without streaming), in the API's own shape."""
    if api == "anthropic":
        thinking = {"type": "thinking", "thinking": reasoning, "signature": SIGNATURE}
        usage: dict[str, Any] = {"input_tokens": 10, "cache_read_input_tokens": 2, "output_tokens": 7}
        content = [thinking, {"type": "text", "text": text}]
        return {"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-fault", "content": content,
                "stop_reason": "end_turn", "stop_sequence": None, "usage": usage}  # fmt: skip
    if api == "gemini":
        parts = [{"text": reasoning, "thought": True}, {"text": text, "thoughtSignature": THOUGHT_SIGNATURE}]
        candidate = {"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}
        usage = {"promptTokenCount": 10, "candidatesTokenCount": 7, "thoughtsTokenCount": 5, "totalTokenCount": 22}
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-fault"}
    summary = [{"type": "summary_text", "text": reasoning}]
    item = {"id": REASONING_ID, "type": "reasoning", "summary": summary, "encrypted_content": ENCRYPTED}
    message: dict[str, Any] = {"id": "msg_02", "type": "message", "status": "completed", "role": "assistant"}
    message["content"] = [{"type": "output_text", "text": text, "annotations": []}]
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 2}, "output_tokens": 12}
    usage |= {"output_tokens_details": {"reasoning_tokens": 5}, "total_tokens": 22}
    return {"id": "resp_03", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-fault",
            "output": [item, message], "usage": usage}  # fmt: skip
