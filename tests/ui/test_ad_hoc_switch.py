"""An endpoint given on the command line (--base-url) is one of the profile switcher's choices: Ctrl+L goes back to
it after another profile answered."""

from __future__ import annotations

from typing import Any

from chatterm.ui.app import ChatApp
from chatterm.ui.screens.profiles import ProfileScreen
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, wait_for


async def switch_to(pilot: Any, app: ChatApp, name: str) -> ProfileScreen:
    await pilot.press("ctrl+l")
    await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
    screen = app.screen
    assert isinstance(screen, ProfileScreen)
    assert name in [row.name for row in screen.rows], [row.name for row in screen.rows]
    screen._choose(name)
    await wait_for(pilot, lambda: app.choice.profile == name)
    return screen


async def answered(pilot: Any, app: ChatApp, prompt: str) -> None:
    count = len(app.chat_screen.messages())
    await send(pilot, app, prompt)
    await wait_for(pilot, lambda: len(app.chat_screen.messages()) > count and app.chat_screen.messages()[-1].finished)


async def test_ctrl_l_goes_back_to_the_endpoint_given_with_base_url(faults: FaultServer, monkeypatch: Any) -> None:
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__BASE_URL", faults.url("ok"))
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__MODEL", "other-model")
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__LOCAL", "true")
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await answered(pilot, app, "one")
        await switch_to(pilot, app, "local")
        await answered(pilot, app, "two")
        assert faults.seen[-1].body["model"] == "other-model"
        screen = await switch_to(pilot, app, "ad-hoc")
        (row,) = [row for row in screen.rows if row.name == "ad-hoc"]
        assert row.model == "fault-model" and row.usable
        await answered(pilot, app, "three")
        assert faults.seen[-1].body["model"] == "fault-model"
        prompts = [m["content"] for m in faults.seen[-1].body["messages"] if m["role"] == "user"]
        assert prompts == ["one", "two", "three"], "the conversation goes on"
        assert "ad-hoc · fault-model" in str(app.chat_screen.status.render())
