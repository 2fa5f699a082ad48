"""The chat screen's compositor sends the terminal exactly what Textual's sends, rendering fewer lines for it: only
the rows repainted, and not the widgets hidden there by those in front of them; it and the dialogs' mend a slip of
Textual's after a scroll."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pyte
from textual._compositor import Compositor, CompositorUpdate
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable, Input
from textual.widgets._toast import Toast

from chatterm.cassette.store import SessionInfo
from chatterm.ui.app import ChatApp
from chatterm.ui.render.compositor import RowCompositor, ScrolledUpdate, _rows_shown
from chatterm.ui.screens.sessions import SessionsScreen
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

    Widget.render_lines = counted  # type: ignore[method-assign, assignment]
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
        app.session.client.endpoint.base_url = faults.url("lines")  # type: ignore[union-attr]
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


class Emulator:
    """A terminal (pyte) that the app's updates are played into, compared after each with a whole-screen render.

    A row may differ for one update when a widget changed after the update was drawn (its repaint is on its way to
    the screen): the next update draws it. A row that differs the same way after two updates in a row (where it is,
    or moved by a scroll) was drawn wrong and left so."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app
        self.terminal = pyte.Screen(WIDTH, HEIGHT)
        self.stream = pyte.Stream(self.terminal)
        self.updates: collections.Counter[str] = collections.Counter()
        self.scrolls: list[int] = []
        """Lines the terminal was scrolled by, update by update (up: positive)."""
        self.bar_rows: list[int] = []
        """Rows of the last column (the conversation's scrollbar) repainted, terminal scroll by terminal scroll."""
        self.checking = False
        """Whether to compare the screens (from when the app has settled after its start)."""
        self.screen: Screen[Any] | None = None
        """The screen compared, while it is on top (None: the chat screen)."""
        self.differing: set[tuple[str, str]] = set()
        """The rows that differed after the last update: the terminal's and the whole render's."""
        self.mismatches: list[str] = []

    def play(self, update: CompositorUpdate) -> None:
        self.updates[type(update).__name__] += 1
        if isinstance(update, ScrolledUpdate):
            self.scrolls.append(update.lines)
            self.bar_rows.append(len({y for y, _, x2 in update.spans if x2 >= WIDTH}))
        self.stream.feed(update.render_segments(self.app.console))
        screen = self.screen or self.app.chat_screen
        if not self.checking or self.app.screen is not screen:
            return
        reference = self.whole(screen)
        differing = {y: (row(self.terminal, y), row(reference, y)) for y in range(HEIGHT)}
        differing = {y: pair for y, pair in differing.items() if pair[0] != pair[1]}
        if left := [y for y, pair in differing.items() if pair in self.differing]:
            self.mismatches.append(
                f"after a {type(update).__name__} (update {sum(self.updates.values())}), rows {left} are wrong: "
                + "; ".join(f"{self.terminal.display[y]!r} != {reference.display[y]!r}" for y in left[:2])
            )
        self.differing = set(differing.values())

    def whole(self, screen: Screen[Any]) -> pyte.Screen:
        """The screen as laid out, drawn whole."""
        reference = pyte.Screen(WIDTH, HEIGHT)
        pyte.Stream(reference).feed(screen._compositor.render_full_update().render_segments(self.app.console))
        return reference

    def stale_rows(self, screen: Screen[Any]) -> list[str]:
        """The rows the terminal shows otherwise than a whole render draws them (once the screen has settled)."""
        reference = self.whole(screen)
        return [self.terminal.display[y] for y in range(HEIGHT) if row(self.terminal, y) != row(reference, y)]


def row(terminal: pyte.Screen, y: int) -> str:
    """A row's characters and their attributes."""
    return repr([terminal.buffer[y][x] for x in range(WIDTH)])


def played_into(app: ChatApp) -> Emulator:
    """An emulator that every update of the app's top screen is played into, from the first frame."""
    emulator = Emulator(app)
    display = app._display

    def played(screen: Screen[Any], renderable: Any) -> None:
        if isinstance(renderable, CompositorUpdate) and screen is app.screen:
            emulator.play(renderable)  # (a dialog's updates too: they reach the terminal)
        display(screen, renderable)

    app._display = played  # type: ignore[method-assign]
    return emulator


async def test_the_terminal_scrolls_the_conversation_and_shows_what_a_whole_render_draws(faults: FaultServer) -> None:
    """Every update of the screen, from the first frame, is played into a terminal emulator while an answer streams
    and the conversation follows it by scrolling the terminal, a notification shows over it, the reader scrolls up
    and back down, and a dialog opens and closes over it; after each update, the emulator shows what a whole-screen
    render of the app draws."""
    faults.gap = 0.02
    app = app_for(faults.url("lines"))
    emulator = played_into(app)
    async with app.run_test(size=(WIDTH, HEIGHT), notifications=True) as pilot:
        await pilot.pause()
        emulator.checking = True
        await send(pilot, app, "Lines")
        screen = app.chat_screen
        view = screen.conversation_view
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].markdown.line_count > 80)
        app.notify("A notification tall enough to lie over the conversation while it scrolls. " * 6, timeout=1)
        await wait_for(pilot, lambda: screen.messages()[-1].markdown.line_count > 120)
        view.scroll_relative(y=-5, animate=False)  # the reader scrolls up while the answer streams
        await pilot.pause(0.2)
        view.scroll_relative(y=3, animate=False)
        await pilot.press("ctrl+o")  # a dialog over the chat while the answer goes on under it
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.pause(0.3)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(pilot, lambda: screen.messages()[-1].finished)
        for lines in (-4, -9, 2, 11):  # and once it ended (the terminal scrolls down, then up)
            await pilot.pause(0.1)
            view.scroll_relative(y=lines, animate=False)
        for _ in range(2):  # (two more updates: rows left wrong by the last ones would still differ)
            await pilot.pause(0.1)
            screen.status.refresh()
        await pilot.pause(0.1)
    assert not emulator.mismatches, emulator.mismatches[:5]
    assert any(lines > 0 for lines in emulator.scrolls), "the terminal scrolled up as the answer grew"
    assert any(lines < 0 for lines in emulator.scrolls), "and down as the reader scrolled up"
    assert min(emulator.bar_rows) < HEIGHT // 2, "a scroll repaints the rows of the scrollbar it changed, not all"


async def test_what_changes_between_a_scroll_and_the_next_layout_is_repainted(faults: FaultServer) -> None:
    """After a scroll, Textual arranges the whole screen again when something asks where a widget is, and compares
    the next layout with that arrangement: a notification removed in between stayed on the terminal (and, under a
    dialog, lines of the answer scrolled meanwhile stayed stale). With Textual's own compositor too. The emulator
    test above met it now and then under load; here the steps come in that order every time."""
    faults.gap = 0.0
    app = app_for(faults.url("lines"))
    emulator = played_into(app)
    async with app.run_test(size=(WIDTH, HEIGHT), notifications=True) as pilot:
        await send(pilot, app, "Lines")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        app.notify("A notification tall enough to lie over the conversation. " * 6, timeout=60)
        await wait_for(pilot, lambda: bool(app.screen.query(Toast)))
        await pilot.pause(0.1)
        emulator.checking = True
        view = screen.conversation_view
        view.scroll_relative(y=-3, animate=False)
        screen._refresh_layout(scroll=True)  # the scroll, drawn now: Textual arranged only what shows
        toast = screen.query_one(Toast)
        assert toast.region.overlaps(view.region), "the notification lies over the conversation"
        await toast.remove()  # (removing it asks where widgets are: Textual arranges again, before the layout)
        for _ in range(3):
            await pilot.pause(0.1)
            screen.status.refresh()
        await pilot.pause(0.1)
    assert not emulator.mismatches, emulator.mismatches[:5]
    assert emulator.updates, "updates were played"


async def test_a_dialog_repaints_what_a_scroll_and_the_next_layout_leave() -> None:
    """The same slip on a dialog: a notification removed after the sessions list scrolled stayed on the terminal."""
    app = app_for()
    emulator = played_into(app)
    paths = [Path(f"/s/{n}.yaml") for n in range(80)]

    def read(path: Path) -> SessionInfo:
        n = int(path.stem)
        return SessionInfo(path, f"session {n}", 1.8e9 - n, "demo", "m", n)

    async with app.run_test(size=(WIDTH, HEIGHT), notifications=True) as pilot:
        await app.chat_screen.ready()
        await pilot.pause(0.2)  # (the app settled: nothing under the dialog changes)
        dialog = SessionsScreen(paths, read)
        await app.push_screen(dialog)
        await wait_for(pilot, lambda: dialog.loaded)
        app.notify("A notification tall enough to lie over the sessions. " * 6, timeout=60)
        await wait_for(pilot, lambda: bool(dialog.query(Toast)))
        dialog.query_one(Input).cursor_blink = False  # (nothing but the steps below changes the screen)
        await pilot.pause(0.1)
        emulator.screen, emulator.checking = dialog, True
        table = dialog.query_one(DataTable)
        table.scroll_relative(y=3, animate=False)
        dialog._refresh_layout(scroll=True)  # the scroll, drawn now: Textual arranged only what shows
        toast = dialog.query_one(Toast)
        assert toast.region.overlaps(table.region), "the notification lies over the list"
        await toast.remove()
        for _ in range(3):
            await pilot.pause(0.1)
            dialog.query_one(".hint").refresh()
        await pilot.pause(0.1)
        assert not emulator.stale_rows(dialog), emulator.stale_rows(dialog)[:3]
    assert not emulator.mismatches, emulator.mismatches[:5]
