"""The status line: profile, the model that answered, time to first token, speed while streaming, and the usage of
the answer on screen.

Every figure belongs to one answer: a new answer starts with none, and one that ended without usage (a stop, an
error) shows none. The line is made for the width it has each time it is drawn (`render`), so a resize redraws it
right: items are left out or shortened in a fixed order (`REDUCTIONS`), whole, until the rest fits.
"""

from __future__ import annotations

import time

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

from chatterm.events import Usage
from chatterm.terminal_text import neutralize
from chatterm.ui.plain import plain

SEPARATOR = "  │  "
REDUCTIONS = ("first token", "speed", "usage", "options", "endpoint", "usage", "options")
"""What gives way when the line is too narrow, in order: each step takes an item to its next, shorter form (the last
form of an item is none). The model and the state are always shown."""


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__(id="status")
        self.profile = ""
        self.model = ""
        """The model the profile asks for."""
        self.answered: str | None = None
        """The model the answer on screen came from (the provider's word, or the recording's), when known."""
        self.state = "ready"
        self.ttft: float | None = None
        self.tokens_per_second: float | None = None
        self.usage: Usage | None = None
        self.options = [""]
        """The chat's own parameters (`set_options`), fullest form first."""
        self._started: float | None = None
        self._first: float | None = None
        self._pieces = 0
        self._shown = 0.0

    def set_endpoint(self, profile: str, model: str) -> None:
        self.profile, self.model, self.answered = profile, model, None
        self.refresh_text()

    def set_options(self, forms: list[str]) -> None:
        """The chat's reasoning effort and the parameters it asks with over the profile's, each form shorter than the
        one before (the last: none)."""
        if forms != self.options:
            self.options = forms
            self.refresh_text()

    def begin(self, model: str | None = None) -> None:
        """A new answer: none of the last one's figures stay (`model`: the one a replayed answer was asked of)."""
        self._started = time.monotonic()
        self._first = None
        self._pieces = 0
        self.ttft = self.tokens_per_second = None
        self.usage = None
        self.answered = model
        self.state = "waiting"
        self.refresh_text()

    def answered_by(self, model: str) -> None:
        """The provider named the model answering."""
        if model != self.answered:
            self.answered = model
            self.refresh_text()

    def show_answer(self, model: str | None, usage: Usage | None) -> None:
        """An answer shown finished (a recording opened at once): its model and usage, no timings."""
        self.ttft = self.tokens_per_second = None
        self.answered, self.usage, self.state = model, usage, "ready"
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
        self.usage = usage
        self.refresh_text()

    def refresh_text(self) -> None:
        self.refresh()  # one line, full width: a redraw, never a relayout

    def forms(self) -> dict[str, list[str]]:
        """Each item's forms, fullest first; an item's last form is none (empty)."""
        model, profile = _one_line(self.answered or self.model), _one_line(self.profile)
        usage = self.usage
        forms: dict[str, list[str]] = {
            "endpoint": [f"{profile} · {model}" if profile else model, model],
            "options": [_one_line(form) for form in self.options],
            "state": [self.state],
            "first token": [f"first token {self.ttft:.2f} s" if self.ttft is not None else "", ""],
            "speed": [f"{self.tokens_per_second:.0f} tok/s" if self.tokens_per_second is not None else "", ""],
            "usage": ["", ""],
        }
        if usage is not None:
            prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
            full = f"prompt {prompt} · completion {completion}"
            if usage.reasoning_tokens:
                full += f" · reasoning {usage.reasoning_tokens}"
            forms["usage"] = [full, f"{prompt} → {completion} tokens", ""]
        return forms

    def line(self, width: int) -> str:
        """The status as it fits in `width` cells."""
        forms = self.forms()
        chosen = dict.fromkeys(forms, 0)
        text = _joined(forms, chosen)
        for item in REDUCTIONS:
            if cell_len(text) <= width:
                return text
            chosen[item] = min(chosen[item] + 1, len(forms[item]) - 1)
            text = _joined(forms, chosen)
        if cell_len(text) <= width:
            return text
        rest = cell_len(text) - cell_len(forms["endpoint"][chosen["endpoint"]])
        model = forms["endpoint"][chosen["endpoint"]]
        room = max(width - rest - 1, 0)
        forms["endpoint"][chosen["endpoint"]] = set_cell_size(model, room) + "…"
        return _joined(forms, chosen)

    def render(self) -> Text:
        return plain(self.line(self.content_size.width or 10_000))


def _joined(forms: dict[str, list[str]], chosen: dict[str, int]) -> str:
    return SEPARATOR.join(shown for item, index in chosen.items() if (shown := forms[item][index]))


def _one_line(text: str) -> str:
    """Text from outside as one line of visible characters (a model id, a profile name)."""
    return neutralize(text).replace("\n", " ").replace("\t", " ")
