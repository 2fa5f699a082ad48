"""The control at the top of a conversation whose earlier turns are not on screen (an opened long session, or a
long chat whose old turns left the view): a click puts the turns before those shown back on screen, a batch at a
time."""

from __future__ import annotations

from textual.widgets import Button

LABEL = "Load earlier turns"


class LoadEarlier(Button):
    DEFAULT_CSS = """
    LoadEarlier { margin: 0 2; }
    """
    can_focus = False  # (clicked; from the keyboard, Up on the first message shown does the same)

    def __init__(self) -> None:
        super().__init__(LABEL, id="load-earlier", compact=True)
