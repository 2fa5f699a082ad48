"""The app and the end of an answer: one cut short, empty or an HTML page is an error on screen (not "ready"), the
text received stays and the session file holds the error; a token limit or a filter is a notice on the answer. A
turn that took several attempts replays as the one turn the user saw."""

from __future__ import annotations

import pytest

from chatterm.cassette.load import load_recording
from chatterm.ui.app import ChatApp
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage
from tests.faultserver import ANSWER, PARTIAL, FaultServer
from tests.test_endings import FAILED, NOTICES
from tests.ui.helpers import app_for, send, wait_for
from tests.ui.test_faults import finished_answer, notices, saved


@pytest.mark.parametrize("scenario", ["cut", "cut-gemini", "empty", "html"])
async def test_an_answer_cut_short_empty_or_a_page_is_an_error_on_screen_and_in_the_session(
    faults: FaultServer, scenario: str
) -> None:
    words, partial = FAILED[scenario]
    app = app_for(faults.url(scenario))
    async with app.run_test(size=(100, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert str(message.notice.render()) == f"{words} · Ctrl+R retries"
        assert message.answer == partial
        assert app.chat_screen.status.state == "error", "the status line does not say all went well"
        assert not [n for n in notices(app) if "skipped" in n], "one notice, not a warning per line"
        turn = saved(app)[-1]
        assert turn["response"]["content"] == partial
        assert turn["response"]["error"] == {"status": None, "message": words}


@pytest.mark.parametrize("scenario", ["length", "length-anthropic", "filtered", "safety-gemini"])
async def test_a_token_limit_or_a_filter_is_a_notice_on_the_answer(faults: FaultServer, scenario: str) -> None:
    app = app_for(faults.url(scenario))
    async with app.run_test(size=(100, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert message.answer == PARTIAL
        assert str(message.notice.render()) == NOTICES[scenario]
        assert app.chat_screen.status.state == "ready", "the provider did answer"
        assert saved(app)[-1]["response"]["error"] is None


@pytest.mark.parametrize("opened", ["file-instant", "file-paced", "recording-instant", "recording-paced"])
async def test_a_retried_turn_replays_as_the_one_turn_the_user_saw(faults: FaultServer, opened: str) -> None:
    app = app_for(faults.url("e429-then-ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await finished_answer(pilot, app)
        saved(app)
    assert app.session is not None and app.session.path is not None
    path = app.session.path
    assert len(load_recording(path).interactions) == 2, "both attempts stay in the file"
    source, speed = opened.split("-")
    replayed = app_for(
        faults.url("ok"),
        replay=path if source == "file" else load_recording(path),
        speed="instant" if speed == "instant" else "4x",
    )
    async with replayed.run_test(size=(100, 30)) as pilot:
        screen = replayed.chat_screen

        def finished() -> bool:
            children = list(screen.conversation_view.children)
            return bool(children) and "Replay finished" in str(children[-1].render())

        await wait_for(pilot, finished)
        assert len(screen.query(UserMessage)) == 1
        (message,) = screen.messages()
        assert message.answer == ANSWER and not message.has_notice
        assert [turn.answer for turn in screen.turns] == [ANSWER]


def replay_finished(app: ChatApp) -> bool:
    children = list(app.chat_screen.conversation_view.children)
    return bool(children) and "Replay finished" in str(children[-1].render())


def notice_of(message: AssistantMessage) -> str:
    return str(message.notice.render()).removesuffix(" · Ctrl+R retries") if message.has_notice else ""


@pytest.mark.parametrize("speed", ["instant", "4x"])
async def test_a_replay_ends_each_turn_as_it_ended_when_recorded(faults: FaultServer, speed: str) -> None:
    """A turn that failed after its retries, one stopped, one that got no answer at all, then a whole one: replayed,
    each is one turn ending with the error it was saved with, and no turn takes another's answer."""
    faults.gap = 0.2
    faults.stall = 0.3  # the silent turn: the server hangs up without a word (after how long does not matter)
    path = None
    live: list[tuple[str, str]] = []
    for scenario in ("e500", "paced", "silent", "ok"):
        app = app_for(faults.url(scenario), replay=path, speed="instant")
        async with app.run_test(size=(100, 30)) as pilot:
            if path is not None:
                await wait_for(pilot, lambda: replay_finished(app))  # noqa: B023
            await send(pilot, app, scenario)
            if scenario == "paced":
                await wait_for(pilot, lambda: app.chat_screen.messages()[-1].answer.startswith("Hello"))  # noqa: B023
                await pilot.press("escape")
            await wait_for(pilot, lambda: len(app.chat_screen.messages()) == len(live) + 1)  # noqa: B023
            await wait_for(pilot, lambda: app.chat_screen.messages()[-1].finished, timeout=20)  # noqa: B023
            message = app.chat_screen.messages()[-1]
            live.append((message.answer, notice_of(message)))
            saved(app)
        assert app.session is not None
        path = app.session.path
    assert path is not None
    assert len(load_recording(path).interactions) == 6, "the two retries of the first turn stay in the file"
    replayed = app_for(faults.url("ok"), replay=load_recording(path), speed=speed)
    async with replayed.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: replay_finished(replayed), timeout=30)
        shown = [(m.answer, notice_of(m)) for m in replayed.chat_screen.messages()]
    assert [answer for answer, _ in shown] == [answer for answer, _ in live]
    assert shown[0][1] == live[0][1] == "HTTP 500: Internal server error"
    assert "stopped" in shown[1][1].lower() and shown[1][0].startswith("Hello")
    assert shown[2][1] == live[2][1] and "before an answer" in shown[2][1]
    assert shown[3] == live[3] == (ANSWER, "")
