"""A vertical scrollbar that repaints only the rows a scroll changes.

Textual's `ScrollBar` renders itself whole, through Rich, each time its position changes. A conversation that
follows a streaming answer scrolls every few lines, which makes the bar a large part of such a frame. This one
builds its rows directly, with the glyphs and colours of Textual's own `ScrollBarRender`, and a new position
repaints only the rows where the ends of the thumb moved (one or two). When the terminal scrolls the conversation's
rows, the bar's move with them: it says which of its rows then show otherwise than it is now (`rows_after_scroll`),
so a scroll repaints those rather than the whole bar (`compositor.RowCompositor`).
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.reactive import Reactive
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

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
        self._base: tuple[int, Style] | None = None
        """The width and style the strips were made with."""

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
        changed = self.rows_after_scroll(0)
        if changed is None:
            self.refresh()
        elif changed:
            self.refresh(Region(0, changed[0][0], self.size.width, changed[-1][1] - changed[0][0]))

    def rows_after_scroll(self, lines: int) -> list[tuple[int, int]] | None:
        """After the terminal moved the rows the bar was last drawn in up by `lines` (down when negative), the rows
        that show otherwise than the bar is now, as (first, past the last) pairs; None when how the bar was drawn
        is not known (not drawn yet, or at another height)."""
        drawn, rows = self._rows, self._bar_rows()
        if not drawn or len(drawn) != len(rows) or len(self._strips) != len(rows):
            return None
        shown = [drawn[y + lines] if 0 <= y + lines < len(drawn) else None for y in range(len(rows))]
        return [(y, y + 1) for y, (was, now) in enumerate(zip(shown, rows, strict=True)) if was != now]

    def _build_strips(self) -> None:
        """The rows as strips; a row as it was keeps its strip (a new position changes one or two)."""
        old = self._rows
        self._rows = rows = self._bar_rows()
        width, base = self.size.width, self.visual_style.rich_style  # under the bar, as Textual draws a render
        if self._base != (width, base) or len(self._strips) != len(rows) or len(old) != len(rows):
            self._base = (width, base)
            self._strips = [Strip(Segment.apply_style([row], base), width) for row in rows]
            return
        for y, row in enumerate(rows):
            if row != old[y]:
                self._strips[y] = Strip(Segment.apply_style([row], base), width)

    def render_line(self, y: int) -> Strip:
        # As Widget.render_line: anything refreshed since the last frame means the rows are built again (cheap:
        # one segment a row); Textual's line cache then redraws only the rows marked dirty.
        if self._dirty_regions or len(self._strips) != self.size.height:
            self._dirty_regions.clear()
            self._build_strips()
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width)


def scroller_bar(widget: Widget) -> RowScrollBar | None:
    """The widget's vertical scrollbar if it is one of these (and made already)."""
    bar = widget._vertical_scrollbar
    return bar if isinstance(bar, RowScrollBar) else None
