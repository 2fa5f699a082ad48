"""The chat screen's compositor sends the terminal exactly what Textual's sends, rendering fewer lines for it: only
the rows repainted, and not the widgets hidden there by those in front of them."""

from __future__ import annotations

import collections

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from chatterm.ui.app import ChatApp
from chatterm.ui.compositor import RowCompositor, _rows_shown
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, wait_for

WIDTH, HEIGHT = 100, 36


def update_regions() -> list[list[Region]]:
    """The updates a chat screen sees (a line of text, a few, the status line, the scrollbar) and some odd ones."""
    rows = [[Region(0, y, WIDTH, 1)] for y in range(HEIGHT)]
    return [
        *rows,
        [Region(2, 10, 60, 3)],
        [Region(2, 10, 60, 3), Region(99, 0, 1, 34)],
        [Region(0, 33, WIDTH, 1), Region(5, 20, 10, 1)],
        [Region(40, 5, 30, 20)],
        [Region(0, 0, WIDTH, HEIGHT)],
    ]


def painted(compositor: Compositor, regions: list[Region], app: ChatApp) -> str:
    compositor._dirty_regions.clear()
    compositor._dirty_regions.update(regions)
    update = compositor.render_partial_update()
    assert update is not None
    return update.render_segments(app.console)


def compare(app: ChatApp) -> collections.Counter[str]:
    """Every update of `update_regions` painted by both compositors on the screen as it is; lines rendered."""
    screen = app.chat_screen
    ours = screen._compositor
    assert isinstance(ours, RowCompositor)
    screen._refresh_layout()  # (a scroll may be pending while the answer streams: both lay out the screen as it is)
    theirs = Compositor()
    theirs.reflow(screen, screen.size)
    asked: collections.Counter[str] = collections.Counter()
    counting = ""
    render_lines = Widget.render_lines

    def counted(widget: Widget, crop: Region) -> list[Strip]:
        asked[counting] += crop.height
        return render_lines(widget, crop)

    Widget.render_lines = counted  # type: ignore[method-assign]
    try:
        for regions in update_regions():
            counting = "theirs"
            expected = painted(theirs, regions, app)
            counting = "ours"
            assert painted(ours, regions, app) == expected, f"repainting {regions}"
    finally:
        Widget.render_lines = render_lines  # type: ignore[method-assign]
    return asked


async def test_partial_repaints_match_textuals_compositor(faults: FaultServer) -> None:
    faults.gap = 0.02
    app = app_for(faults.url("think"))
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await send(pilot, app, "Explain")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        app.session.choice.endpoint.base_url = faults.url("lines")  # type: ignore[union-attr]
        await send(pilot, app, "Again")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 and screen.messages()[-1].markdown.line_count > 60)
        assert screen.conversation_view.scroll_y > 0, "scrolled: the widgets are clipped"
        streaming = compare(app)
        await wait_for(pilot, lambda: screen.messages()[-1].finished)
        await pilot.pause()
        finished = compare(app)
    for asked in (streaming, finished):
        assert asked["ours"] * 10 < asked["theirs"], f"lines rendered: {asked}"


def test_rows_hidden_by_what_is_in_front() -> None:
    area = Region(0, 0, 10, 6)
    assert _rows_shown(area, []) == (0, 6)
    assert _rows_shown(area, [Region(0, 0, 10, 6)]) is None
    assert _rows_shown(area, [Region(0, 0, 9, 6), Region(9, 0, 1, 6)]) is None, "side by side, they hide it"
    assert _rows_shown(area, [Region(0, 0, 8, 6), Region(9, 0, 1, 6)]) == (0, 6), "a column shows between them"
    assert _rows_shown(area, [Region(0, 0, 10, 2), Region(0, 4, 10, 2)]) == (2, 4)
    assert _rows_shown(area, [Region(0, 1, 10, 4)]) == (0, 6), "the first and last rows show"
    assert _rows_shown(area, [Region(0, 2, 10, 9)]) == (0, 2)
    assert _rows_shown(Region(0, 0, 0, 0), []) is None
