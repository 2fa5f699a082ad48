"""The sessions dialog (Ctrl+O) over an index and bad files: every good session listed, each bad file marked, the
rows of unchanged files taken from the index."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Label

from chatterm import locations
from chatterm.cassette import session_index, session_rows
from chatterm.cassette.session_rows import SessionInfo
from chatterm.ui.screens.sessions import SessionsScreen
from tests.faultserver import FaultServer
from tests.test_sessions_index import bad_files, save, turn
from tests.ui.helpers import app_for, send, wait_for


def titles(dialog: SessionsScreen) -> list[str]:
    table = dialog.query_one("#sessions", DataTable)
    return [str(table.get_row_at(row)[0]) for row in range(table.row_count)]


async def test_ctrl_o_lists_every_good_session_marks_each_bad_file_and_indexes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = locations.sessions_dir()
    for n in range(5):
        save(f"good{n}.yaml", turn(f"question {n}"))
    bad = bad_files(folder)
    (folder / session_index.INDEX_NAME).unlink()  # as after an upgrade: no index yet
    reads: list[str] = []
    original = session_rows.read_row

    def counted(path: Path, modified: float) -> SessionInfo:
        reads.append(path.name)
        return original(path, modified)

    monkeypatch.setattr(session_index, "read_row", counted)
    app = app_for()
    async with app.run_test(size=(120, 40)) as pilot:
        for round in ("cold", "warm"):
            await pilot.press("ctrl+o")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)
            dialog = app.screen
            assert isinstance(dialog, SessionsScreen)
            shown = titles(dialog)
            assert {f"question {n}" for n in range(5)} <= set(shown), shown
            for name in bad:
                assert f"⚠ {name}: cannot be opened" in shown, (name, shown)
            assert len(shown) == 5 + len(bad)
            if round == "cold":
                regular = {"corrupt.yaml", "bomb.yaml", "huge.yaml", "binary.yaml"}
                assert sorted(reads) == sorted([*[f"good{n}.yaml" for n in range(5)], *regular])
                await wait_for(pilot, lambda: (folder / session_index.INDEX_NAME).exists())
                reads.clear()
            else:
                assert reads == [], "every row from the index (a FIFO, a directory, a dangling link: never read)"
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen))


async def test_thousands_of_sessions_show_the_newest_and_the_filter_finds_any() -> None:
    """A table of thousands of rows takes seconds to lay out: the newest are shown, more when the end of the list is
    reached, and the filter looks in all of them."""
    count = 1000

    def read(path: Path) -> SessionInfo:
        n = int(path.stem)
        return SessionInfo(path, f"question {n}", 1.8e9 - n, "demo", "m", 1)

    app = app_for()
    async with app.run_test(size=(110, 36)) as pilot:
        dialog = SessionsScreen([Path(f"/s/{n}.yaml") for n in range(count)], read)
        await app.push_screen(dialog)
        await wait_for(pilot, lambda: dialog.loaded)
        table = dialog.query_one("#sessions", DataTable)
        shown = SessionsScreen.SHOWN
        assert titles(dialog) == [f"question {n}" for n in range(shown)]
        hint = str(dialog.query_one(".hint", Label).render())
        assert f"{count - shown:,} more below" in hint
        await pilot.press(*"question 987")
        await wait_for(pilot, lambda: titles(dialog) == ["question 987"])
        assert "more below" not in str(dialog.query_one(".hint", Label).render())
        await pilot.press(*["backspace"] * 4)  # "question " matches every one
        await wait_for(pilot, lambda: table.row_count == shown)
        table.focus()
        table.move_cursor(row=shown - 1)
        await wait_for(pilot, lambda: table.row_count == 2 * shown)
        assert titles(dialog)[shown] == f"question {shown}"


async def test_a_chat_turn_is_in_the_index_when_the_list_opens(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    original = session_rows.read_row

    def counted(path: Path, modified: float) -> SessionInfo:
        reads.append(path.name)
        return original(path, modified)

    monkeypatch.setattr(session_index, "read_row", counted)
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, app, "a question [/INST] to index")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert app.session is not None and app.session.saver is not None and app.session.saver.flush()
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)
        assert isinstance(app.screen, SessionsScreen)
        assert titles(app.screen) == ["a question [/INST] to index"]
        assert reads == [], "the row came from the index the session store wrote"


async def test_a_file_whose_reading_fails_is_a_marked_row_and_the_list_goes_on() -> None:
    def read(path: Path) -> SessionInfo:
        if path.stem == "3":
            raise MemoryError("a file too much for this machine")
        return SessionInfo(path, f"question {path.stem}", 1.8e9, "demo", "m", 1)

    app = app_for()
    async with app.run_test(size=(110, 36)) as pilot:
        dialog = SessionsScreen([Path(f"/s/{n}.yaml") for n in range(6)], read)
        await app.push_screen(dialog)
        await wait_for(pilot, lambda: dialog.loaded)
        assert titles(dialog) == [*(f"question {n}" for n in range(3)), "⚠ 3.yaml: cannot be opened"] + [
            f"question {n}" for n in (4, 5)
        ]
