"""The status line: profile, model, time to first token, speed while streaming, and the last usage."""

from __future__ import annotations

import time

from textual.widgets import Static

from chatterm.events import Usage
from chatterm.ui.plain import plain


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__("", id="status")
        self.profile = ""
        self.model = ""
        self.state = "ready"
        self.ttft: float | None = None
        self.tokens_per_second: float | None = None
        self.usage: Usage | None = None
        self._started: float | None = None
        self._first: float | None = None
        self._pieces = 0
        self._shown = 0.0

    def set_endpoint(self, profile: str, model: str) -> None:
        self.profile, self.model = profile, model
        self.refresh_text()

    def begin(self) -> None:
        self._started = time.monotonic()
        self._first = None
        self._pieces = 0
        self.ttft = self.tokens_per_second = None
        self.state = "waiting"
        self.refresh_text()

    def token(self) -> None:
        now = time.monotonic()
        if self._first is None and self._started is not None:
            self._first = now
            self.ttft = now - self._started
            self.state = "streaming"
            self.refresh_text()
        self._pieces += 1
        if self._first is not None and now - self._first > 0.2:
            self.tokens_per_second = self._pieces / (now - self._first)

    def show_speed(self) -> None:
        """Redraw the live speed, twice a second at most: called as the answer is drawn (`AssistantMessage.flush`),
        so that it joins a frame the answer draws anyway rather than making frames of its own."""
        now = time.monotonic()
        if self.tokens_per_second is not None and now - self._shown > 0.5:
            self._shown = now
            self.refresh_text()

    def end(self, state: str, usage: Usage | None) -> None:
        self.state = state
        if usage is not None:
            self.usage = usage
        self.refresh_text()

    def refresh_text(self) -> None:
        parts = [f"{self.profile} · {self.model}", self.state]
        if self.ttft is not None:
            parts.append(f"first token {self.ttft:.2f} s")
        if self.tokens_per_second is not None:
            parts.append(f"{self.tokens_per_second:.0f} tok/s")
        if self.usage is not None:
            usage = f"prompt {self.usage.prompt_tokens or 0} · completion {self.usage.completion_tokens or 0}"
            if self.usage.reasoning_tokens:
                usage += f" · reasoning {self.usage.reasoning_tokens}"
            parts.append(usage)
        self.update(plain("  │  ".join(parts)), layout=False)  # one line, full width: a redraw, never a relayout
