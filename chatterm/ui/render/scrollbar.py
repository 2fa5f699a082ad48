"""A vertical scrollbar that repaints only the rows a scroll changes.

Textual's `ScrollBar` renders itself whole, through Rich, each time its position changes. A conversation that
follows a streaming answer scrolls every few lines, which makes the bar a large part of such a frame. This one
builds its rows directly, with the glyphs and colours of Textual's own `ScrollBarRender`, and a new position
repaints only the rows where the ends of the thumb moved (one or two).
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.reactive import Reactive
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

_BACK = Color.parse("#555555")
_BAR = Color.parse("bright_magenta")
"""ScrollBarRender's own defaults, for a style without colours."""


class RowScrollBar(ScrollBar):
    """A vertical scrollbar drawn row by row (see the module)."""

    position: Reactive[float] = Reactive(0.0, repaint=False)
    """Repainted by `watch_position`, only where it changes the bar."""

    def __init__(self, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical=True, name=name, thickness=thickness)
        self._rows: list[Segment] = []
        self._strips: list[Strip] = []

    def _bar_rows(self) -> list[Segment]:
        """One segment per row, as `ScrollBarRender` draws the bar."""
        width, height = self.size
        if not height or self.parent is None:
            return []
        bar = self.render()
        assert isinstance(bar, ScrollBarRender)
        style = bar.style if isinstance(bar.style, Style) else Style.parse(str(bar.style))
        rows = bar.render_bar(
            size=height,
            virtual_size=bar.virtual_size,
            window_size=bar.window_size,
            position=bar.position,
            thickness=width,
            vertical=True,
            back_color=style.bgcolor or _BACK,
            bar_color=style.color or _BAR,
        )
        return rows.segments

    def watch_position(self) -> None:
        rows = self._bar_rows()
        old = self._rows
        if len(rows) != len(old):
            self.refresh()
            return
        changed = [y for y, (before, after) in enumerate(zip(old, rows, strict=True)) if before != after]
        if changed:
            self.refresh(Region(0, changed[0], self.size.width, changed[-1] - changed[0] + 1))

    def render_line(self, y: int) -> Strip:
        # As Widget.render_line: anything refreshed since the last frame means the rows are built again (cheap:
        # one segment a row); Textual's line cache then redraws only the rows marked dirty.
        if self._dirty_regions or len(self._strips) != self.size.height:
            self._dirty_regions.clear()
            self._rows = self._bar_rows()
            width, base = self.size.width, self.visual_style.rich_style  # under the bar, as Textual draws a render
            self._strips = [Strip(Segment.apply_style([row], base), width) for row in self._rows]
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width)
