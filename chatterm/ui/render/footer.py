"""The footer: Textual's, fitted to the terminal's width by leaving out whole bindings, never by cutting one, and
Quit last of all.

What the footer holds is a row of units: a binding's key, or a group of keys with its label (`↑↓ Select`). When
they do not all fit before the palette's key (docked on the right, drawn over the others), Quit and Help are kept
first (`KEPT_FIRST`), then the others from the left up to the first that does not fit; the rest are taken out of
the row (`display`), so what is shown closes up and Quit stays in sight whatever the focused widget adds.

Where the render package's parts are used, each unit's width is known from its text before it is drawn, so the
footer is fitted in the frame that lays it out. Textual keeps its footer's keys (`FooterKey`) private, so on the stock
path the footer is Textual's own, fitted from the widths its first layout gives the units (a frame later).

The footer takes keys off and puts others on whenever the bindings change (every answer: Stop comes and goes; every
move of the message cursor; `ReleasingFooter`). Each key watches the footer's `compact`, and Textual drops a watcher
only when what it watches changes, so the keys taken off would stay alive, held by the footer: both footers here
mark `compact` changed after each change, which lets Textual drop the watchers of the keys that are gone.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.compose import compose
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey as FooterKey  # (the tests count its instances through here)

from chatterm.ui.render.support import custom_rendering

KEPT_FIRST = {"quit": 0, "app.quit": 0, "app.show_help": 1, "show_help": 1}
"""Actions whose keys stay when the footer has no room for all: the lower, the longer kept."""
OTHERS = len(set(KEPT_FIRST.values()))


def rank(unit: list[Widget]) -> int:
    """How long a unit stays in a narrow footer (see `KEPT_FIRST`)."""
    return KEPT_FIRST.get(str(getattr(unit[0], "action", "")), OTHERS)


def chosen(ranks: list[int], widths: list[int], room: int) -> list[bool]:
    """Which units are shown in `room` columns: those ranked first while they fit, then the others from the left up
    to the first that does not."""
    shown = [False] * len(ranks)
    for index in sorted((n for n, kept in enumerate(ranks) if kept < OTHERS), key=lambda n: ranks[n]):
        if widths[index] <= room:
            shown[index], room = True, room - widths[index]
    for index in (n for n, kept in enumerate(ranks) if kept == OTHERS):
        if widths[index] > room:
            break
        shown[index], room = True, room - widths[index]
    return shown


def units(footer: Footer) -> tuple[list[list[Widget]], list[Widget]]:
    """The footer's units, left to right (a group with the label after it is one), and the palette's key."""
    found: list[list[Widget]] = []
    palette: list[Widget] = []
    for child in footer.children:
        if child.has_class("-command-palette"):
            palette.append(child)
        elif found and type(child).__name__ == "FooterLabel" and type(found[-1][0]).__name__ == "KeyGroup":
            found[-1].append(child)
        else:
            found.append([child])
    return found, palette


def show(unit: list[Widget], shown: bool) -> None:
    for widget in unit:
        widget.display = shown


class FittedKey(FooterKey):
    """A footer key drawn blank (and not clicked) when the footer has no room for it."""

    shown = reactive(True)

    def render(self) -> Text:
        text = super().render()
        return text if self.shown else Text(" " * cell_len(text.plain), style=self.rich_style)

    @on(events.MouseDown)
    def _left_out(self, event: events.MouseDown) -> None:
        if not self.shown:
            event.prevent_default()  # (before Textual's handler, which would press the key)


def width(widget: Widget) -> int:
    """The columns `widget` takes in the footer: its text (its keys', for a group), padding, border and margin."""
    if isinstance(widget, FooterKey):
        text = cell_len(FooterKey.render(widget).plain)
    elif widget.children:
        text = sum(width(child) for child in widget.children)
    else:
        text = cell_len(str(widget.render()))
    return text + widget.styles.gutter.width + widget.styles.margin.width


def identity(widget: Widget) -> tuple[object, ...] | None:
    """What a footer key shows and does, as it was built (its classes but the one its `compact` sets); None for a
    group of keys or a group's label."""
    if not isinstance(widget, FooterKey):
        return None
    classes = frozenset(widget.classes - {"-compact"})
    shown = (widget.key, widget.key_display, widget.description, widget.action, str(widget.tooltip or ""))
    return type(widget), *shown, widget._disabled, classes


class ReleasingFooter(Footer):
    """Textual's footer, changed only where what its keys show changed, letting go of the keys it takes off (see the
    module). Textual's builds all its keys again at every refresh of the bindings (ten widgets mounted, 10-16 ms):
    three times an answer, where Stop comes once and goes once, and at focus moves. Here a refresh that changes
    nothing leaves the footer as it is, and one that adds or takes off keys mounts or removes those alone; where a
    group of keys is concerned, all are built again as Textual does."""

    async def recompose(self) -> None:
        if not (self.is_attached and self.children and await self._patch()):
            await super().recompose()
        self.mutate_reactive(Footer.compact)

    async def _patch(self) -> bool:
        """Mount the keys that came and remove those that went, the others left as they are (False, and nothing
        done, where a group of keys is among them)."""
        old, new = list(self.children), compose(self)
        were, are = [identity(widget) for widget in old], [identity(widget) for widget in new]
        if None in were or None in are:
            return False
        opcodes = SequenceMatcher(None, were, are, autojunk=False).get_opcodes()
        changes = [change for change in opcodes if change[0] != "equal"]
        if changes:
            async with self.batch():
                for _, start, end, first, last in changes:
                    if start < end:
                        await self.remove_children(old[start:end])
                    if first < last:
                        await self.mount_all(new[first:last], before=old[end] if end < len(old) else None)
        return True


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
        found, palette = units(self)
        room = self.size.width - sum(width(key) for key in palette)
        widths = [sum(width(widget) for widget in unit) for unit in found]
        for unit, shown in zip(found, chosen([rank(unit) for unit in found], widths, room), strict=True):
            show(unit, shown)
            for key in unit:
                if isinstance(key, FittedKey):
                    key.shown = shown


class StockFooter(ReleasingFooter):
    """Textual's footer on the stock path, fitted from the widths its layout gives the units."""

    def __init__(self) -> None:
        super().__init__()
        self._widths: dict[int, int] = {}
        """Each unit's columns, by its first widget's id, as laid out with all of them shown."""

    async def recompose(self) -> None:
        await super().recompose()
        self._widths = {}
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _measure(self, found: list[list[Widget]]) -> None:
        """Each unit's columns, from where the layout put it and the next (all are shown after a recompose)."""
        starts = [unit[0].region.x for unit in found]
        last = found[-1][-1] if found else None
        end = last.region.right + last.styles.margin.right if last is not None else 0
        for unit, start, following in zip(found, starts, [*starts[1:], end], strict=True):
            self._widths[id(unit[0])] = following - start

    def _fit(self) -> None:
        found, palette = units(self)
        if not found or not self.is_attached:
            return
        if not self._widths:
            if not all(unit[0].region for unit in found):
                return
            self._measure(found)
        room = self.size.width - sum(key.outer_size.width + key.styles.margin.width for key in palette)
        widths = [self._widths.get(id(unit[0]), 0) for unit in found]
        for unit, shown in zip(found, chosen([rank(u) for u in found], widths, room), strict=True):
            show(unit, shown)


def footer() -> Footer:
    """The chat screen's footer: fitted from its text where the render package's parts are used, from its layout on
    the stock path."""
    return ChatFooter() if custom_rendering() else StockFooter()
