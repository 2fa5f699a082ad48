"""Whether an answer is complete: only when the provider said so.

A stream is complete when it carried its end: a finish reason (OpenAI's `finish_reason`, Anthropic's `stop_reason`,
Gemini's `finishReason`, Ollama's `done: true`), OpenAI's `data: [DONE]`, Anthropic's `message_stop`, or a whole
JSON document. A body that ends without one was cut short (a proxy whose upstream dropped, a truncated body), and
an answer that holds no text, no reasoning and no tool call is empty; both are errors, decided here once, so the
live client, `show`, replay and the recordings agree.
"""

from __future__ import annotations

from chatterm.events import (
    FINISH_NOTICES,
    Content,
    Event,
    Finish,
    Reasoning,
    StreamError,
    StreamWarning,
    ToolCallDelta,
)

CUT_SHORT = "the answer was cut short: the stream ended before the provider said the answer was complete"
EMPTY = "the provider sent an empty answer (no text, no reasoning, no tool call)"
HTML_PAGE = "the server answered with an HTML page, not a model's answer: check the base URL"
UNREADABLE = "the response body is neither JSON nor a stream chatterm knows"
_PAGE_STARTS = (b"<!doctype", b"<html", b"<head", b"<body", b"<!--", b"<?xml", b"<title", b"<meta")


class Ending:
    """Watches the events of one body and tells, once it has ended, whether the answer is whole."""

    def __init__(self) -> None:
        self.said_end = False
        """The provider said the answer ended (a finish reason, `[DONE]`, `message_stop`, a whole JSON document)."""
        self.failed = False
        """The body ended in an error of its own (an error event, an HTML page, a line past the limit)."""
        self.answered = False
        """Text, reasoning or a tool call arrived."""
        self.received = False
        """Anything but blanks arrived."""
        self.understood = False
        """Something in the body was read as part of an answer (not only skipped with a warning)."""
        self.skipped = False
        """Something in the body was skipped with a warning."""
        self.finish_reason: str | None = None

    def watch(self, events: list[Event]) -> list[Event]:
        """Take note of `events` (returned as they are)."""
        for event in events:
            if isinstance(event, StreamWarning):
                self.skipped = True
                continue
            self.understood = True
            if isinstance(event, (Content, Reasoning, ToolCallDelta)):
                self.answered = True
            elif isinstance(event, Finish):
                self.said_end = True
                self.finish_reason = event.reason
            elif isinstance(event, StreamError):
                self.failed = True
        return events

    def verdict(self) -> StreamError | None:
        """The error of a body that has ended without its end, or empty; None for a whole answer."""
        if self.failed:
            return None
        if not self.received:
            return StreamError(status=None, message=EMPTY, kind="empty")
        if self.skipped and not (self.understood or self.said_end):
            return StreamError(status=None, message=UNREADABLE, kind="unreadable")
        if not self.said_end:
            return StreamError(status=None, message=CUT_SHORT, kind="incomplete")
        if not self.answered and self.finish_reason not in FINISH_NOTICES:
            return StreamError(status=None, message=EMPTY, kind="empty")
        return None


def is_markup(head: bytes) -> bool:
    """True when a body's first bytes are an HTML (or XML) page rather than JSON or a stream."""
    return head.removeprefix(b"\xef\xbb\xbf").lstrip()[:16].lower().startswith(_PAGE_STARTS)
