"""The footer: Textual's, fitted to the terminal's width by leaving out whole bindings, never by cutting one.

A binding that does not wholly fit before the palette's key (docked on the right, drawn over the others) is left
blank: the footer keeps its layout, so fitting it at a resize repaints its keys and moves nothing else. Textual
keeps its footer's keys (`FooterKey`) private, so `footer()` gives Textual's own footer on the stock path.

The footer builds its keys again whenever the bindings change (every answer: Stop comes and goes; every move of the
message cursor). Each key watches the footer's `compact`, and Textual drops a watcher only when what it watches
changes, so the keys taken off would stay alive, held by the footer: both footers here mark `compact` changed after
each rebuild, which lets Textual drop the watchers of the keys that are gone.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.reactive import reactive
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from chatterm.ui.render.support import custom_rendering


class FittedKey(FooterKey):
    """A footer key drawn blank (and not clicked) when the footer has no room for all of it."""

    shown = reactive(True)

    def render(self) -> Text:
        text = super().render()
        return text if self.shown else Text(" " * cell_len(text.plain), style=self.rich_style)

    @on(events.MouseDown)
    def _left_out(self, event: events.MouseDown) -> None:
        if not self.shown:
            event.prevent_default()  # (before Textual's handler, which would press the key)


def width(key: FooterKey) -> int:
    """The columns `key` takes in the footer: its text, padding, border and margin."""
    return cell_len(FooterKey.render(key).plain) + key.styles.gutter.width + key.styles.margin.width


class ReleasingFooter(Footer):
    """Textual's footer, letting go of the keys each rebuild takes off (see the module)."""

    async def recompose(self) -> None:
        await super().recompose()
        self.mutate_reactive(Footer.compact)


class ChatFooter(ReleasingFooter):
    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if type(widget) is FooterKey:
                fitted = FittedKey(
                    widget.key,
                    widget.key_display,
                    widget.description,
                    widget.action,
                    disabled="-disabled" in widget.classes,
                    tooltip=str(widget.tooltip or ""),
                    classes=" ".join(widget.classes - {"-disabled"}),
                )
                if "-command-palette" not in widget.classes:
                    fitted.data_bind(compact=Footer.compact)
                widget = fitted
            yield widget

    async def recompose(self) -> None:
        await super().recompose()  # (the bindings changed)
        self._fit()

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        keys = [key for key in self.query_children(FittedKey)]
        palette = sum(width(key) for key in keys if key.has_class("-command-palette"))
        room = self.size.width - palette
        for key in keys:
            if not key.has_class("-command-palette"):
                room -= width(key)
                key.shown = room >= 0


def footer() -> Footer:
    """The chat screen's footer: fitted where the render package's parts are used, Textual's own elsewhere."""
    return ChatFooter() if custom_rendering() else ReleasingFooter()
