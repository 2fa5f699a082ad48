"""Escape during a paced replay shows the rest of the recording at once; a session opened from the sessions list
opens at once unless the user chose a pace in the palette, which is remembered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.write import render
from chatterm.settings.remembered import load_state
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.sessions import SessionsScreen
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, run_command, send, wait_for

GAP = 60.0
"""Seconds between the two halves of each recorded answer: a paced replay is never done within a test."""


def slow_recording(turns: int, gap: float = GAP) -> Recording:
    """A conversation of `turns` turns, each answer in two events `gap` seconds apart."""
    interactions, history = [], []
    for turn in range(turns):
        history.append({"role": "user", "content": f"question {turn}"})
        events = [
            b"data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}).encode() + b"\n\n"
            for text in (f"answer {turn} begins", " and ends")
        ]
        body = b"".join(events) + b"data: [DONE]\n\n"
        offsets = [(0.0, len(events[0])), (gap, len(events[0]) + len(events[1])), (gap, len(body))]
        url = "http://127.0.0.1/v1/chat/completions"
        request = Request("POST", url, body=json.dumps({"messages": history}).encode())
        response = Response(200, {"content-type": ["text/event-stream"]}, body, offsets=offsets)
        interactions.append(Interaction(request, response))
        history = [*history, {"role": "assistant", "content": f"answer {turn} begins and ends"}]
    return Recording("vcr", interactions)


def saved_session(turns: int) -> Path:
    path = locations.sessions_dir() / "slow.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render(slow_recording(turns)))
    assert load_recording(path).interactions[0].response.offsets, "the pace is in the file"
    return path


def finished_replay(app: ChatApp) -> bool:
    children = list(app.chat_screen.conversation_view.children)
    return bool(children) and "Replay finished" in str(children[-1].render())


def notices(app: ChatApp) -> list[str]:
    return [str(message.notice.render()) for message in app.chat_screen.messages() if message.has_notice]


async def first_half_shown(pilot: Pilot[None], app: ChatApp) -> None:
    screen = app.chat_screen
    await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[0].answer == "answer 0 begins")


async def test_escape_shows_the_rest_of_a_paced_replay_at_once(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"), replay=slow_recording(3), speed="1x")
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen
        await first_half_shown(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: finished_replay(app))
        assert [m.answer for m in screen.messages()] == [f"answer {n} begins and ends" for n in range(3)]
        assert notices(app) == [], "nothing was stopped"
        assert "stopped" not in str(screen.status.render())
        await wait_for(pilot, lambda: not screen.busy)
        await send(pilot, app, "and now?")
        await wait_for(pilot, lambda: len(screen.messages()) == 4 and screen.messages()[-1].finished)
        sent = faults.seen[-1].body["messages"]
        assert [m["content"] for m in sent] == [
            *[text for n in range(3) for text in (f"question {n}", f"answer {n} begins and ends")],
            "and now?",
        ]


async def test_a_prompt_typed_during_a_replay_waits_for_it(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"), replay=slow_recording(2), speed="1x")
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen
        await first_half_shown(pilot, app)
        await send(pilot, app, "my question")
        await wait_for(pilot, lambda: screen.queued.text == "my question")
        assert screen.composer.text == ""
        assert "sends when the replay ends" in str(screen.queued.render())
        assert notices(app) == [] and screen.messages()[0].answer == "answer 0 begins", "the replay goes on"
        await pilot.press("escape")
        assert screen.composer.text == "my question" and screen.queued.text is None, "Escape takes it back"
        assert not finished_replay(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: finished_replay(app))
        assert notices(app) == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(screen.messages()) == 3 and screen.messages()[-1].finished)
        assert faults.seen[-1].body["messages"][-1] == {"role": "user", "content": "my question"}


async def test_a_prompt_held_during_a_replay_is_sent_when_it_ends(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"), replay=slow_recording(1, gap=3.0), speed="1x")
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen
        await first_half_shown(pilot, app)
        await send(pilot, app, "after the replay")
        assert screen.queued.text == "after the replay" and not faults.seen
        await wait_for(pilot, lambda: len(screen.messages()) == 2 and screen.messages()[-1].finished)
        assert screen.messages()[0].answer == "answer 0 begins and ends" and notices(app) == []
        assert faults.seen[-1].body["messages"][-1] == {"role": "user", "content": "after the replay"}
        assert screen.queued.text is None and not screen.queued.display


async def open_the_session(pilot: Pilot[None], app: ChatApp) -> None:
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen))


async def test_a_session_from_the_list_opens_at_once(faults: FaultServer) -> None:
    saved_session(2)
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(110, 36)) as pilot:
        await open_the_session(pilot, app)
        await wait_for(pilot, lambda: finished_replay(app))
        assert [m.answer for m in app.chat_screen.messages()] == [f"answer {n} begins and ends" for n in range(2)]


async def test_the_replay_speed_chosen_is_remembered_and_escape_ends_the_pace(faults: FaultServer) -> None:
    saved_session(2)
    first = app_for(faults.url("ok"))
    async with first.run_test(size=(110, 36)) as pilot:
        await run_command(pilot, first, "replay speed: 2x")
        await wait_for(pilot, lambda: first.replay_speed == "2x")
    assert load_state().get("replay_speed") == "2x"
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(110, 36)) as pilot:
        assert app.replay_speed == "2x"
        await open_the_session(pilot, app)
        await first_half_shown(pilot, app)
        assert not finished_replay(app), "paced"
        await pilot.press("escape")
        await wait_for(pilot, lambda: finished_replay(app))
        assert [m.answer for m in app.chat_screen.messages()] == [f"answer {n} begins and ends" for n in range(2)]
        assert notices(app) == []


@pytest.mark.parametrize("remembered", ["9x", 3, None])
async def test_a_remembered_speed_that_is_no_speed_is_ignored(remembered: object) -> None:
    from chatterm.settings.remembered import save_state

    save_state(replay_speed=remembered)
    app = app_for()
    assert app.replay_speed == "instant"
