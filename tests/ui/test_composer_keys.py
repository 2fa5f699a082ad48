"""Keys meant for the composer reach it: typed after a click moved the focus, or arriving in a burst."""

from __future__ import annotations

from textual import events
from textual.pilot import Pilot

from chatterm.ui.app import ChatApp
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, wait_for


async def burst(pilot: Pilot[None], *keys: str) -> None:
    """Keys sent as a terminal sends a burst (a text expander, a macro, tmux send-keys): all at once, none waiting
    for the one before to be handled."""
    app = pilot.app
    assert app._driver is not None
    for key in keys:
        character = {"ctrl+j": "\n", "left": None}.get(key, key)
        event = events.Key(key, character)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause()


async def composer_ready(pilot: Pilot[None], app: ChatApp) -> None:
    composer = app.chat_screen.composer
    await wait_for(pilot, lambda: composer.has_focus)


async def test_typing_after_a_click_on_the_conversation_goes_to_the_composer(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await composer_ready(pilot, app)
        await pilot.click("#conversation")
        await wait_for(pilot, lambda: not app.chat_screen.composer.has_focus)
        await pilot.press("h", "i")
        assert app.chat_screen.composer.text == "hi"
        assert app.chat_screen.composer.has_focus


async def test_typing_after_a_click_on_a_reasoning_title_goes_to_the_composer(faults: FaultServer) -> None:
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 36)) as pilot:
        await send(pilot, app, "Explain")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        pane = screen.messages()[-1].reasoning_pane
        await pilot.click(pane._title)
        await wait_for(pilot, lambda: not screen.composer.has_focus)
        await pilot.press("o", "k", "space", "!")
        assert screen.composer.text == "ok !"


async def test_ctrl_j_in_a_burst_breaks_the_line_at_the_cursor(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await composer_ready(pilot, app)
        composer = app.chat_screen.composer
        await burst(pilot, *"abc", "left", "ctrl+j", *"xy")
        await wait_for(pilot, lambda: len(composer.text) == 6)
        assert composer.text == "ab\nxyc"


async def test_ctrl_j_in_a_burst_between_characters(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await composer_ready(pilot, app)
        composer = app.chat_screen.composer
        await burst(pilot, *"one", "ctrl+j", *"two", "ctrl+j", *"three")
        await wait_for(pilot, lambda: len(composer.text) == 13)
        assert composer.text == "one\ntwo\nthree"
