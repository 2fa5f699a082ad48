"""The line above the composer while a prompt of the conversation is being edited.

It says which prompt is being edited and what Enter and Escape do, and holds what the edit needs: the turn whose
prompt the composer holds (`turn`), and what the composer held before, given back when the edit is cancelled
(`kept`).
"""

from __future__ import annotations

from textual.widgets import Static

from chatterm.ui.plain import plain


def banner_text(number: int) -> str:
    return f"Editing message {number} · Enter sends as a new branch · Escape cancels"


class EditBanner(Static):
    DEFAULT_CSS = """
    EditBanner {
        height: 1;
        padding: 0 1;
        background: $warning 20%;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self, number: int, turn: str, kept: str) -> None:
        super().__init__(plain(banner_text(number)))
        self.number = number
        self.turn = turn
        """The exchange whose prompt is being edited (its turn's first)."""
        self.kept = kept
        """What the composer held before the edit."""
        self.ended = False
        """The edit was sent or cancelled (the banner is on its way out)."""

    def retarget(self, number: int, turn: str) -> None:
        """Another prompt is edited in place of the one before (what the composer held before either is kept)."""
        self.number, self.turn = number, turn
        self.update(plain(banner_text(number)))

    def end(self) -> None:
        self.ended = True
        self.remove()
