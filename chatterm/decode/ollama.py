"""Ollama's native `/api/chat` (and `/api/generate`) NDJSON objects to events."""

from __future__ import annotations

import json
from typing import Any

from chatterm.decode.errors import stream_error
from chatterm.decode.think import ThinkSplitter, split_events
from chatterm.events import Content, Event, Finish, ModelName, Reasoning, ToolCallDelta, Usage, UsageReport


def is_ollama(payload: dict[str, Any]) -> bool:
    return "done" in payload and ("message" in payload or "response" in payload)


class OllamaDecoder:
    def __init__(self, think_tags: bool = True) -> None:
        self._splitter = ThinkSplitter() if think_tags else None
        self._model: str | None = None
        self._calls = 0

    def line(self, payload: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        if payload.get("error"):
            return [*self.finish(), stream_error(payload)]
        model = payload.get("model")
        if isinstance(model, str) and model and model != self._model:
            self._model = model
            events.append(ModelName(model))
        message = payload.get("message")
        if isinstance(message, dict):
            thinking = message.get("thinking")
            if isinstance(thinking, str) and thinking:
                events.append(Reasoning(thinking))
            self._text(message.get("content"), events)
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict):
                    arguments = function.get("arguments")
                    if not isinstance(arguments, str):
                        arguments = json.dumps(arguments or {}, ensure_ascii=False)
                    events.append(ToolCallDelta(index=self._calls, name=function.get("name"), arguments=arguments))
                    self._calls += 1
        else:
            self._text(payload.get("response"), events)
        if payload.get("done") is True:
            events.extend(self.finish())
            reason = payload.get("done_reason")
            events.append(Finish(reason if isinstance(reason, str) and reason else "stop"))
            prompt, answer = payload.get("prompt_eval_count"), payload.get("eval_count")
            if isinstance(prompt, int) or isinstance(answer, int):
                total = (prompt or 0) + (answer or 0)
                events.append(UsageReport(Usage(prompt_tokens=prompt, completion_tokens=answer, total_tokens=total)))
        return events

    def finish(self) -> list[Event]:
        if self._splitter is None:
            return []
        return split_events(self._splitter.flush())

    def _text(self, text: Any, events: list[Event]) -> None:
        if not isinstance(text, str) or not text:
            return
        if self._splitter is None:
            events.append(Content(text))
            return
        events.extend(split_events(self._splitter.feed(text)))
