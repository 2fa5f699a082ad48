"""A continued answer on screen is one answer: `c` on a DeepSeek profile streams the rest after the partial text
(asked by prefix completion), and a session holding a continuation, opened from disk or replayed at its pace, shows
the partial answer and its continuation joined, as the live chat did."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.screens import branches
from chatterm.ui.screens.chat import OPENED_TURNS
from chatterm.ui.widgets.earlier import LoadEarlier
from chatterm.ui.widgets.messages import AssistantMessage
from tests.branching_fake import FakeProvider, answer, fake_session
from tests.scripted import ScriptedServer, cut_by_length, sse_script
from tests.test_continue_native import preset_choice
from tests.ui.helpers import app_for, settled, wait_for
from tests.ui.oracle import Oracle, screen_text
from tests.ui.test_tree_keys import answered, select, shown, talk


def deepseek(scripted: ScriptedServer) -> ChatApp:
    return ChatApp(load_settings(), preset_choice("deepseek", scripted.url))


async def continue_first(pilot: Pilot[None], app: ChatApp, scripted: ScriptedServer) -> None:
    """Ask, then press `c` on the answer, until the continuation is asked for."""
    await talk(pilot, app, "go")
    await select(pilot, app, 1)
    await pilot.press("c")
    await wait_for(pilot, lambda: len(scripted.requests) == 2)


async def test_c_on_deepseek_asks_by_prefix_completion_and_shows_one_answer(scripted: ScriptedServer) -> None:
    scripted.answers = [cut_by_length("The first half"), sse_script(" and the rest.")]
    app = deepseek(scripted)
    async with app.run_test(size=(80, 24)) as pilot:
        await continue_first(pilot, app, scripted)
        await answered(pilot, app, 1)
        assert scripted.paths[1] == "/beta/chat/completions"
        assert scripted.requests[1]["messages"] == [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "The first half", "prefix": True},
        ]
        assert shown(app) == [("user", "go", None), ("answer", "The first half and the rest.", None)]


async def test_a_continuation_that_adds_nothing_says_so(scripted: ScriptedServer) -> None:
    """A server that answers `c` with the partial answer again (an echo) and stops there adds nothing once the repeat
    is taken off: the answer says so, rather than looking as if `c` did nothing."""
    scripted.answers = [cut_by_length("The first half"), cut_by_length("The first half")]
    app = deepseek(scripted)
    async with app.run_test(size=(80, 24)) as pilot:
        await continue_first(pilot, app, scripted)
        await answered(pilot, app, 1)
        await settled(pilot)
        assert shown(app) == [("user", "go", None), ("answer", "The first half", None)]
        assert "The continuation added nothing" in screen_text(app)


async def test_the_answer_stays_on_screen_while_its_continuation_repeats_it(scripted: ScriptedServer) -> None:
    """While the continuation thinks again and repeats the partial answer (held back until it is known to be a
    repeat), the partial answer stays on the terminal: the conversation followed the reasoning pane's text, closed
    and so of no lines, and showed the room under the answer, blank, for as long as the repeat took."""
    partial = "".join(f"Line {n} of the partial answer.\n\n" for n in range(30))
    words = [len(partial) * k // 20 for k in range(1, 20)]
    again = sse_script(partial + "The rest.", reasoning="Thinking again.", answer_cuts=words, gaps=(0.1,))
    scripted.answers = [cut_by_length(partial, reasoning="Thinking."), again]
    app = deepseek(scripted)
    oracle = Oracle(app, checks_per_update=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await continue_first(pilot, app, scripted)
        for _ in range(8):
            await pilot.pause(0.2)
            drawn = "\n".join(oracle.terminal.display)
            assert "Line 29 of the partial answer." in drawn, drawn
        await answered(pilot, app, 1)
        assert shown(app)[-1][1].endswith("Line 29 of the partial answer.\n\nThe rest.")


async def continued_session(path: Path) -> None:
    """one (cut short, then continued) > two."""
    provider = FakeProvider()
    session = fake_session(provider, path)
    session.add_prompt("one")
    provider.cut_next = True
    await answer(session)
    session.continue_answer(session.tree.turns()[0].last)
    await answer(session)
    session.add_prompt("two")
    await answer(session)
    await session.aclose()


@pytest.mark.parametrize("speed", ["instant", "4x"])
async def test_an_opened_session_shows_a_continued_answer_as_one(tmp_path: Path, speed: str) -> None:
    path = tmp_path / "continued.yaml"
    await continued_session(path)
    app = app_for(replay=path, speed=speed, save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen

        def finished() -> bool:
            children = list(screen.conversation_view.children)
            return bool(children) and "Replay finished" in str(children[-1].render())

        await wait_for(pilot, finished)
        await wait_for(pilot, lambda: screen.session is not None and bool(screen.session.tree.nodes))
        assert shown(app) == [
            ("user", "one", None),
            ("answer", "answer 1answer 2", None),
            ("user", "two", None),
            ("answer", "answer 3", None),
        ]
        assert "cut short" not in screen_text(app)
        assert [turn.answer for turn in screen.turns] == ["answer 1answer 2", "answer 3"]
        first = screen.query(AssistantMessage).first()
        turn = branches.turn_of(screen, first)
        assert turn is not None and turn.ids == ("1", "2")


async def test_load_earlier_puts_back_a_continued_answer_once(tmp_path: Path) -> None:
    """The turns not shown are counted as exchanges until the session's history is read, then as turns: "Load
    earlier turns" brings back each turn once, the continued one joined."""
    provider = FakeProvider()
    path = tmp_path / "long.yaml"
    session = fake_session(provider, path)
    session.add_prompt("one")
    provider.cut_next = True
    await answer(session)
    session.continue_answer(session.tree.turns()[0].last)
    await answer(session)
    for number in range(OPENED_TURNS + 1):
        session.add_prompt(f"question {number}")
        await answer(session)
    await session.aclose()
    app = app_for(replay=path, speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await wait_for(pilot, lambda: screen.session is not None and len(screen.session.tree.nodes) == 23)
        screen.conversation_view.scroll_home(animate=False)
        await settled(pilot)
        await pilot.click("#load-earlier")
        await wait_for(pilot, lambda: not screen.query(LoadEarlier))
        answers = [message.answer for message in screen.messages()]
        assert answers == ["answer 1answer 2", *[f"answer {n}" for n in range(3, OPENED_TURNS + 4)]]
