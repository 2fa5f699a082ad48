"""Answers in the shape of OpenAI's chat completions, made from a recorded answer in any API's shape: what `serve`
sends on `/v1/chat/completions`.

- Streamed: `chat.completion.chunk` events as the recorded events come: `role` with the first delta, then `content`,
  `reasoning_content` (the field DeepSeek, xAI and vLLM send, which the openai SDK keeps as an extra field) and
  `tool_calls` fragments by index (the id, type and name with a call's first fragment); one last chunk with the
  finish reason and the usage (on a chunk that has a choice, which every client reads); then `data: [DONE]`.
- Whole: one `chat.completion`, its message holding the same fields.
- Errors: `{"error": {"message", "type", "code"}}` in the provider's words, as the answer (with a status) or as the
  last event of a stream.

A recorded OpenAI stream that a plain client reads exactly as `show` does (`reads_as_recorded`) is sent as it was
recorded, byte for byte, instead: the ids, the provider's extra fields and the framing are kept.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.conversation.reply import Reply
from chatterm.decode.errors import words_of
from chatterm.decode.safejson import loads
from chatterm.decode.sse import EventAssembler, LineSplitter
from chatterm.events import (
    Content,
    Event,
    Finish,
    Reasoning,
    StreamError,
    ToolCallDelta,
    Usage,
    UsageReport,
    usage_from_openai,
)

DONE = b"data: [DONE]\n\n"


def sse(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


class ChunkWriter:
    """Writes one answer as `chat.completion.chunk` events, batch by batch of events as they were recorded."""

    def __init__(self, model: str, ident: str, created: int) -> None:
        self._base = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model}
        self._started = False
        self._finish: str | None = None
        self._usage: Usage | None = None

    def events(self, events: list[Event]) -> bytes:
        """The chunks of a batch of events (the finish reason and the usage are held for `close`)."""
        out = []
        for event in events:
            if isinstance(event, Finish):
                self._finish = event.reason
            elif isinstance(event, UsageReport):
                self._usage = event.usage
            else:
                delta = _delta(event)
                if delta is not None:
                    out.append(self._chunk(delta))
        return b"".join(out)

    def close(self) -> bytes:
        """The last chunk, with the finish reason and the usage, when either is known."""
        if self._finish is None and self._usage is None:
            return b""
        return self._chunk({}, self._finish, usage_fields(self._usage) if self._usage else None)

    def _chunk(self, delta: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
        if not self._started:
            delta, self._started = {"role": "assistant", **delta}, True
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        payload: dict[str, Any] = {**self._base, "choices": [choice]}
        if usage is not None:
            payload["usage"] = usage
        return sse(payload)


def _delta(event: Event) -> dict[str, Any] | None:
    if isinstance(event, Content):
        return {"content": event.text}
    if isinstance(event, Reasoning):
        return {"reasoning_content": event.text}
    if isinstance(event, ToolCallDelta):
        call: dict[str, Any] = {"index": event.index}
        function: dict[str, str] = {"arguments": event.arguments}
        if event.id:
            call |= {"id": event.id, "type": "function"}
        if event.name:
            function = {"name": event.name, **function}
        return {"tool_calls": [{**call, "function": function}]}
    return None


def usage_fields(usage: Usage) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
    if usage.reasoning_tokens is not None:
        fields["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    if usage.cached_tokens is not None:
        fields["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens}
    return fields


def completion(reply: Reply, model: str, ident: str, created: int) -> dict[str, Any]:
    """The whole answer as one `chat.completion`."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or (None if reply.tool_calls else "")}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for _, call in sorted(reply.tool_calls.items())
        ]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": reply.finish_reason or "stop"}
    return {
        "id": ident,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [choice],
        "usage": usage_fields(reply.usage) if reply.usage else None,
    }


def error_payload(error: StreamError, error_type: str | None = None, code: Any = None) -> dict[str, Any]:
    """An error in OpenAI's shape, in the provider's words."""
    kind = error_type or ("overloaded_error" if error.kind == "overloaded" else "stream_error")
    return {"error": {"message": words_of(error), "type": kind, "code": code}}


def http_error_payload(body: bytes, error: StreamError) -> dict[str, Any]:
    """A recorded HTTP error's body as an OpenAI error: as recorded when it is one already, else in its words."""
    try:
        payload = loads(body)
    except ValueError:
        payload = None
    inner = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("message"), str) and payload.get("type") != "error":
        return dict(payload)
    kind = inner.get("type") if isinstance(inner, dict) else None
    return error_payload(error, kind if isinstance(kind, str) else "api_error")


def plain_reading(body: bytes) -> Reply | None:
    """The answer a plain OpenAI client reads from an SSE body: from the typed fields alone (`content` as text,
    `reasoning_content`, `tool_calls`, `finish_reason`, `usage`), up to `[DONE]` or an error; None when such a client
    could not read it (a chunk that is not a JSON object, a field of another type, a choice other than the first)."""
    reply = Reply()
    lines, assembler = LineSplitter(), EventAssembler()
    events = assembler.feed(lines.feed(body.decode("utf-8", "replace")) + lines.flush()) + assembler.close()
    for event in events:
        data = event.data.strip()
        if data == "[DONE]":
            break
        if not data:
            continue
        try:
            payload = loads(data)
        except ValueError:
            return None
        if not isinstance(payload, dict):
            return None
        if payload.get("error"):
            reply.add(StreamError(status=None, message="error", kind="stream"))
            break
        choices = payload.get("choices") or []
        if not isinstance(choices, list) or not all(_plain_choice(choice, reply) for choice in choices):
            return None
        usage = usage_from_openai(payload.get("usage"))
        if usage is not None:
            reply.add(UsageReport(usage))
    return reply


def _plain_choice(choice: Any, reply: Reply) -> bool:
    delta = choice.get("delta") if isinstance(choice, dict) else None
    if not isinstance(delta, dict) or choice.get("index", 0) != 0:
        return False
    content, reasoning, calls = delta.get("content"), delta.get("reasoning_content"), delta.get("tool_calls") or []
    if not all(isinstance(text, (str, type(None))) for text in (content, reasoning)) or not isinstance(calls, list):
        return False
    reply.extend([Content(content)] if content else [])
    reply.extend([Reasoning(reasoning)] if reasoning else [])
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(call.get("index"), int):
            return False
        arguments = function.get("arguments")
        if not isinstance(arguments, (str, type(None))):
            return False
        name, ident = function.get("name"), call.get("id")
        if not all(isinstance(text, (str, type(None))) for text in (name, ident)):
            return False
        reply.add(ToolCallDelta(call["index"], ident or None, name or None, arguments or ""))
    finish = choice.get("finish_reason")
    if isinstance(finish, str) and finish:
        reply.add(Finish(finish))
    return True


def reads_as_recorded(body: bytes, reply: Reply, error_sent: bool) -> bool:
    """Whether a plain OpenAI client reads from the recorded bytes what `show` reports (`reply`), ending in an
    error exactly when the recorded body carries one (`error_sent`)."""
    plain = plain_reading(body)
    return plain is not None and _fields(plain) == _fields(reply) and (plain.error is not None) == error_sent


def _fields(reply: Reply) -> tuple[Any, ...]:
    calls = [call.as_dict() for _, call in sorted(reply.tool_calls.items())]
    return reply.content, reply.reasoning, calls, reply.finish_reason, reply.usage
