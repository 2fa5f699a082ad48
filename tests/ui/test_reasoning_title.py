"""The reasoning pane's title says how long the model thought, in a replay as live: from the recorded timing."""

from __future__ import annotations

import json

import pytest

from chatterm.cassette.model import Interaction, Recording, Request, Response
from tests.scripted import sse_script
from tests.ui.helpers import app_for, settled, shown_text, wait_for

TIMES = (0.1, 3.3, 3.4)
"""When the reasoning, the answer and the end were recorded (seconds after the request)."""


def thought_for_3_2_seconds() -> Recording:
    body, offsets = b"", []
    for at, (_, part) in zip(TIMES, sse_script("The answer.", reasoning="Let me think."), strict=True):
        body += part
        offsets.append((at, len(body)))
    asked = {"model": "m", "messages": [{"role": "user", "content": "think first"}], "stream": True}
    request = Request("POST", "http://recorded.invalid/v1/chat/completions", {}, json.dumps(asked).encode())
    response = Response(200, {"content-type": ["text/event-stream"]}, body, "OK", offsets=offsets)
    return Recording("vcr", [Interaction(request, response)])


@pytest.mark.parametrize("speed", ["instant", "4x"])
async def test_a_replay_titles_the_reasoning_with_the_recorded_thinking_time(speed: str) -> None:
    app = app_for(replay=thought_for_3_2_seconds(), speed=speed, save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        (message,) = app.chat_screen.messages()
        assert message.answer == "The answer."
        assert str(message.reasoning_pane.title) == "Thought for 3.2 s"


async def test_an_answer_drawn_by_a_branch_switch_keeps_its_thinking_time() -> None:
    """A regenerated answer's sibling, drawn again by Left, said "Reasoning" where it had said how long it thought."""
    (first,), (again,) = thought_for_3_2_seconds().interactions, thought_for_3_2_seconds().interactions
    first.meta, again.meta = {"id": "1", "parent": None}, {"id": "2", "parent": None}
    app = app_for(replay=Recording("vcr", [first, again]), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].branch == (2, 2))
        await pilot.press("tab", "end")
        await pilot.press("left")
        await wait_for(pilot, lambda: screen.messages()[-1].branch == (1, 2))
        assert str(screen.messages()[-1].reasoning_pane.title) == "Thought for 3.2 s"


def thinking_session(turns: int) -> Recording:
    """`turns` turns in a row, each answer after 3.2 s of recorded reasoning."""
    interactions, history = [], []
    for number in range(turns):
        history.append({"role": "user", "content": f"question {number}"})
        body, offsets = b"", []
        for at, (_, part) in zip(TIMES, sse_script(f"answer {number}", reasoning="Let me think."), strict=True):
            body += part
            offsets.append((at, len(body)))
        asked = {"model": "m", "messages": list(history), "stream": True}
        request = Request("POST", "http://recorded.invalid/v1/chat/completions", {}, json.dumps(asked).encode())
        response = Response(200, {"content-type": ["text/event-stream"]}, body, "OK", offsets=offsets)
        interactions.append(Interaction(request, response))
        history.append({"role": "assistant", "content": f"answer {number}"})
    return Recording("vcr", interactions)


async def test_answers_loaded_earlier_keep_their_thinking_time() -> None:
    """The turns put back by "Load earlier turns" said "Reasoning" where those opened with the session said how long
    the model thought."""
    from chatterm.ui.screens.chat import OPENED_TURNS

    app = app_for(replay=thinking_session(OPENED_TURNS + 3), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await wait_for(pilot, lambda: len(screen.messages()) == OPENED_TURNS and screen.messages()[-1].finished)
        screen.conversation_view.scroll_home(animate=False)
        await settled(pilot)
        await pilot.click("#load-earlier")
        await wait_for(pilot, lambda: len(screen.messages()) == OPENED_TURNS + 3)
        titles = {str(message.reasoning_pane.title) for message in screen.messages()}
        assert titles == {"Thought for 3.2 s"}
        screen.conversation_view.scroll_home(animate=False)
        assert "Thought for 3.2 s" in shown_text(await settled(pilot))
