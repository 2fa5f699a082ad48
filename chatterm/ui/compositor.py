"""A compositor that renders only the rows an update repaints.

To repaint part of the screen, Textual's compositor asks every widget that overlaps the changed area for *all* of
its visible lines, then keeps the ones in the changed rows. While an answer streams, a frame changes a line or
two, yet the screen, the conversation, its scrollbar, the message and its text each hand over some 45 lines from
their caches, and each line goes through the app's line filters: five times the work of the lines that change.
This compositor asks each widget only for its lines in the rows being repainted, and not at all for the rows where
the widgets in front of it (drawn first) hide it: a line of the answer hides the message, the conversation and
the screen behind it (a whole-screen repaint, after a layout, skips them too). What reaches the terminal is the same:
a test compares the two line for line.

It overrides `Compositor._get_renders`, a private method: pyproject.toml holds Textual to the 8.2 series.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        drawn: list[Region] = []
        """What the widgets yielded so far draw inside `crop` (front to back: the first to fill a cell wins)."""
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop.overlaps(clip):
                continue
            shown = _rows_shown(region.intersection(clip).intersection(crop), drawn)
            if shown is None:
                continue  # hidden in the rows repainted by what is in front of it
            top, bottom = shown
            rows = clip.intersection(Region(clip.x, top, clip.width, bottom - top))
            visible = region.intersection(rows)
            if visible.width and visible.height:
                lines = Region(visible.x - region.x, visible.y - region.y, visible.width, visible.height)
                drawn.append(visible.intersection(crop))
                yield region, rows, widget.render_lines(lines)


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
