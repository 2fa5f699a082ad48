"""The app and the end of an answer: one cut short, empty or an HTML page is an error on screen (not "ready"), the
text received stays and the session file holds the error; a token limit or a filter is a notice on the answer."""

from __future__ import annotations

import pytest

from tests.faultserver import PARTIAL, FaultServer
from tests.test_endings import FAILED, NOTICES
from tests.ui.helpers import app_for
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
