"""Each native API live in the app: a profile speaking Anthropic Messages, Gemini or OpenAI's Responses streams its
reasoning into the pane and the answer below it, with every frame checked by the screen oracle, and the next
request carries the continuity data the API sent back (never shown)."""

from __future__ import annotations

import pytest

from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from tests import native_shapes
from tests.faultserver import ANSWER, REASONING, FaultServer
from tests.ui.helpers import send, wait_for
from tests.ui.oracle import Oracle, ending, final, quiet, screen_text
from tests.ui.test_oracle import answers_done

CONTINUITY = (native_shapes.SIGNATURE, native_shapes.THOUGHT_SIGNATURE, native_shapes.ENCRYPTED)


@pytest.mark.parametrize("api", ["anthropic", "gemini", "responses"])
async def test_each_api_streams_reasoning_into_the_pane_and_the_answer_below_it(faults: FaultServer, api: str) -> None:
    settings = load_settings()
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), model="native-model", api=api))
    oracle = Oracle(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: answers_done(app, 1))
        await quiet(pilot)
        message = app.chat_screen.messages()[0]
        assert (message.answer, message.reasoning) == (ANSWER, "".join(REASONING))
        shown = screen_text(app)
        assert shown.index("Thought") < shown.index(ANSWER.split()[0])  # (the pane above its answer)
        await send(pilot, app, "again")
        await wait_for(pilot, lambda: answers_done(app, 2))
        await quiet(pilot)
        shown = screen_text(app)
        problems = [str(problem) for problem in oracle.problems]
        end = ending(oracle)
    sent = str(faults.seen[-1].body)
    assert native_shapes.api_of(faults.seen[-1].path) == api
    assert any(data in sent for data in CONTINUITY), "the continuity data goes back with the next request"
    assert not any(data in shown for data in CONTINUITY)
    problems += await final(end)
    assert not problems, "\n".join(problems)


