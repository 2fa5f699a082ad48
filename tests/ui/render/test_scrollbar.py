"""The conversation's scrollbar draws what Textual's draws, and a scroll repaints only the rows it changes."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widgets import Static

from chatterm.ui.render.scrollbar import RowScrollBar
from chatterm.ui.widgets.conversation import ConversationView

TEXT = "\n".join(f"line {n}" for n in range(300))


class Host(App[None]):
    CSS = "VerticalScroll { width: 1fr; height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield ConversationView(id="ours")
        yield VerticalScroll(id="textual")

    async def on_mount(self) -> None:
        for view in self.query(VerticalScroll):
            await view.mount(Static(TEXT))


def drawn(bar: ScrollBar) -> list[Strip]:
    return bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))


async def test_the_bar_matches_textuals_at_every_position() -> None:
    app = Host()
    async with app.run_test(size=(40, 30)) as pilot:
        ours, theirs = app.query_one("#ours", VerticalScroll), app.query_one("#textual", VerticalScroll)
        ours.anchor(False)
        await pilot.pause()
        assert isinstance(ours.vertical_scrollbar, RowScrollBar)
        assert type(theirs.vertical_scrollbar) is ScrollBar
        for y in [0, 1, 2, 3, 5, 8, 13, 40, 100, 150, 271, 272, 285]:
            ours.scroll_to(y=y, animate=False)
            theirs.scroll_to(y=y, animate=False)
            await pilot.pause()
            assert ours.scroll_y == theirs.scroll_y
            assert drawn(ours.vertical_scrollbar) == drawn(theirs.vertical_scrollbar), f"at {y}"
        ours.vertical_scrollbar.mouse_over = theirs.vertical_scrollbar.mouse_over = True  # the hover colours
        await pilot.pause()
        assert drawn(ours.vertical_scrollbar) == drawn(theirs.vertical_scrollbar)


async def test_a_scroll_repaints_only_the_rows_that_change() -> None:
    app = Host()
    async with app.run_test(size=(40, 30)) as pilot:
        view = app.query_one("#ours", ConversationView)
        view.anchor(False)
        view.scroll_to(y=100, animate=False)
        await pilot.pause()
        bar = view.vertical_scrollbar
        drawn(bar)
        bar.position = 104  # as the view sets it in its next frame: the thumb moves by less than a row
        assert [region.height for region in bar._dirty_regions] == [2], "the rows of the thumb's two ends"
