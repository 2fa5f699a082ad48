"""The footer: Textual's, fitted to the terminal's width by dropping whole bindings, never by cutting one.

Bindings go from the right, the help key last: it is the one that tells the others.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KEPT_LONGEST = ("app.show_help",)
"""The actions whose keys stay while any other can go."""


def width(key: FooterKey) -> int:
    """The columns `key` takes in the footer: its text, padding, border and margin."""
    return cell_len(key.render().plain) + key.styles.gutter.width + key.styles.margin.width


def dropped(keys: list[FooterKey], room: int) -> set[FooterKey]:
    """The keys to leave out so that the others fit in `room` columns: from the right, KEPT_LONGEST last."""
    total = sum(width(key) for key in keys)
    order = [key for key in reversed(keys) if key.action not in KEPT_LONGEST]
    order += [key for key in reversed(keys) if key.action in KEPT_LONGEST]
    left_out: set[FooterKey] = set()
    for key in order:
        if total <= room:
            break
        left_out.add(key)
        total -= width(key)
    return left_out


class ChatFooter(Footer):
    async def recompose(self) -> None:
        await super().recompose()  # (the bindings changed)
        self._fit()

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        keys = [key for key in self.query_children(FooterKey) if not key.has_class("-command-palette")]
        palette = [width(key) for key in self.query_children(FooterKey) if key.has_class("-command-palette")]
        left_out = dropped(keys, self.size.width - sum(palette))
        for key in keys:
            key.display = key not in left_out
