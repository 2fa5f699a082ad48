"""The dialogs at 80x24, and what the sessions dialog does to a session: rename, archive (and back), delete, and
an empty filter said in words."""

from __future__ import annotations

import os
from pathlib import Path

import vcr
from textual.geometry import Region
from textual.widgets import DataTable, Input, Label

from chatterm import locations
from chatterm.cassette import session_index
from chatterm.cassette.load import load_recording
from chatterm.cassette.store import list_sessions
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.profiles import ProfileScreen
from chatterm.ui.screens.session_prompts import ConfirmDialog, RenameDialog
from chatterm.ui.screens.sessions import SessionsScreen
from tests.test_sessions_index import save, turn
from tests.ui.helpers import app_for, settled, shown_text, wait_for
from tests.ui.test_sessions_list import titles

SMALL = (80, 24)
LONG_MODEL = "meta-llama/Llama-3.3-70B-Instruct-Turbo"


def sessions() -> list[Path]:
    """Three sessions, the newest first in the list."""
    paths = [
        save("a.yaml", turn("the oldest question"), turn("and a follow-up", model="m-2")),
        save("b.yaml", turn("a question about Python", profile="home")),
        save("c.yaml", turn("the newest question", model=LONG_MODEL, profile="together")),
    ]
    for number, path in enumerate(paths):
        os.utime(path, (1767225600 + number * 3600, 1767225600 + number * 3600))
    return paths


async def opened(pilot: object, app: ChatApp) -> SessionsScreen:
    await pilot.press("ctrl+o")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)  # type: ignore[arg-type]
    assert isinstance(app.screen, SessionsScreen)
    return app.screen


async def on_screen(pilot: object) -> str:
    return shown_text(await settled(pilot))  # type: ignore[arg-type]


def inside(inner: Region, outer: Region) -> bool:
    return outer.contains_region(inner)


async def test_the_profile_dialog_fits_a_small_screen_whole() -> None:
    app = app_for()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        screen = app.screen
        await settled(pilot)
        whole = Region(0, 0, *SMALL)
        dialog = screen.query_one("ProfileScreen > Vertical").region
        assert inside(dialog, whole), dialog
        for part in (screen.query_one(Input), screen.query_one(".hint", Label)):
            assert part.region.height and inside(part.region, dialog), (part, part.region, dialog)
        shown = await on_screen(pilot)
        assert "Enter switches · Escape closes" in shown
        assert "no key (OPENROUTER_API_KEY)" in shown, "a row on one line, whole"


async def test_the_sessions_dialog_shows_every_column_on_a_small_screen() -> None:
    sessions()
    app = app_for()
    async with app.run_test(size=SMALL) as pilot:
        dialog = await opened(pilot, app)
        shown = await on_screen(pilot)
        for header in ("Title", "Date", "Profile", "Model", "Turns"):
            assert header in shown, (header, shown)
        table = dialog.query_one(DataTable)
        assert [str(table.get_row_at(row)[-1]) for row in range(3)] == ["1", "1", "2"]
        assert sum(column.get_render_width(table) for column in table.ordered_columns) <= table.size.width
        assert inside(dialog.query_one("SessionsScreen > Vertical").region, Region(0, 0, *SMALL))


async def test_a_session_renamed_keeps_its_name_in_the_file_the_index_and_the_list() -> None:
    a, _, _ = sessions()
    times = os.stat(a).st_mtime_ns
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        assert titles(dialog)[2] == "the oldest question"
        dialog.query_one(DataTable).move_cursor(row=2)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, RenameDialog))
        name = app.screen.query_one(Input)
        assert name.value == "the oldest question"
        name.value = ""
        await pilot.press(*"Trip [/] planning", "enter")
        await wait_for(pilot, lambda: titles(dialog)[2] == "Trip [/] planning")
        assert app.screen is dialog
        await pilot.press("escape")
        dialog = await opened(pilot, app)
        assert titles(dialog) == ["the newest question", "a question about Python", "Trip [/] planning"]
    assert os.stat(a).st_mtime_ns == times, "the session keeps its date and its place"
    index = session_index.SessionIndex(locations.sessions_dir())
    assert index.rows["a.yaml"][1].title == "Trip [/] planning", "the index is in step"
    assert [row.title for row in list_sessions()][2] == "Trip [/] planning"
    recording = load_recording(a)
    assert len(recording.interactions) == 2 and recording.interactions[0].meta["title"] == "Trip [/] planning"
    with vcr.use_cassette(str(a), record_mode="none") as cassette:  # still a cassette vcrpy plays
        assert len(cassette) == 2


async def test_a_session_archived_leaves_the_list_and_comes_back_from_the_archive() -> None:
    _, b, _ = sessions()
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        dialog.query_one(DataTable).move_cursor(row=1)
        await pilot.press("f6")
        await wait_for(pilot, lambda: titles(dialog) == ["the newest question", "the oldest question"])
        archived = locations.sessions_dir() / "archive" / "b.yaml"
        assert archived.exists() and not b.exists()
        assert {row.path.name for row in list_sessions()} == {"a.yaml", "c.yaml"}
        await pilot.press("f7")
        await wait_for(pilot, lambda: dialog.loaded and titles(dialog) == ["a question about Python"])
        assert "Archived sessions" in await on_screen(pilot)
        await pilot.press("f6")
        await wait_for(pilot, lambda: dialog.loaded and not titles(dialog))
        assert "No archived sessions" in await on_screen(pilot)
        await pilot.press("f7")
        await wait_for(pilot, lambda: dialog.loaded and len(titles(dialog)) == 3)
    assert b.exists() and not archived.exists()


async def test_a_session_is_deleted_only_once_the_user_says_yes() -> None:
    _, _, c = sessions()
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "Delete the session 'the newest question'?" in await on_screen(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is dialog)
        assert c.exists() and len(titles(dialog)) == 3
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: titles(dialog) == ["a question about Python", "the oldest question"])
    assert not c.exists()
    assert "c.yaml" not in session_index.SessionIndex(locations.sessions_dir()).rows, "the index is in step"


async def test_a_filter_that_matches_nothing_says_so_and_the_keys_are_shown() -> None:
    sessions()
    app = app_for()
    async with app.run_test(size=SMALL) as pilot:
        dialog = await opened(pilot, app)
        shown = await on_screen(pilot)
        assert "F2 rename · F6 archive · F7 archived · F8 delete" in shown
        await pilot.press(*"xyz")
        await wait_for(pilot, lambda: dialog.query_one(DataTable).row_count == 0)
        assert "No sessions match 'xyz'" in await on_screen(pilot)
        await pilot.press("backspace", "backspace", "backspace", *"python")
        await wait_for(pilot, lambda: titles(dialog) == ["a question about Pyth…"])  # (cut to its column)
        assert "No sessions match" not in await on_screen(pilot)
