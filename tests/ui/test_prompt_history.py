"""Up and Down in the composer walk the prompts sent before: in a new chat (Ctrl+N) and after a restart too."""

from __future__ import annotations

from textual.pilot import Pilot

from chatterm.settings.prompts import history_file
from chatterm.ui.app import ChatApp
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, wait_for


async def asked(pilot: Pilot[None], app: ChatApp, text: str) -> None:
    count = len(app.chat_screen.messages())
    await send(pilot, app, text)
    await wait_for(pilot, lambda: len(app.chat_screen.messages()) > count and app.chat_screen.messages()[-1].finished)


async def test_prompts_sent_are_there_in_a_new_chat(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await asked(pilot, app, "first question")
        await asked(pilot, app, "second question")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: not app.chat_screen.messages() and app.chat_screen.composer.has_focus)
        composer = app.chat_screen.composer
        await pilot.press("up")
        assert composer.text == "second question"
        await pilot.press("up")
        assert composer.text == "first question"


async def test_prompts_sent_are_there_after_a_restart(faults: FaultServer) -> None:
    first = app_for(faults.url("ok"))
    async with first.run_test(size=(100, 30)) as pilot:
        await asked(pilot, first, "asked yesterday")
    first.prompt_history.settle()
    again = app_for(faults.url("ok"))
    async with again.run_test(size=(100, 30)) as pilot:
        composer = again.chat_screen.composer
        await wait_for(pilot, lambda: composer.has_focus)
        await pilot.press("up")
        assert composer.text == "asked yesterday"


async def test_a_corrupt_history_file_is_ignored(faults: FaultServer) -> None:
    history_file().parent.mkdir(parents=True, exist_ok=True)
    history_file().write_bytes(b'{"prompts": ["unfinished')
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.chat_screen.composer
        await wait_for(pilot, lambda: composer.has_focus)
        await pilot.press("up")
        assert composer.text == ""
        await asked(pilot, app, "still works")
        await pilot.press("up")
        assert composer.text == "still works"
        assert not list(app._notifications), "nothing to tell"
    app.prompt_history.settle()
    assert "still works" in history_file().read_text()
