"""An opened long session shows its last turns, and a control at the top of the conversation puts the earlier ones
back on screen, a batch at a time, until the first."""

from __future__ import annotations

import json
from pathlib import Path

from chatterm.ui.screens.below import WINDOW
from chatterm.ui.screens.chat import MAX_MOUNTED_TURNS, OPENED_TURNS
from chatterm.ui.widgets.earlier import LoadEarlier
from chatterm.ui.widgets.later import LoadLater
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


def two_branches(path: Path, turns: int) -> Path:
    """Two branches of `turns` turns that part at the second turn (its answer asked again): `answer N` on the first,
    `ANSWER N` on the second, the active one."""
    from chatterm.cassette.model import Interaction, Recording, Request, Response
    from chatterm.cassette.write import render

    def exchange(history: list[dict[str, str]], answer: str, node: str, parent: str | None) -> Interaction:
        chunk = {"choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        sent = json.dumps({"messages": history}).encode()
        request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=sent)
        response = Response(200, {"content-type": ["text/event-stream"]}, body)
        return Interaction(request, response, {"id": node, "parent": parent})

    first = [{"role": "user", "content": "question 0"}]
    interactions = [exchange(first, "answer 0", "1", None)]
    for branch in ("answer", "ANSWER"):
        history, parent = [*first, {"role": "assistant", "content": "answer 0"}], "1"
        for turn in range(1, turns):
            history.append({"role": "user", "content": f"question {turn}"})
            node = str(len(interactions) + 1)
            interactions.append(exchange(history, f"{branch} {turn}", node, parent))
            history, parent = [*history, {"role": "assistant", "content": f"{branch} {turn}"}], node
    path.write_bytes(render(Recording("vcr", interactions)))
    return path


async def test_turns_loaded_earlier_show_their_branches_and_switch_there(tmp_path: Path) -> None:
    """The turns Up (or the button) puts back on screen show `‹ 2/2 ›` where they have siblings, and Left switches
    there as on the turns opened first."""
    total = OPENED_TURNS + 5
    app = app_for(replay=two_branches(tmp_path / "two.yaml", total), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        view = screen.conversation_view
        await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
        await pilot.press("tab", "home", "up")
        await wait_for(pilot, lambda: len(screen.messages()) == total)
        second = screen.messages()[1]
        assert second.answer == "ANSWER 1"
        await wait_for(pilot, lambda: second.branch == (2, 2))
        await pilot.press("home", "down", "down", "down")
        await wait_for(pilot, lambda: view.selected is second)
        await pilot.press("left")
        await wait_for(pilot, lambda: screen.messages()[1].answer == "answer 1" and not screen.busy)
        assert screen.messages()[1].branch == (1, 2)
        assert screen.messages()[-1].answer == f"answer {WINDOW}", "a window of the branch below follows"
        await pilot.press("end", "down")
        await wait_for(pilot, lambda: screen.messages()[-1].answer == f"answer {total - 1}")
        assert not screen.query(LoadLater), "and the rest, from the control at its end"


async def test_walking_back_through_a_long_session_keeps_the_view_to_its_bound(tmp_path: Path) -> None:
    """Up through every earlier turn of a long session put them all on screen, and every layout after it cost with
    them: the turns at the bottom now leave for "Load later turns", and come back from it."""
    total = MAX_MOUNTED_TURNS + OPENED_TURNS + 5
    app = app_for(replay=long_session(tmp_path / "long.yaml", total), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        view = screen.conversation_view
        await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
        await pilot.press("tab")
        for _ in range(total // OPENED_TURNS + 1):
            await pilot.press("home", "up")
            await pilot.pause()
        await wait_for(pilot, lambda: screen.messages()[0].answer == "answer 0")
        assert len(screen.messages()) == MAX_MOUNTED_TURNS, "the view keeps to its bound"
        assert [m.answer for m in screen.messages()] == [f"answer {n}" for n in range(MAX_MOUNTED_TURNS)]
        view.scroll_end(animate=False)
        assert f"Load later turns ({total - MAX_MOUNTED_TURNS} not shown)" in shown_text(await settled(pilot))
        await pilot.press("end", "down", "end", "down")
        await wait_for(pilot, lambda: screen.messages()[-1].answer == f"answer {total - 1}")
        assert not screen.query(LoadLater)
        assert [m.answer for m in screen.messages()] == [f"answer {n}" for n in range(total)]
