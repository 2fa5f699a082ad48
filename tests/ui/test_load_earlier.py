"""An opened long session shows its last turns, and a control at the top of the conversation puts the earlier ones
back on screen, a batch at a time, until the first."""

from __future__ import annotations

from pathlib import Path

from chatterm.ui.screens.chat import OPENED_TURNS
from chatterm.ui.widgets.earlier import LoadEarlier
from tests.ui.helpers import app_for, settled, shown_text, wait_for
from tests.ui.test_app import long_session


async def test_load_earlier_turns_brings_back_an_opened_session_s_first_turns(tmp_path: Path) -> None:
    total = OPENED_TURNS * 2 + 5
    path = long_session(tmp_path / "long.yaml", total)
    app = app_for(replay=path, speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        view = screen.conversation_view
        await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
        assert len(screen.messages()) == OPENED_TURNS and view.children[0].id == "earlier"
        assert isinstance(view.children[1], LoadEarlier), "the control is at the top of the conversation"
        view.scroll_home(animate=False)
        assert "Load earlier turns" in shown_text(await settled(pilot))

        await pilot.click("#load-earlier")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 * OPENED_TURNS)
        assert "5 earlier turns" in str(screen._earlier.render())
        assert screen.messages()[0].answer == "answer 5"
        assert screen.messages()[-1].answer == f"answer {total - 1}", "the last turns stay"

        await pilot.click("#load-earlier")
        await wait_for(pilot, lambda: len(screen.messages()) == total)
        assert [message.answer for message in screen.messages()] == [f"answer {n}" for n in range(total)]
        assert not screen.query(LoadEarlier) and not screen.query("#earlier"), "nothing more to load"
        assert "question 0" in shown_text(await settled(pilot)), "the view shows the first turn"


async def test_up_on_the_first_message_shown_loads_the_earlier_turns(tmp_path: Path) -> None:
    """With the keyboard alone a user walks back through a whole opened session: Up on the first message shown puts
    the turns before it on screen and selects the one just above; the button stays for the mouse."""
    total = OPENED_TURNS * 2 + 5
    path = long_session(tmp_path / "long.yaml", total)
    app = app_for(replay=path, speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        view = screen.conversation_view
        await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
        await pilot.press("tab", "home")
        await wait_for(pilot, lambda: view.selected is view.selectable()[0])
        first = view.selected
        await pilot.press("up")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 * OPENED_TURNS)
        await wait_for(pilot, lambda: view.selected is screen.messages()[OPENED_TURNS - 1])
        assert first is not None and view.selected is not None and view.has_focus
        assert view.selectable().index(first) == view.selectable().index(view.selected) + 1
        await settled(pilot)
        assert "answer 24" in shown_text(await settled(pilot)), "the selected answer is in view"
        await pilot.press("home", "up")
        await wait_for(pilot, lambda: len(screen.messages()) == total)
        await pilot.press("home")
        await wait_for(pilot, lambda: view.selected is view.selectable()[0])
        assert getattr(view.selected, "text", None) == "question 0"
        assert not screen.query(LoadEarlier)
        await pilot.press("up")
        await pilot.pause()
        assert view.selected is view.selectable()[0], "nothing above the first turn"
