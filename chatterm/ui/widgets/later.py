"""The control at the end of a conversation whose later turns are not on screen (a branch switched to high in a long
conversation is drawn a window at a time): a click, or Down on the last message shown, puts the next turns on
screen. It keeps the turns it stands for (`pending`), in order."""

from __future__ import annotations

from typing import Any

from textual.widgets import Button

from chatterm.ui.plain import plain


class LoadLater(Button):
    DEFAULT_CSS = """
    LoadLater { margin: 1 2 0 2; }
    """
    can_focus = False  # (clicked; from the keyboard, Down on the last message shown does the same)

    def __init__(self, pending: list[Any]) -> None:
        super().__init__(plain(label(len(pending))), id="load-later", compact=True)
        self.pending = pending
        """The turns not on screen yet (`below.Drawing`), first first."""

    def shown(self, count: int) -> None:
        """The first `count` pending turns are on screen now."""
        del self.pending[:count]
        self.label = plain(label(len(self.pending)))


def label(count: int) -> str:
    return f"⋯ Load later turns ({count} not shown)"
