"""Keys typed in a burst (a text expander, a macro, tmux send-keys) into the sessions filter and the command
palette's search take effect in the order typed, and the list's keys work from the sessions filter."""

from __future__ import annotations

import threading
from typing import Any

from textual import events
from textual.command import CommandInput, CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from chatterm.cassette.session_index import SessionIndex
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.sessions import SessionsScreen
from tests.ui.helpers import app_for, wait_for
from tests.ui.test_session_dialogs import opened, sessions
from tests.ui.test_sessions_list import titles

CHARACTERS = {"space": " "}


async def burst(pilot: Pilot[None], *keys: str) -> None:
    """Keys as a terminal sends a burst: all at once, none waiting for the one before to be handled."""
    app = pilot.app
    assert app._driver is not None
    for key in keys:
        character = key if len(key) == 1 else CHARACTERS.get(key)
        event = events.Key(key, character)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause()


async def chat_ready(pilot: Pilot[None], app: ChatApp) -> None:
    await wait_for(pilot, lambda: app.session is not None and app.chat_screen.composer.has_focus)


async def test_a_burst_after_ctrl_o_filters_moves_and_opens_in_the_order_typed(monkeypatch: Any) -> None:
    """The burst comes before the list's rows are read: the move waits for them."""
    sessions()
    gate = threading.Event()
    read = SessionIndex.row
    monkeypatch.setattr(SessionIndex, "row", lambda index, path: gate.wait(10) and read(index, path))
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_ready(pilot, app)
        await burst(pilot, "ctrl+o", *"questiin", "left", "backspace", "o", "down")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        dialog = app.screen
        assert isinstance(dialog, SessionsScreen)
        await wait_for(pilot, lambda: dialog.query_one(Input).value == "question")
        assert not dialog.loaded
        gate.set()
        await wait_for(pilot, lambda: dialog.loaded)
        assert app.chat_screen.composer.text == "", "no key went to the composer"
        await wait_for(pilot, lambda: len(titles(dialog)) == 3)
        highlighted = dialog.highlighted()
        assert highlighted is not None and highlighted.title == "a question about Python", "Down moved the list"
        await burst(pilot, "down", "up", "up", "down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen) and bool(app.chat_screen.turns))
        assert [turn.prompt for turn in app.chat_screen.turns] == ["a question about Python"]


async def test_up_and_down_in_the_sessions_filter_move_the_list_and_enter_opens() -> None:
    sessions()
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        table = dialog.query_one(DataTable)
        assert dialog.query_one(Input).has_focus
        await pilot.press("down", "down")
        assert table.cursor_row == 2 and dialog.query_one(Input).has_focus
        await pilot.press("up")
        assert table.cursor_row == 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen) and bool(app.chat_screen.turns))
        assert [turn.prompt for turn in app.chat_screen.turns] == ["a question about Python"]


async def test_a_burst_into_the_palette_search_is_edited_in_the_order_typed() -> None:
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_ready(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        search = app.screen.query_one(CommandInput)
        await wait_for(pilot, lambda: search.has_focus)
        await burst(pilot, *"helx", "backspace", "p", "home", "z", "end", "space", "m", "left", "backspace")
        await wait_for(pilot, lambda: search.value.endswith("m"))
        assert search.value == "zhelpm"
