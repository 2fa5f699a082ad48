"""OpenAI Responses API events (streamed, or a whole `response` object) to events.

The shapes are those of OpenAI's public API reference ("Responses", "Streaming events", platform.openai.com/docs/
api-reference/responses-streaming): every event is an object whose `type` names it. Text arrives as
`response.output_text.delta` (and `response.refusal.delta`), reasoning summaries as
`response.reasoning_summary_text.delta` (a new summary part, `response.reasoning_summary_part.added`, starts a new
paragraph), raw reasoning as `response.reasoning_text.delta`, a function call as `response.output_item.added` (its
name and `call_id`) then `response.function_call_arguments.delta`. `response.output_item.done` gives each output item
whole: a reasoning item is kept verbatim (`ReasoningDetail`, with its `encrypted_content` when it was asked for),
to be sent back on the next turn. The answer ends with `response.completed` (its `usage`), `response.incomplete`
(`incomplete_details.reason`: `max_output_tokens`, `content_filter`) or `response.failed` (`response.error`); an
`error` event reports a failure outside a response.
"""

from __future__ import annotations

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

INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


def is_responses(payload: dict[str, Any]) -> bool:
    """True for a Responses API stream event or a whole `response` object."""
    kind = payload.get("type")
    return (isinstance(kind, str) and kind.startswith("response.")) or payload.get("object") == "response"


class ResponsesDecoder:
    """Decodes the events of one Responses API answer; function calls are numbered in the order they start."""

    def __init__(self) -> None:
        self._calls: dict[int, int] = {}
        self._model: str | None = None

    def event(self, payload: dict[str, Any]) -> list[Event]:
        kind = payload.get("type")
        if payload.get("object") == "response":
            return self._whole(payload)
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            return _text(Content, payload.get("delta"))
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return _text(Reasoning, payload.get("delta"))
        if kind == "response.reasoning_summary_part.added":
            index = payload.get("summary_index")
            return [Reasoning("\n\n")] if isinstance(index, int) and index > 0 else []
        if kind == "response.output_item.added":
            return self._item_start(payload)
        if kind == "response.function_call_arguments.delta":
            delta = payload.get("delta")
            ordinal = self._calls.setdefault(_int(payload.get("output_index")), len(self._calls))
            return [ToolCallDelta(index=ordinal, arguments=delta)] if isinstance(delta, str) and delta else []
        if kind == "response.output_item.done":
            item = payload.get("item")
            return _kept(item) if isinstance(item, dict) else []
        if kind in ("response.created", "response.in_progress"):
            return self._head(payload.get("response"))
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            return self._end(payload.get("response"))
        return []

    def _head(self, response: Any) -> list[Event]:
        model = response.get("model") if isinstance(response, dict) else None
        if isinstance(model, str) and model and model != self._model:
            self._model = model
            return [ModelName(model)]
        return []

    def _item_start(self, payload: dict[str, Any]) -> list[Event]:
        item = payload.get("item")
        if not isinstance(item, dict) or item.get("type") != "function_call":
            return []
        ordinal = self._calls.setdefault(_int(payload.get("output_index")), len(self._calls))
        arguments = _str(item.get("arguments")) or ""
        call_id, name = _str(item.get("call_id")), _str(item.get("name"))
        return [ToolCallDelta(index=ordinal, id=call_id, name=name, arguments=arguments)]

    def _end(self, response: Any) -> list[Event]:
        if not isinstance(response, dict):
            return []
        events = self._head(response)
        usage = usage_from_responses(response.get("usage"))
        if usage is not None:
            events.append(UsageReport(usage))
        status = response.get("status")
        if status == "failed":
            error = response.get("error")
            failure = {"error": error} if isinstance(error, dict) else {"error": "the response failed"}
            events.append(stream_error(failure))
        elif status == "incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            events.append(Finish(INCOMPLETE.get(str(reason), str(reason or "incomplete"))))
        else:
            output = response.get("output")
            called = isinstance(output, list) and any(
                isinstance(item, dict) and item.get("type") == "function_call" for item in output
            )
            events.append(Finish("tool_calls" if called or self._calls else "stop"))
        return events

    def _whole(self, response: dict[str, Any]) -> list[Event]:
        """A whole `response` object (a request made without streaming)."""
        events = self._head(response)
        output = response.get("output")
        for position, item in enumerate(output if isinstance(output, list) else []):
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "reasoning":
                events.extend(_text(Reasoning, _joined(item.get("summary"), "\n\n") or _joined(item.get("content"))))
            elif kind == "message":
                events.extend(_text(Content, _joined(item.get("content"))))
            elif kind == "function_call":
                ordinal = self._calls.setdefault(position, len(self._calls))
                call_id, name = _str(item.get("call_id")), _str(item.get("name"))
                arguments = _str(item.get("arguments")) or ""
                events.append(ToolCallDelta(index=ordinal, id=call_id, name=name, arguments=arguments))
            events.extend(_kept(item))
        return [*events, *self._end(response)]  # (the model named once: `_end` names it only when it is new)


def usage_from_responses(raw: Any) -> Usage | None:
    """The Responses API's `usage`: input and output tokens, with the cached and reasoning ones in their details."""
    if not isinstance(raw, dict):
        return None
    inputs, outputs = raw.get("input_tokens_details"), raw.get("output_tokens_details")
    return Usage(
        prompt_tokens=_count(raw.get("input_tokens")),
        completion_tokens=_count(raw.get("output_tokens")),
        total_tokens=_count(raw.get("total_tokens")),
        reasoning_tokens=_count(outputs.get("reasoning_tokens")) if isinstance(outputs, dict) else None,
        cached_tokens=_count(inputs.get("cached_tokens")) if isinstance(inputs, dict) else None,
    )


def _kept(item: dict[str, Any]) -> list[Event]:
    """The output items sent back on the next turn, kept verbatim: reasoning items."""
    return [ReasoningDetail(item)] if item.get("type") == "reasoning" else []


def _text(kind: type[Content] | type[Reasoning], text: Any) -> list[Event]:
    return [kind(text)] if isinstance(text, str) and text else []


def _joined(parts: Any, between: str = "") -> str:
    """The text of a list of content or summary parts (`output_text`, `refusal`, `summary_text`, `reasoning_text`)."""
    if not isinstance(parts, list):
        return ""
    texts = [part.get("text") or part.get("refusal") for part in parts if isinstance(part, dict)]
    return between.join(text for text in texts if isinstance(text, str) and text)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None

