"""The prompt sent while an answer (or a replay) was on its way: held above the composer and sent when it ends.

Escape takes it back into the composer to be edited; only one prompt is held at a time, so what is sent next is
always what the line shows.
"""

from __future__ import annotations

from textual.widgets import Static

from chatterm.ui.plain import plain


def _first_line(text: str) -> str:
    lines = text.strip().splitlines() or [""]
    return lines[0] + ("…" if len(lines) > 1 else "")


class QueuedPrompt(Static):
    DEFAULT_CSS = """
    QueuedPrompt {
        height: 1; padding: 0 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; display: none;
    }
    QueuedPrompt.-held { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("", id="queued", markup=False)
        self.text: str | None = None

    def hold(self, text: str, until: str) -> None:
        """Hold `text` until `until` (what it waits for: "this answer", "the replay") ends."""
        self.text = text
        self.update(plain(f"Queued, sends when {until} ends (Escape takes it back): {_first_line(text)}"))
        self.add_class("-held")

    def take(self) -> str | None:
        """The held prompt, no longer held."""
        text, self.text = self.text, None
        self.remove_class("-held")
        self.update("")
        return text
