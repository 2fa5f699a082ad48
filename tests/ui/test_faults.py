"""The app under faults: what the user sees, and what is on disk afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from tests.faultserver import ANSWER, PARTIAL, FaultServer
from tests.ui.helpers import app_for, send, wait_for


def notices(app: ChatApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def finished_answer(pilot: Any, app: ChatApp, prompt: str = "hi") -> Any:
    await send(pilot, app, prompt)
    await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
    return app.chat_screen.messages()[-1]


def saved(app: ChatApp) -> list[dict[str, Any]]:
    assert app.session is not None and app.session.saver is not None
    app.session.saver.flush()
    assert app.session.path is not None
    turns: list[dict[str, Any]] = summarize(load_recording(app.session.path))["turns"]
    return turns


@pytest.mark.parametrize(
    ("scenario", "words", "partial"),
    [
        ("drop", "the connection was lost mid-answer", PARTIAL),
        ("errorevent", "Overloaded, try again later", PARTIAL),
        ("e500", "HTTP 500: Internal server error", ""),
        ("e503", "HTTP 503: Service unavailable", ""),
    ],
)
async def test_failures_show_a_notice_keep_the_partial_and_save(
    faults: FaultServer, scenario: str, words: str, partial: str
) -> None:
    app = app_for(faults.url(scenario))
    async with app.run_test(size=(100, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert words in str(message.notice.render())
        assert message.answer == partial and message.markdown.source == partial
        turn = saved(app)[-1]  # 5xx are retried before the first byte: every exchange is kept
        assert turn["response"]["content"] == partial and turn["response"]["error"] is not None


async def test_read_timeout_of_the_app(faults: FaultServer) -> None:
    settings = load_settings()
    choice = choose(settings, base_url=faults.url("stall"), model="fault-model", read_timeout=0.5)
    app = ChatApp(settings, choice)
    async with app.run_test(size=(100, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert "read timeout" in str(message.notice.render()) and message.answer == PARTIAL


async def test_malformed_chunk_warns_and_the_answer_goes_on(faults: FaultServer) -> None:
    app = app_for(faults.url("malformed"))
    async with app.run_test(size=(100, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert message.answer == ANSWER and not message.has_notice
        assert any("malformed" in n for n in notices(app))


async def test_unwritable_data_dir_warns_once_and_the_chat_goes_on(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "data-is-a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        first = await finished_answer(pilot, app, "one")
        second = await finished_answer(pilot, app, "two")
        await pilot.pause(0.2)
        assert first.answer == ANSWER and second.answer == ANSWER
        warnings = [n for n in notices(app) if "cannot save the session" in n]
        assert len(warnings) == 1 and str(blocker) in warnings[0]


async def test_unknown_theme_and_broken_theme_file_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    themes = locations.user_themes_dir()
    themes.mkdir(parents=True)
    (themes / "broken.toml").write_text("name = [unclosed")
    (themes / "odd.toml").write_text('name = "odd"\nprimary = "#123456"\nsparkle = true\n')
    monkeypatch.setenv("CHATTERM_THEME", "no-such-theme")
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        shown = notices(app)
        assert any(str(themes / "broken.toml") in n for n in shown)
        assert any("odd.toml" in n and "sparkle" in n for n in shown)
        assert any(str(locations.config_file()) in n and "no-such-theme" in n for n in shown)
        assert app.theme != "no-such-theme"
