"""The chat's system prompt, shown collapsed at the top of the conversation: its first words on one line, the whole
text when opened (a click on the title, or Enter on it). Hidden while the chat has none.

It sits above the conversation's scrolling view rather than in it: the prompt holds for the whole chat (and for the
next request), so it stays in sight whatever the view shows, and the turns below it come and go as they please.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Static

from chatterm.terminal_text import neutralize
from chatterm.ui.plain import escaped, plain

TITLE = "System prompt"
GIST = 60
"""Characters of the prompt's first line shown beside the title while it is closed."""


def gist(text: str) -> str:
    """The title of a closed prompt: its first line, cut at GIST characters."""
    first = neutralize(text.strip().splitlines()[0] if text.strip() else "")
    return f"{TITLE} · {first[: GIST - 1]}…" if len(first) > GIST or "\n" in text.strip() else f"{TITLE} · {first}"


class SystemPromptBar(Collapsible):
    DEFAULT_CSS = """
    SystemPromptBar { height: auto; margin: 0; padding: 0; border-top: none; background: $boost; }
    SystemPromptBar > Contents { padding: 0 1 0 2; }
    SystemPromptBar VerticalScroll { height: auto; max-height: 8; }
    SystemPromptBar Static { color: $text-muted; }
    """

    def __init__(self) -> None:
        self.text_view = Static("", id="system-text")
        super().__init__(VerticalScroll(self.text_view), title=TITLE, collapsed=True, id="system-prompt")
        self.text: str | None = None
        self.display = False

    def show(self, text: str | None) -> None:
        """The chat's prompt now (None: the chat has none, and the bar goes)."""
        self.text = text
        self.display = bool(text)
        if text:
            self.title = escaped(gist(text))
            self.text_view.update(plain(text))
