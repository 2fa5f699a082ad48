"""A chat that has nothing in it yet opens on a welcome card (the profile, its model, the keys that matter, how to
open a session), gone once a prompt is sent and back on a new chat; the offline demo answers each prompt on screen
with its closest recording."""

from __future__ import annotations

from typing import Any

import pytest

import chatterm.ui.app as app_module
from chatterm.cassette.demo_catalogue import CATALOGUE, CONFIGURE
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.widgets.welcome import WelcomeCard
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, settled, shown_text, wait_for


async def screen_text(pilot: Any) -> str:
    return " ".join(shown_text(await settled(pilot)).split())


def cards(app: ChatApp) -> list[WelcomeCard]:
    return list(app.chat_screen.query(WelcomeCard))


async def answered(pilot: Any, app: ChatApp, prompt: str) -> str:
    count = len(app.chat_screen.messages())
    await send(pilot, app, prompt)
    await wait_for(pilot, lambda: len(app.chat_screen.messages()) > count and app.chat_screen.messages()[-1].finished)
    return app.chat_screen.messages()[-1].answer


async def test_a_new_chat_opens_on_a_welcome_card_that_the_first_prompt_puts_away(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(cards(app)))
        shown = await screen_text(pilot)
        for said in ("ad-hoc", "fault-model", "Enter", "send", "Ctrl+P", "command palette", "F1", "help", "Ctrl+O"):
            assert said in shown, said
        assert "open a saved session" in shown
        await answered(pilot, app, "hi")
        assert not cards(app)
        assert "command palette" not in await screen_text(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: bool(cards(app)) and not app.chat_screen.messages())
        assert "fault-model" in await screen_text(pilot)


async def test_the_welcome_card_names_the_profile_switched_to(faults: FaultServer, monkeypatch: Any) -> None:
    from chatterm.ui.screens.profiles import ProfileScreen

    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__BASE_URL", faults.url("ok"))
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__MODEL", "other-model")
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__LOCAL", "true")
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(cards(app)) and cards(app)[0].demo)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        assert isinstance(app.screen, ProfileScreen)
        app.screen._choose("local")
        await wait_for(pilot, lambda: app.choice.profile == "local")
        shown = await screen_text(pilot)
        assert "Profile local" in shown and "Model other-model" in shown and "offline demo" not in shown


async def test_the_welcome_card_shows_a_model_name_holding_markup_as_it_is(faults: FaultServer) -> None:
    settings = load_settings()
    model = "[/]odd[bold]model[@click=app.quit]"
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), model=model))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(cards(app)))
        assert model in await screen_text(pilot)
        assert app.is_running


async def test_a_replayed_recording_opens_without_the_card(faults: FaultServer) -> None:
    from tests.conftest import SEEDS

    app = app_for(faults.url("ok"), replay=SEEDS / "xai_grok_simple_streaming.yaml", speed="instant")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        await settled(pilot)
        assert not cards(app)


@pytest.fixture
def quick_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo at ten times its recorded pace (it plays slower than recorded for a newcomer to watch)."""
    monkeypatch.setattr(app_module, "DEMO_SPEED", 10.0)


async def test_the_demo_answers_each_prompt_on_screen_with_its_closest_recording(quick_demo: None) -> None:
    app = app_for()
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: bool(cards(app)))
        shown = await screen_text(pilot)
        assert "offline demo" in shown
        for entry in CATALOGUE[:5]:
            assert entry.prompt in shown, entry.prompt
        answer = await answered(pilot, app, "Write me a Python function to merge two sorted lists")
        assert "def merge_sorted(" in answer and "| Approach |" in answer
        assert app.chat_screen.messages()[-1].reasoning.startswith("Two sorted lists")
        assert "merge_sorted(a, b)" in await screen_text(pilot)
        assert not cards(app)
        answer = await answered(pilot, app, "what happens if the provider is overloaded?")
        assert answer.startswith("This answer is the **second attempt**")
        assert "This answer is the second attempt" in await screen_text(pilot)
        answer = await answered(pilot, app, "Recommend a lasagne recipe")
        assert "offline demo" in answer and CONFIGURE in answer
        shown = await screen_text(pilot)
        assert "none of them is close to your prompt" in shown
        assert "Prompts the demo answers" in shown


async def test_the_demo_marks_an_answer_stopped_at_the_token_limit(quick_demo: None) -> None:
    app = app_for()
    async with app.run_test(size=(100, 40)) as pilot:
        answer = await answered(pilot, app, "list the prime numbers below 1000")
        assert answer.startswith("Here are the prime numbers below 1000") and answer.endswith("619,")
        assert "stopped at the token limit" in await screen_text(pilot)
