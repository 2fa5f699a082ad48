"""The app behind a redirect within the origin: the answer is shown, and the session file (the app always records)
holds one turn with what was asked and what answered it; a redirect that would turn the request into a GET is not
followed, and the screen says why."""

from __future__ import annotations

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from tests.faultserver import ANSWER, FaultServer
from tests.ui.helpers import app_for, send, settled, shown_text, wait_for


@pytest.mark.parametrize("status", [307, 308])
async def test_the_app_follows_a_same_origin_redirect_and_saves_one_turn(faults: FaultServer, status: int) -> None:
    faults.redirect_status = status
    faults.redirect_to = "/ok/v1/chat/completions"
    app = app_for(faults.url("redirect"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        message = app.chat_screen.messages()[-1]
        assert message.answer == ANSWER and not message.has_notice
        assert app.session is not None and app.session.saver is not None and app.session.path is not None
        app.session.saver.flush()
        (turn,) = summarize(load_recording(app.session.path))["turns"]
    assert turn["request"]["messages"] == [{"role": "user", "content": "hi"}]
    assert turn["response"]["content"] == ANSWER and turn["response"]["error"] is None and turn["retried"] == []


async def test_the_app_says_why_it_does_not_follow_a_redirect_that_would_drop_the_conversation(
    faults: FaultServer,
) -> None:
    faults.redirect_status = 303
    faults.redirect_to = "/ok/v1/chat/completions"
    app = app_for(faults.url("redirect"))
    async with app.run_test(size=(160, 30)) as pilot:
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        shown = shown_text(await settled(pilot))
        assert "redirected (303)" in shown and "/ok/v1/chat/completions as a GET" in shown, shown
        assert app.chat_screen.messages()[-1].answer == ""
    assert [request.path for request in faults.seen] == ["/redirect/v1/chat/completions"], "nothing followed"
