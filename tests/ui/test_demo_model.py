"""Who answers is named from the start: the demo's own model on the status line, the welcome card and the sessions
list before any answer; a saved session listed with the model that answered, not the one asked."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable

import chatterm.ui.app as app_module
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.sessions import SessionsScreen
from chatterm.ui.widgets.welcome import WelcomeCard
from tests.scripted import ScriptedServer, sse_script
from tests.ui.helpers import app_for, send, settled, shown_text, wait_for

DEMO_MODEL = "chatterm-demo"


def status_text(app: ChatApp) -> str:
    return str(app.chat_screen.status.render())


async def listed_models(pilot: Any, app: ChatApp) -> list[str]:
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)
    table = app.screen.query_one("#sessions", DataTable)
    return [" ".join(str(cell) for cell in table.get_row_at(row)) for row in range(table.row_count)]


async def test_the_demo_names_its_own_model_before_any_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "DEMO_SPEED", 10.0)
    app = app_for()
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: bool(app.chat_screen.query(WelcomeCard)))
        shown = " ".join(shown_text(await settled(pilot)).split())
        assert f"Model {DEMO_MODEL}" in shown, "the card names the demo's model"
        assert f"demo · {DEMO_MODEL}" in status_text(app)
        assert "grok" not in shown
        await send(pilot, app, "Recommend a lasagne recipe")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert f"demo · {DEMO_MODEL}" in status_text(app)
        (row,) = await listed_models(pilot, app)
        assert DEMO_MODEL in row and "grok" not in row


async def test_an_ad_hoc_session_is_listed_with_the_model_that_answered() -> None:
    server = ScriptedServer(answers=[sse_script("Hello")])
    await server.start()
    try:
        app = app_for(server.url)  # asks for fault-model; the answer names "scripted"
        async with app.run_test(size=(120, 40)) as pilot:
            await send(pilot, app, "hi")
            await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
            (row,) = await listed_models(pilot, app)
            assert "scripted" in row and "fault-model" not in row
    finally:
        await server.stop()
