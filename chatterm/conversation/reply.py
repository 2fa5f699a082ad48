"""An answer folded together from its events, as far as it has arrived."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chatterm.events import (
    FINISH_NOTICES,
    Content,
    Event,
    Finish,
    ModelName,
    Reasoning,
    ReasoningDetail,
    StreamError,
    StreamWarning,
    ToolCallDelta,
    Usage,
    UsageReport,
)


@dataclass
class ToolCall:
    id: str = ""
    name: str = ""
    arguments: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass
class Reply:
    """One answer as far as it has arrived. Every token received is kept, even after an error."""

    status: int | None = None
    model: str | None = None
    reasoning_parts: list[str] = field(default_factory=list)
    content_parts: list[str] = field(default_factory=list)
    tool_calls: dict[int, ToolCall] = field(default_factory=dict)
    reasoning_details: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    error: StreamError | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def content(self) -> str:
        return "".join(self.content_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)

    @property
    def finish_notice(self) -> str | None:
        """What a user is told of the finish reason (the token limit, a filter), None for an ordinary end."""
        return FINISH_NOTICES.get(self.finish_reason or "")

    def add(self, event: Event) -> None:
        """Fold one event in."""
        if isinstance(event, Content):
            self.content_parts.append(event.text)
        elif isinstance(event, Reasoning):
            self.reasoning_parts.append(event.text)
        elif isinstance(event, ToolCallDelta):
            call = self.tool_calls.setdefault(event.index, ToolCall())
            if event.id:
                call.id = event.id
            if event.name:
                call.name = event.name
            call.arguments += event.arguments
        elif isinstance(event, UsageReport):
            self.usage = event.usage
        elif isinstance(event, Finish):
            self.finish_reason = event.reason
        elif isinstance(event, ModelName):
            self.model = event.model
        elif isinstance(event, ReasoningDetail):
            self.reasoning_details.append(event.detail)
        elif isinstance(event, StreamWarning):
            self.warnings.append(event.message)
        elif isinstance(event, StreamError):
            self.error = event
            if event.status is not None and self.status is None:
                self.status = event.status

    def extend(self, events: list[Event]) -> None:
        for event in events:
            self.add(event)

    def as_dict(self) -> dict[str, Any]:
        """The `response` object of `show --json` (CONTRACT.md)."""
        return {
            "status": self.status,
            "model": self.model,
            "reasoning": self.reasoning,
            "content": self.content,
            "tool_calls": [self.tool_calls[i].as_dict() for i in sorted(self.tool_calls)],
            "finish_reason": self.finish_reason,
            "usage": self.usage.as_dict() if self.usage else None,
            "error": {"status": self.error.status, "message": self.error.message} if self.error else None,
        }

    def as_message(self, include_reasoning: bool = False) -> dict[str, Any]:
        """This answer as an assistant message for the history sent back to the model. The opaque reasoning it came
        with (thinking blocks, thought signatures, encrypted reasoning items) rides along as `reasoning_details`:
        each API's request takes back what is its own, and chat completions none of it."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for _, c in sorted(self.tool_calls.items())
            ]
        if include_reasoning and self.reasoning:
            message["reasoning_content"] = self.reasoning
        if self.reasoning_details:
            message["reasoning_details"] = [dict(detail) for detail in self.reasoning_details]
        return message
