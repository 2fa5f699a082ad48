"""A compositor that renders only the rows an update repaints, and scrolls the terminal when the conversation scrolls.

To repaint part of the screen, Textual's compositor asks every widget that overlaps the changed area for *all* of
its visible lines, then keeps the ones in the changed rows. While an answer streams, a frame changes a line or
two, yet the screen, the conversation, its scrollbar, the message and its text each hand over some 45 lines from
their caches, and each line goes through the app's line filters: five times the work of the lines that change.
This compositor asks each widget only for its lines in the rows being repainted (those of each changed region, not
of a box around them all), and not at all for the rows where the widgets in front of it (drawn first) hide it: a
line of the answer hides the message, the conversation and the screen behind it (a whole-screen repaint, after a
layout, skips them too). What reaches the terminal is the same: a test compares the two line for line.

When the conversation scrolls (it follows the answer a few lines at a time), Textual repaints all of it. Here the
terminal moves the lines itself: a scroll region over the conversation's rows, scrolled by the lines it moved, and
only what that cannot get right is repainted: the lines scrolled into view, the rows of the column beside the
conversation (its scrollbar) that then show otherwise than the bar is, and lines that changed in the same frame.
While anything is drawn over the conversation (a notification), it repaints as Textual does. A test plays every
update into a terminal emulator and compares it with a whole-screen render.

It also mends a slip of Textual's (`MendedCompositor`, which the dialogs use too): after a scroll, asking where a
widget is arranges the whole screen again, and the next layout is compared with that arrangement, so what moved or
went away in between would never be repainted (a notification that times out over a scrolled view would stay on
the terminal). Here that arrangement marks what changed since the one before.

It overrides private parts of Textual's `Compositor` (`_get_renders`, `full_map`, and the dirty regions that
`reflow_visible` marks), so it is used only where `support.custom_rendering()` says they are there.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.console import Console, RenderableType
from textual._compositor import ChopsUpdate, Compositor, CompositorMap, ReflowResult
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from chatterm.ui.render.scrollbar import scroller_bar

if TYPE_CHECKING:
    from textual.screen import Screen


class MendedCompositor(Compositor):
    """Textual's compositor with the slip after a scroll mended; the dialogs use it as it is."""

    @property
    def full_map(self) -> CompositorMap:
        if not self._full_map_invalidated or self.root is None:
            return super().full_map
        # After a scroll Textual arranges the whole screen again when something asks where a widget is, and the next
        # layout is compared with that arrangement: what moved or went away in between (a notification that timed
        # out, the answer scrolled under a dialog) would never be repainted. Mark it here, against the one before.
        before = self._visible_map if self._visible_map is not None else self._full_map
        arranged = super().full_map
        if self.size.region not in self._dirty_regions:
            changed = (geometry.clip.intersection(geometry.region) for _, geometry in before.items() ^ arranged.items())
            self._dirty_regions.update(region for region in changed if region)
        return arranged


class RowCompositor(MendedCompositor):
    def __init__(self) -> None:
        super().__init__()
        self.scroller: Widget | None = None
        """The view whose scrolls the terminal makes (the conversation): its content moves as one piece."""
        self._arranged: tuple[int, Region] | None = None
        """The scroller's scroll offset and content region as the last layout or scroll arranged them."""
        self._painted: tuple[int, Region] | None = None
        """The same as the terminal shows them (after the last update)."""
        self._shift: tuple[Region, int] | None = None
        """The terminal scroll the next update starts with: the scroller's content region and the lines it moved."""
        self._updating: list[Region] | None = None
        """The regions a partial update repaints, while it renders."""

    def forget_painted(self) -> None:
        """The terminal no longer shows this screen as it was last drawn: no terminal scroll until it is again."""
        self._painted = None

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        self._shift = None
        result = super().reflow(parent, size)
        self._arranged = self._scroller_state()
        return result

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        if self._visible_map is None and not self._full_map_invalidated:
            # After a layout Textual compares the scroll's arrangement with none and repaints the whole screen: the
            # first scroll after each growth of the answer. Compare it with the arrangement on screen, the layout's.
            self._visible_map = self._full_map
        before = set(self._dirty_regions)
        exposed = super().reflow_visible(parent, size)
        self._arranged = self._scroller_state()
        self._shift = self._terminal_scroll(parent, before)
        return exposed

    def _scroller_state(self) -> tuple[int, Region] | None:
        scroller = self.scroller
        if scroller is None or scroller not in self.visible_widgets:
            return None
        return scroller.scroll_offset.y, scroller.scrollable_content_region

    def _terminal_scroll(self, parent: Widget, before: set[Region]) -> tuple[Region, int] | None:
        """If the scroller alone moved, by fewer lines than it shows, on the screen the terminal shows: the scroll for
        the terminal to make, with the regions to repaint after it in place of the whole scroller."""
        scroller = self.scroller
        if scroller is None or self._painted is None or self._arranged is None:
            return None
        if parent.app.screen is not parent or parent.app.is_inline or self.size.region in self._dirty_regions:
            return None
        (arranged_y, area), (painted_y, painted_area) = self._arranged, self._painted
        lines = arranged_y - painted_y
        if not lines or area != painted_area or abs(lines) >= area.height:
            return None
        width, height = self.size
        rows = Region(0, area.y, width, area.height)
        if any(not rows.contains_region(region) for region in self._dirty_regions - before):
            return None  # (something outside the scroller's rows changed with the scroll: repaint as Textual does)
        above, below = Region(0, 0, width, area.y), Region(0, area.bottom, width, height - area.bottom)
        dirty: set[Region] = set()
        for region in before:  # changed before the scroll: where it is outside the rows, where the terminal moves it
            dirty.update((region.intersection(above), region.intersection(below)))
            dirty.add(region.intersection(area).translate((0, -lines)).intersection(area))
        dirty.add(Region(0, area.y, area.x, area.height))  # beside the content: scrolled with the rows, not moved
        dirty |= set(self._right_of(scroller, area, lines))
        if lines > 0:
            dirty.add(Region(area.x, area.bottom - lines, area.width, lines))
        else:
            dirty.add(Region(area.x, area.y, area.width, -lines))
        for widget, (region, clip) in self.visible_widgets.items():  # front to back: what is drawn over the scroller
            if widget is scroller:
                break
            if scroller not in widget.ancestors and region.intersection(clip).overlaps(rows):
                return None  # (a notification, a tooltip: repaint as Textual does)
        self._dirty_regions = {region for region in dirty if region}
        return area, lines

    def _right_of(self, scroller: Widget, area: Region, lines: int) -> list[Region]:
        """What to repaint right of the scroller's content, over its rows, which the terminal moved with them: the
        rows of its scrollbar that show other than the bar has now, when the bar is all there is and says which
        (`RowScrollBar.rows_after_scroll`: the thumb's ends and the rows moved in); else every row."""
        column = Region(area.right, area.y, self.size.width - area.right, area.height)
        bar = scroller_bar(scroller)
        placed = self.visible_widgets.get(bar) if bar is not None else None
        shown_whole = placed is not None and placed[0] == column and placed[1].contains_region(column)
        rows = bar.rows_after_scroll(lines) if bar is not None and shown_whole else None
        if rows is None:
            return [column]
        return [Region(column.x, column.y + top, column.width, bottom - top) for top, bottom in _merged(rows)]

    def render_update(
        self, full: bool = False, screen_stack: list[Screen[Any]] | None = None, simplify: bool = False
    ) -> RenderableType | None:
        shift, self._shift = self._shift, None
        update = super().render_update(full, screen_stack, simplify)
        self._painted = self._arranged
        if shift is not None and isinstance(update, ChopsUpdate):
            return ScrolledUpdate(update, *shift)
        return update

    def render_partial_update(self) -> ChopsUpdate | None:
        self._updating = list(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._updating = None

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        regions = self._updating
        if not crop or regions is None:
            yield from super()._get_renders(crop)
            return
        drawn: list[Region] = []
        """What the widgets yielded so far draw of the regions repainted (front to back: the first to fill a cell
        wins)."""
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop.overlaps(clip):
                continue
            visible = region.intersection(clip)
            bands: list[tuple[int, int]] = []
            for changed in regions:
                part = visible.intersection(changed)
                shown = _rows_shown(part, drawn)
                if shown is not None:  # (else hidden there by what is in front of it)
                    bands.append(shown)
                    drawn.append(Region(part.x, shown[0], part.width, shown[1] - shown[0]))
            for top, bottom in _merged(bands):
                rows = clip.intersection(Region(clip.x, top, clip.width, bottom - top))
                lines = region.intersection(rows)
                if lines.width and lines.height:
                    wanted = Region(lines.x - region.x, lines.y - region.y, lines.width, lines.height)
                    yield region, rows, widget.render_lines(wanted)


class ScrolledUpdate(ChopsUpdate):
    """A partial update that first scrolls the terminal's lines: a scroll region over `area`'s rows, moved up by
    `lines` (down when negative), then the margins reset. Lines scrolled in at the bottom are written by a line
    feed at the bottom margin, at the top by a reverse index at the top margin: both as old as the VT100."""

    def __init__(self, update: ChopsUpdate, area: Region, lines: int) -> None:
        super().__init__(update.chops, update.spans, update.chop_ends)
        self.area = area
        self.lines = lines

    def render_segments(self, console: Console) -> str:
        top, bottom = self.area.y + 1, self.area.bottom
        up = self.lines > 0
        scroll = f"\x1b[{bottom};1H" + "\n" * self.lines if up else f"\x1b[{top};1H" + "\x1bM" * -self.lines
        return f"\x1b[{top};{bottom}r{scroll}\x1b[r" + super().render_segments(console)


def _merged(bands: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Row ranges joined where they overlap or touch."""
    merged: list[tuple[int, int]] = []
    for top, bottom in sorted(bands):
        if merged and top <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], bottom))
        else:
            merged.append((top, bottom))
    return merged


def _rows_shown(area: Region, drawn: list[Region]) -> tuple[int, int] | None:
    """The first and past-the-last rows of `area` where some cell is not in `drawn` (None: all of it is)."""
    if not area:
        return None
    above = [other for other in drawn if other.overlaps(area)]
    if not above:
        return area.y, area.bottom
    edges = {area.y, area.bottom}
    for other in above:
        edges.update(y for y in (other.y, other.bottom) if area.y < y < area.bottom)
    bands = sorted(edges)
    first = last = None
    for top, bottom in itertools.pairwise(bands):
        spans = sorted((other.x, other.right) for other in above if other.y <= top and other.bottom >= bottom)
        reach = area.x
        for left, right in spans:
            if left > reach:
                break
            reach = max(reach, right)
        if reach < area.right:
            first = top if first is None else first
            last = bottom
    return None if first is None or last is None else (first, last)
