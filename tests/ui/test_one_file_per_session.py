"""A conversation is one session file, whatever the sessions dialog does to it while it is open: continued after
Ctrl+O it goes on in its own file, archived (or brought back) it goes on where it now lives, renamed it keeps its
name, deleted it makes way for a new chat; and Ctrl+N keeps a draft."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Input

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.session_files import archive_dir
from chatterm.cassette.store import list_sessions
from chatterm.chat.session import user_text
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.session_prompts import ConfirmDialog, RenameDialog
from chatterm.ui.screens.sessions import SessionsScreen
from tests.faultserver import FaultServer
from tests.test_sessions_index import save, turn
from tests.ui.helpers import app_for, wait_for
from tests.ui.test_prompt_history import asked
from tests.ui.test_session_dialogs import opened
from tests.ui.test_sessions_list import titles


def saved(app: ChatApp) -> None:
    assert app.session is not None and app.session.saver is not None
    assert app.session.saver.flush()


def prompts(path: Path) -> list[str]:
    return [user_text(interaction) for interaction in load_recording(path).interactions]


def every_file() -> list[Path]:
    sessions = locations.sessions_dir()
    return sorted([*sessions.glob("*.yaml"), *archive_dir(sessions).glob("*.yaml")])


async def back_to_the_chat(pilot: object, app: ChatApp) -> None:
    await pilot.press("escape")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen))  # type: ignore[arg-type]


async def test_a_session_opened_and_continued_goes_on_in_its_own_file(faults: FaultServer) -> None:
    path = save("earlier.yaml", turn("the first question"))
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        assert titles(dialog) == ["the first question"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is not None and len(app.session.recorder.interactions) == 1)
        await asked(pilot, app, "a follow-up")
        saved(app)
    assert every_file() == [path], "no second file"
    assert prompts(path) == ["the first question", "a follow-up"]
    ((row),) = list_sessions()
    assert (row.path, row.title, row.turns) == (path, "the first question", 2)


async def test_the_open_chat_archived_goes_on_in_the_archive_and_back(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await asked(pilot, app, "first question")
        saved(app)
        dialog = await opened(pilot, app)
        assert titles(dialog) == ["first question"]
        await pilot.press("f6")
        await wait_for(pilot, lambda: not titles(dialog))
        await back_to_the_chat(pilot, app)
        await asked(pilot, app, "second question")
        saved(app)
        assert list_sessions() == [], "archived: out of the list"
        (archived,) = every_file()
        assert archived.parent == archive_dir(locations.sessions_dir())
        assert prompts(archived) == ["first question", "second question"]
        dialog = await opened(pilot, app)
        await pilot.press("f7")
        await wait_for(pilot, lambda: dialog.loaded and titles(dialog) == ["first question"])
        await pilot.press("f6")
        await wait_for(pilot, lambda: dialog.loaded and not titles(dialog))
        await back_to_the_chat(pilot, app)
        await asked(pilot, app, "third question")
        saved(app)
    (row,) = list_sessions()
    assert every_file() == [row.path] and row.turns == 3
    assert prompts(row.path) == ["first question", "second question", "third question"]


async def test_the_open_chat_renamed_keeps_its_name_as_it_goes_on(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await asked(pilot, app, "first question")
        saved(app)
        await opened(pilot, app)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, RenameDialog))
        app.screen.query_one(Input).value = "Named"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and titles(app.screen) == ["Named"])
        await back_to_the_chat(pilot, app)
        await asked(pilot, app, "second question")
        saved(app)
    (row,) = list_sessions()
    assert (row.title, row.turns) == ("Named", 2)


async def test_the_open_chat_deleted_makes_way_for_a_new_chat_and_stays_deleted(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await asked(pilot, app, "first question")
        saved(app)
        (deleted,) = every_file()
        first = app.chat_screen
        await pilot.press(*"a draft")
        await opened(pilot, app)
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and not titles(app.screen))
        await back_to_the_chat(pilot, app)
        await wait_for(pilot, lambda: app.chat_screen is not first)
        assert not app.chat_screen.messages() and app.chat_screen.composer.text == "a draft"
        app.chat_screen.composer.clear()
        await asked(pilot, app, "a new question")
        saved(app)
    assert not deleted.exists()
    (row,) = list_sessions()
    assert prompts(row.path) == ["a new question"]


async def test_ctrl_n_keeps_the_draft_in_the_composer_of_the_new_chat(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await asked(pilot, app, "first question")
        first = app.chat_screen
        await pilot.press(*"half a thought")
        assert first.composer.text == "half a thought"
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.chat_screen is not first)
        assert not app.chat_screen.messages()
        assert app.chat_screen.composer.text == "half a thought"


async def test_a_session_opened_before_the_app_is_ready_gets_one_chat_that_goes_on_in_its_file(
    faults: FaultServer, monkeypatch: Any
) -> None:
    """Ctrl+O and Enter typed while the app still imports what a request needs (right after start)."""
    path = save("earlier.yaml", turn("the first question"))
    gate = asyncio.Event()
    prepare = ChatApp._prepare

    async def held(app: ChatApp, choice: Any) -> Any:
        await gate.wait()
        return await prepare(app, choice)

    monkeypatch.setattr(ChatApp, "_prepare", held)
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not dialog)
        gate.set()
        await wait_for(pilot, lambda: app.session is not None and len(app.session.recorder.interactions) == 1)
        assert len(app.chat_screen.query("#system-prompt")) == 1
        await asked(pilot, app, "a follow-up")
        saved(app)
    assert every_file() == [path]
    assert prompts(path) == ["the first question", "a follow-up"]


async def test_a_session_going_on_in_another_window_is_not_written_over(faults: FaultServer) -> None:
    """Two windows that continue one session would each write their own snapshot of it over the other's turns: the
    second goes on in a new file, and says so."""
    from chatterm.cassette.store import SessionSaver

    path = save("earlier.yaml", turn("the first question"))
    other = SessionSaver(locations.sessions_dir() / "other-window.yaml")  # (the other window's chat)
    assert other.go_on_in(path) is None
    app = app_for(faults.url("ok"))
    notices: list[str] = []
    app.notify = lambda message, **_: notices.append(str(message))  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await opened(pilot, app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.session is not None and len(app.session.recorder.interactions) == 1)
            await asked(pilot, app, "a follow-up")
            saved(app)
            assert app.session is not None and app.session.saver is not None
            elsewhere = app.session.saver.path
        assert prompts(path) == ["the first question"], "the file the other window goes on in is left to it"
        assert elsewhere != path and prompts(elsewhere) == ["the first question", "a follow-up"]
        assert any("open in another window" in notice for notice in notices), notices
    finally:
        other.close()
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:  # (that window closed: the session is free again)
        dialog = await opened(pilot, app)
        table_rows = titles(dialog)
        assert table_rows.count("the first question") == 2
        await app._open_session(path)
        await wait_for(pilot, lambda: app.session is not None and len(app.session.recorder.interactions) == 1)
        await asked(pilot, app, "later")
        saved(app)
    assert prompts(path) == ["the first question", "later"]
