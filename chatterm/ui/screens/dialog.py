"""The base of chatterm's dialogs: a modal screen drawn with Textual's slip after a scroll mended."""

from __future__ import annotations

from textual.screen import ModalScreen, ScreenResultType

from chatterm.ui.render.compositor import MendedCompositor
from chatterm.ui.render.widgets import install_compositor


class Dialog(ModalScreen[ScreenResultType]):
    """A modal screen whose compositor repaints what a scroll and a lazy re-arrangement left behind (a notification
    that times out over a scrolled list would otherwise stay on the terminal). Its box (a `Vertical` in the middle,
    framed, as tall as its content allows) is drawn alike in every dialog; each gives its own width."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog > Vertical {
        max-width: 100%; height: auto; max-height: 100%; border: thick $primary; background: $surface; padding: 0 1;
    }
    Dialog .hint { color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        install_compositor(self, MendedCompositor)
