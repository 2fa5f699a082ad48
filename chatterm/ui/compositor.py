"""A compositor that renders only the rows an update repaints.

To repaint part of the screen, Textual's compositor asks every widget that overlaps the changed area for *all* of
its visible lines, then keeps the ones in the changed rows. While an answer streams, a frame changes a line or
two, yet the screen, the conversation, its scrollbar, the message and its text each hand over some 45 lines from
their caches, and each line goes through the app's line filters: five times the work of the lines that change.
This compositor asks each widget only for its lines in the rows being repainted; what reaches the terminal is the
same (a test compares the two line for line). A full repaint (a layout, a scroll) is unchanged.

It overrides `Compositor._get_renders`, a private method: pyproject.toml holds Textual to the 8.2 series.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        top, bottom = crop.y, crop.bottom
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop.overlaps(clip):
                continue
            rows = clip.intersection(Region(clip.x, top, clip.width, bottom - top))
            visible = region.intersection(rows)
            if visible.width and visible.height:
                lines = Region(visible.x - region.x, visible.y - region.y, visible.width, visible.height)
                yield region, rows, widget.render_lines(lines)
