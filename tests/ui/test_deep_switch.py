"""Switching branch high in a long conversation: a window of the branch below is drawn from the switched message
down, in the frame of the key, and a control at the end brings the rest a window at a time (Down on the last
message, or a click); a prompt sent goes under the branch's end and shows it; export writes the whole branch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from chatterm import locations
from chatterm.ui.app import ChatApp
from chatterm.ui.screens import earlier_turns
from chatterm.ui.screens.below import WINDOW
from chatterm.ui.widgets.later import LoadLater
from chatterm.ui.widgets.messages import UserMessage
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, settled, shown_text, wait_for
from tests.ui.oracle import quiet
from tests.ui.test_load_earlier import two_branches
from tests.ui.test_oracle import checked
from tests.ui.test_tree_keys import shown

DEEP = 45
"""Turns of each branch: windows below the switch, and all of them on screen at once before it (fewer than the view
keeps)."""


def answers(app: ChatApp) -> list[str]:
    return [text for kind, text, _ in shown(app) if kind == "answer"]


def branch(name: str, turns: int = DEEP) -> list[str]:
    """The answers of a branch of `two_branches`: "answer" the first, "ANSWER" the second (the active one)."""
    return ["answer 0", *(f"{name} {turn}" for turn in range(1, turns))]


def drawn_frames(app: ChatApp) -> list[list[str]]:
    """The answers mounted at each frame the app draws from now on."""
    frames: list[list[str]] = []
    display = app._display

    def drawing(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if screen is app.chat_screen:
            frames.append(answers(app))

    app._display = drawing  # type: ignore[method-assign]
    return frames


async def opened_whole(pilot: Pilot[None], app: ChatApp) -> None:
    """The session opened, every turn on screen, the second answer (where the branches part) selected."""
    screen = app.chat_screen
    await wait_for(pilot, lambda: screen.session is not None and bool(screen.session.tree.nodes) and not screen.busy)
    while await earlier_turns.load(screen):
        pass
    await wait_for(pilot, lambda: answers(app) == branch("ANSWER"))
    view = screen.conversation_view
    view.focus()
    view.select(screen.messages()[1])
    await pilot.pause()


async def test_a_switch_high_in_a_long_branch_draws_a_window_of_it_and_down_brings_the_rest(tmp_path: Path) -> None:
    app = app_for(replay=two_branches(tmp_path / "deep.yaml", DEEP), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened_whole(pilot, app)
        screen = app.chat_screen
        view = screen.conversation_view
        frames = drawn_frames(app)
        await pilot.press("left")
        await wait_for(pilot, lambda: answers(app)[1:2] == ["answer 1"])
        await quiet(pilot)
        assert answers(app) == branch("answer")[: WINDOW + 1], "the switched answer and a window of the branch below it"
        first = next(frame for frame in frames if frame[1:2] == ["answer 1"])
        assert len(first) == WINDOW + 1, "the frame that shows the switch shows the window whole"
        assert view.selected is screen.messages()[1] and view.selected.region.overlaps(view.region)
        left = DEEP - 1 - WINDOW
        view.scroll_end(animate=False)
        assert f"Load later turns ({left} not shown)" in shown_text(await settled(pilot))

        await pilot.press("end", "down")
        await wait_for(pilot, lambda: len(answers(app)) == 2 * WINDOW + 1)
        selected = view.selected
        assert isinstance(selected, UserMessage) and selected.text == f"question {WINDOW + 1}", "Down goes on"
        view.scroll_end(animate=False)
        await settled(pilot)
        await pilot.click("#load-later")
        await wait_for(pilot, lambda: answers(app) == branch("answer"))
        assert not screen.query(LoadLater), "nothing more to load"
        assert [text for kind, text, _ in shown(app) if kind == "user"] == [f"question {turn}" for turn in range(DEEP)]


async def test_a_switch_made_while_the_branch_below_is_drawn_leaves_only_its_own(tmp_path: Path) -> None:
    app = app_for(replay=two_branches(tmp_path / "deep.yaml", DEEP), speed="instant", save_sessions=False)

    async def back_and_forth(pilot: Pilot[None], app: ChatApp) -> None:
        await opened_whole(pilot, app)
        await pilot.press("left", "right", "left")
        await wait_for(pilot, lambda: answers(app) == branch("answer")[: WINDOW + 1])
        app.chat_screen.conversation_view.scroll_end(animate=False)
        await settled(pilot)
        await pilot.click("#load-later")
        await wait_for(pilot, lambda: len(answers(app)) == 2 * WINDOW + 1)

    await checked(app, back_and_forth)


async def test_a_prompt_sent_after_a_switch_high_up_goes_under_the_branch_s_end_and_shows_it(
    faults: FaultServer, tmp_path: Path
) -> None:
    app = app_for(faults.url("ok"), replay=two_branches(tmp_path / "deep.yaml", DEEP), speed="instant")
    async with app.run_test(size=(100, 30)) as pilot:
        await opened_whole(pilot, app)
        screen = app.chat_screen
        await pilot.press("left", "escape", *"and now?", "enter")
        await wait_for(pilot, lambda: len(faults.seen) == 1)
        sent: list[Any] = faults.seen[-1].body["messages"]
        assert [m["content"] for m in sent if m["role"] == "assistant"] == branch("answer")
        await wait_for(pilot, lambda: screen.messages()[-1].finished and shown(app)[-2][1] == "and now?")
        assert answers(app)[:-1] == branch("answer")[-WINDOW:], "the end of the branch, as an opened session shows it"
        assert not screen.query(LoadLater)
        screen.conversation_view.scroll_home(animate=False)
        top = shown_text(await settled(pilot))
        assert f"{DEEP - WINDOW} earlier turns" in top and "Load earlier turns" in top, "the earlier ones behind it"


async def test_export_after_a_switch_high_up_writes_the_whole_branch(tmp_path: Path) -> None:
    app = app_for(replay=two_branches(tmp_path / "deep.yaml", DEEP), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened_whole(pilot, app)
        await pilot.press("left", "ctrl+e")
        exports = locations.data_dir() / "exports"
        await wait_for(pilot, lambda: exports.is_dir() and any(exports.iterdir()))
        (path,) = exports.iterdir()
        text = path.read_text()
        assert all(f"answer {turn}\n" in text for turn in range(1, DEEP)) and "ANSWER 2" not in text
