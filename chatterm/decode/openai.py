"""OpenAI chat-completion chunks (and whole completions) to events.

Reasoning arrives in several dialects; in one delta they often repeat the same text (Avian sends both
`reasoning_content` and `reasoning_details`, OpenRouter both `reasoning` and `reasoning_details`), so each
delta contributes its text once, from the first field present in this order: `reasoning_content`,
`reasoning`, the text of `reasoning_details[]`. Mistral sends a list as `content` with `thinking` parts;
models without a reasoning parser put `<think>...</think>` inline in `content`.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.decode.errors import is_error_payload, stream_error
from chatterm.decode.think import ThinkSplitter, split_events
from chatterm.events import (
    Content,
    Event,
    Finish,
    ModelName,
    Reasoning,
    ReasoningDetail,
    ToolCallDelta,
    UsageReport,
    usage_from_openai,
)


class OpenAIDecoder:
    """Decodes the chunks of one OpenAI-style answer; keeps the state that spans chunks."""

    def __init__(self, think_tags: bool = True) -> None:
        self._splitter = ThinkSplitter() if think_tags else None
        self._model: str | None = None

    def chunk(self, payload: dict[str, Any]) -> list[Event]:
        """Events of one streamed `chat.completion.chunk` (or a whole `chat.completion`)."""
        events: list[Event] = []
        model = payload.get("model")
        if isinstance(model, str) and model and model != self._model:
            self._model = model
            events.append(ModelName(model))
        choices = payload.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                    continue
                delta = choice.get("delta")
                if not isinstance(delta, dict):
                    delta = choice.get("message")
                if isinstance(delta, dict):
                    self._delta(delta, events)
                reason = choice.get("finish_reason")
                if isinstance(reason, str) and reason:
                    events.append(Finish(reason))
        usage = usage_from_openai(payload.get("usage"))
        if usage is None:
            extension = payload.get("x_groq")
            usage = usage_from_openai(extension.get("usage")) if isinstance(extension, dict) else None
        if usage is not None:
            events.append(UsageReport(usage))
        if is_error_payload(payload):
            events.extend(self.finish())
            events.append(stream_error(payload))
        return events

    def finish(self) -> list[Event]:
        """The end of the answer: release text the `<think>` splitter held back."""
        if self._splitter is None:
            return []
        return split_events(self._splitter.flush())

    def _delta(self, delta: dict[str, Any], events: list[Event]) -> None:
        text = _first_text(delta.get("reasoning_content"), delta.get("reasoning"))
        if text:
            events.append(Reasoning(text))
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if not isinstance(detail, dict):
                    continue
                detail_text = _first_text(detail.get("text"), detail.get("summary"))
                if detail_text and text is None:
                    events.append(Reasoning(detail_text))
                if detail.get("data") or detail.get("signature"):
                    events.append(ReasoningDetail(detail))
        self._content(delta.get("content"), events)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            events.append(Content(refusal))
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for position, call in enumerate(calls):
                if isinstance(call, dict):
                    events.append(_tool_call(call, position))

    def _content(self, content: Any, events: list[Event]) -> None:
        if isinstance(content, str):
            if not content:
                return
            if self._splitter is None:
                events.append(Content(content))
            else:
                events.extend(split_events(self._splitter.feed(content)))
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    self._content(part, events)
                elif isinstance(part, dict):
                    kind = part.get("type")
                    if kind == "thinking":
                        thought = _joined_text(part.get("thinking"))
                        if thought:
                            events.append(Reasoning(thought))
                    elif kind in ("text", "output_text", None):
                        self._content(part.get("text"), events)


def _first_text(*values: Any) -> str | None:
    for value in values:
        if isinstance(value, str) and value:
            return value
    return None


def _joined_text(value: Any) -> str:
    """Mistral nests thinking as a list of text parts; accept a plain string too."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_joined_text(part.get("text") if isinstance(part, dict) else part) for part in value)
    return ""


def _tool_call(call: dict[str, Any], position: int) -> ToolCallDelta:
    function = call.get("function")
    function = function if isinstance(function, dict) else {}
    index = call.get("index")
    arguments = function.get("arguments")
    if arguments is not None and not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return ToolCallDelta(
        index=index if isinstance(index, int) and not isinstance(index, bool) else position,
        id=call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None,
        name=function.get("name") if isinstance(function.get("name"), str) and function.get("name") else None,
        arguments=arguments or "",
    )
