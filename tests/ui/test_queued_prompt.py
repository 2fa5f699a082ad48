"""A prompt sent while an answer streams waits above the composer and is sent when the answer ends."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from chatterm.ui.app import ChatApp
from tests.scripted import HeldServer, sse_script
from tests.ui.helpers import app_for, send, shown_text, wait_for


@pytest.fixture
async def slow() -> AsyncIterator[HeldServer]:
    """The first answer's "Hello", then " world" once the test lets it go on (it acts in between)."""
    server = HeldServer()
    server.answers = [server.held("Hello world", 5), sse_script("Hi")]
    await server.start()
    yield server
    server.go_on.set()
    await server.stop()


def answered(app: ChatApp, count: int) -> bool:
    messages = app.chat_screen.messages()
    return len(messages) == count and messages[-1].finished


def user_prompts(body: object) -> list[str]:
    assert isinstance(body, dict)
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


async def test_a_prompt_sent_while_an_answer_streams_is_sent_after_it(slow: HeldServer) -> None:
    app = app_for(slow.url)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[0].answer == "Hello")
        await send(pilot, app, "second\nwith two lines")
        assert screen.composer.text == "", "taken from the composer"
        assert screen.queued.text == "second\nwith two lines"
        line = shown_text(app.export_screenshot())
        assert "Queued, sends when this answer ends (Escape takes it back): second…" in line
        assert len(slow.requests) == 1
        slow.go_on.set()
        await wait_for(pilot, lambda: answered(app, 2))
        assert screen.messages()[0].answer == "Hello world" and not screen.messages()[0].has_notice
        assert [user_prompts(body) for body in slow.requests] == [["first"], ["first", "second\nwith two lines"]]
        assert screen.queued.text is None
        assert "Queued" not in shown_text(app.export_screenshot())


async def test_escape_takes_a_held_prompt_back_and_leaves_the_answer_streaming(slow: HeldServer) -> None:
    app = app_for(slow.url)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[0].answer == "Hello")
        await send(pilot, app, "second")
        await pilot.press("n", "b")
        await pilot.press("escape")
        assert screen.composer.text == "second\nnb" and screen.queued.text is None, "before what was typed since"
        assert screen.streaming, "the first Escape took the prompt back; the answer goes on"
        slow.go_on.set()
        await wait_for(pilot, lambda: answered(app, 1) and not screen.busy)
        assert screen.messages()[0].answer == "Hello world" and not screen.messages()[0].has_notice
        assert len(slow.requests) == 1 and screen.composer.text == "second\nnb"


async def test_one_prompt_is_held_at_a_time(slow: HeldServer) -> None:
    app = app_for(slow.url)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[0].answer == "Hello")
        await send(pilot, app, "second")
        await send(pilot, app, "third")
        assert screen.queued.text == "second"
        await wait_for(pilot, lambda: screen.composer.text == "third")
        slow.go_on.set()
        await wait_for(pilot, lambda: answered(app, 2))
        assert [user_prompts(body)[-1] for body in slow.requests] == ["first", "second"]
        assert screen.composer.text == "third", "still there, to send when the user wants"


async def test_a_new_chat_keeps_the_held_prompt_in_its_composer(slow: HeldServer) -> None:
    app = app_for(slow.url)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[0].answer == "Hello")
        await send(pilot, app, "second")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.chat_screen is not screen)
        assert app.chat_screen.composer.text == "second" and app.chat_screen.queued.text is None
        assert not app.chat_screen.messages() and len(slow.requests) == 1


async def test_a_prompt_held_for_an_answer_that_ends_in_an_error_goes_back_to_the_composer() -> None:
    error = {"error": {"message": "Overloaded, try again later.", "type": "server_error", "code": 503}}
    server = HeldServer()
    server.answers = [
        [sse_script("Hello")[0], (server.go_on, b"event: error\ndata: " + json.dumps(error).encode() + b"\n\n")],
        sse_script("Hi"),
    ]
    await server.start()
    try:
        app = app_for(server.url)
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            screen = app.chat_screen
            await send(pilot, app, "first")
            await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[0].answer == "Hello")
            await send(pilot, app, "second")
            assert screen.queued.text == "second"
            server.go_on.set()
            await wait_for(pilot, lambda: answered(app, 1) and not screen.busy)
            assert "Overloaded" in str(screen.messages()[0].notice.render())
            await wait_for(pilot, lambda: screen.composer.text == "second")
            assert screen.queued.text is None and len(server.requests) == 1, "not sent after the error"
            assert "not sent" in " ".join(str(n.message) for n in app._notifications)
    finally:
        server.go_on.set()
        await server.stop()
