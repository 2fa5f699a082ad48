"""SVG snapshots of the screens users see (pytest-textual-snapshot).

Timings shown on screen come from a fixed clock here, and session dates are fixed, so snapshots only
change when what users see changes. Update them with `pytest tests/ui --snapshot-update`.
"""

from __future__ import annotations

import inspect
import os
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

import chatterm.ui.widgets.messages as messages_module
import chatterm.ui.widgets.status as status_module
from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cli.main import main
from tests.conftest import CORPUS, SEEDS, LoopThread
from tests.faultserver import FaultServer
from tests.scripted import ScriptedServer, sse_script
from tests.ui.helpers import app_for, send, settled, wait_for

SIZE = (100, 32)
SYSTEM_PROMPT = "You are a careful reviewer [of code].\nPoint out bugs first, then style.\nAnswer in plain English."


class FixedClock:
    """Stands in for the `time` module of the widgets that show durations."""

    @staticmethod
    def monotonic() -> float:
        return 1000.0


@pytest.fixture(autouse=True)
def fixed_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messages_module, "time", FixedClock)
    monkeypatch.setattr(status_module, "time", FixedClock)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


async def answered(pilot: Pilot[Any], prompt: str = "Explain briefly") -> None:
    await send(pilot, pilot.app, prompt)  # type: ignore[arg-type]
    app: Any = pilot.app
    await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
    await settled(pilot)


class TestChatScreen:
    def test_first_run_on_the_demo_profile(self, snap_compare: Any) -> None:
        async def welcome(pilot: Pilot[Any]) -> None:
            await wait_for(pilot, lambda: bool(pilot.app.chat_screen.conversation_view.children))  # type: ignore[attr-defined]
            await settled(pilot)

        assert snap_compare(app_for(), terminal_size=SIZE, run_before=welcome)

    def test_the_welcome_card(self, snap_compare: Any, fault_server: FaultServer) -> None:
        """A new chat on a profile that is not the demo, at 80x24: the profile, its model, the keys that matter."""

        async def welcome(pilot: Pilot[Any]) -> None:
            await wait_for(pilot, lambda: bool(pilot.app.chat_screen.query("WelcomeCard")))  # type: ignore[attr-defined]
            await settled(pilot)

        assert snap_compare(app_for(fault_server.url("ok")), terminal_size=(80, 24), run_before=welcome)

    def test_a_narrow_terminal(self, snap_compare: Any, fault_server: FaultServer) -> None:
        """45 columns: the welcome card wraps, the footer drops whole bindings (Quit last), the status line whole
        items."""

        async def welcome(pilot: Pilot[Any]) -> None:
            await wait_for(pilot, lambda: bool(pilot.app.chat_screen.query("WelcomeCard")))  # type: ignore[attr-defined]
            await settled(pilot)

        assert snap_compare(app_for(fault_server.url("ok")), terminal_size=(45, 24), run_before=welcome)

    def test_a_reasoning_answer(self, snap_compare: Any, fault_server: FaultServer) -> None:
        fault_server.gap = 0.01
        assert snap_compare(app_for(fault_server.url("think")), terminal_size=SIZE, run_before=answered)

    def test_a_selected_answer(self, snap_compare: Any, fault_server: FaultServer) -> None:
        """Tab moved the focus to the conversation: the last answer is selected, a bar down its left edge (its
        reasoning title, its text, its code), and the footer shows the conversation's keys."""

        async def selected(pilot: Pilot[Any]) -> None:
            await answered(pilot)
            await pilot.press("tab")
            view = pilot.app.chat_screen.conversation_view  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: view.selected is not None)
            await settled(pilot)

        fault_server.gap = 0.01
        assert snap_compare(app_for(fault_server.url("think")), terminal_size=(80, 24), run_before=selected)

    def test_a_branched_conversation(self, snap_compare: Any, fault_server: FaultServer) -> None:
        """The first prompt edited and sent as a new branch, selected: it shows `‹ 2/2 ›`, the footer the keys that
        switch branch, at 80x24."""

        async def branched(pilot: Pilot[Any]) -> None:
            app: Any = pilot.app
            await answered(pilot, "Explain briefly")
            await answered(pilot, "And then?")
            await pilot.press("tab", "home", "e")
            await wait_for(pilot, lambda: app.chat_screen.composer.text == "Explain briefly")
            app.chat_screen.composer.insert(", with an example")
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.chat_screen.messages()[0].answer and not app.chat_screen.busy)
            await pilot.press("tab", "home")
            await wait_for(pilot, lambda: app.chat_screen.conversation_view.selected.branch == (2, 2))
            await settled(pilot)

        assert snap_compare(app_for(fault_server.url("ok")), terminal_size=(80, 24), run_before=branched)

    def test_the_edit_banner(self, snap_compare: Any, fault_server: FaultServer) -> None:
        """`e` on the first prompt: its text in the composer, the banner above it, at 80x24."""

        async def editing(pilot: Pilot[Any]) -> None:
            app: Any = pilot.app
            await answered(pilot, "Explain briefly")
            await answered(pilot, "And then?")
            await pilot.press("tab", "home", "e")
            await wait_for(pilot, lambda: app.chat_screen.composer.text == "Explain briefly")
            await settled(pilot)

        assert snap_compare(app_for(fault_server.url("ok")), terminal_size=(80, 24), run_before=editing)

    def test_an_error_notice(self, snap_compare: Any, fault_server: FaultServer) -> None:
        assert snap_compare(app_for(fault_server.url("e401")), terminal_size=SIZE, run_before=answered)

    def test_no_color(self, snap_compare: Any, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("NO_COLOR", "1")
        fault_server.gap = 0.01
        assert snap_compare(app_for(fault_server.url("think")), terminal_size=SIZE, run_before=answered)

    def test_a_tool_using_replay(self, snap_compare: Any) -> None:
        """Parallel calls, each with its arguments and the result under it, then the answer that uses them."""
        recording = load_recording(CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml")

        async def replayed(pilot: Pilot[Any]) -> None:
            view = pilot.app.chat_screen.conversation_view  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
            await settled(pilot)

        app = app_for(replay=recording, speed="instant", save_sessions=False)
        assert snap_compare(app, terminal_size=(100, 30), run_before=replayed)

    def test_a_system_prompt_at_the_top_of_the_conversation(self, snap_compare: Any, fault_server: FaultServer) -> None:
        """The system prompt closed at the top (its first line), the chat's parameters in the status line, at 80x24."""

        async def prompted(pilot: Pilot[Any]) -> None:
            app: Any = pilot.app
            await wait_for(pilot, lambda: app.session is not None)
            app._system_prompt(SYSTEM_PROMPT)
            await pilot.press("ctrl+g", "ctrl+g", "ctrl+g")  # effort medium
            app.clear_notifications()
            await answered(pilot, "hi")

        assert snap_compare(app_for(fault_server.url("ok")), terminal_size=(80, 24), run_before=prompted)


MARKDOWN_TOUR = """# A heading

## Second level

Prose with `inline code`, **bold**, *emphasis* and a [link](https://example.com/docs).

> A quote, which is not an error.

1. first
2. second

- [ ] to do
- [x] done

```python
def greet(name):
    if name:
        return f"Hello, {name}! This line is long enough to wrap at the width of this screen, under its indent."
```

| Column | Value |
|---|---|
| a | 1 |
"""


class TestMarkdownThemes:
    """A Markdown answer in the theme's colours: every element, in a dark theme and a light one."""

    @pytest.mark.parametrize("theme", ["chatterm-dark", "textual-light"])
    def test_a_markdown_answer(
        self, theme: str, snap_compare: Any, loop_thread: LoopThread, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        server = ScriptedServer([sse_script(MARKDOWN_TOUR, answer_cuts=range(0, len(MARKDOWN_TOUR), 40))])
        loop_thread.run(server.start())
        monkeypatch.setenv("CHATTERM_THEME", theme)
        try:
            assert snap_compare(app_for(server.url), terminal_size=(100, 44), run_before=answered)
        finally:
            loop_thread.run(server.stop())


def saved_sessions() -> None:
    sessions = locations.sessions_dir()
    sessions.mkdir(parents=True)
    for number, source in enumerate(["xai_grok_simple_streaming.yaml", "llama_stack_together_stream.json"]):
        target = sessions / f"2026010{number + 1}-session.yaml"
        assert main(["convert", str(SEEDS / source), str(target)]) == 0
        os.utime(target, (1767225600 + number * 3600, 1767225600 + number * 3600))
    (sessions / "broken.yaml").write_text("interactions: [")
    os.utime(sessions / "broken.yaml", (1767225000, 1767225000))


async def open_sessions(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))
    await settled(pilot)


async def open_profiles(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+l")
    await settled(pilot)


class TestModals:
    def test_the_sessions_screen(self, snap_compare: Any) -> None:
        saved_sessions()
        assert snap_compare(app_for(), terminal_size=(110, 30), run_before=open_sessions)

    def test_the_profile_switcher(self, snap_compare: Any) -> None:
        assert snap_compare(app_for(), terminal_size=(110, 30), run_before=open_profiles)

    def test_the_help_screen_at_80x24(self, snap_compare: Any) -> None:
        async def open_help(pilot: Pilot[Any]) -> None:
            await wait_for(pilot, lambda: bool(pilot.app.chat_screen.conversation_view.children))  # type: ignore[attr-defined]
            await pilot.press("f1")
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "HelpScreen")
            await settled(pilot)

        assert snap_compare(app_for(), terminal_size=(80, 24), run_before=open_help)

    def test_the_system_prompt_editor_at_80x24(self, snap_compare: Any) -> None:
        async def editing(pilot: Pilot[Any]) -> None:
            app: Any = pilot.app
            await wait_for(pilot, lambda: app.session is not None)
            app.call_next(app.action_edit_system_prompt)  # (the palette's entry: tests/ui/test_chat_options.py)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "SystemPromptDialog")
            app.screen.query_one("TextArea").insert(SYSTEM_PROMPT)
            await settled(pilot)

        assert snap_compare(app_for(), terminal_size=(80, 24), run_before=editing)

    def test_the_sessions_screen_at_80x24(self, snap_compare: Any) -> None:
        saved_sessions()
        assert snap_compare(app_for(), terminal_size=(80, 24), run_before=open_sessions)

    def test_the_profile_switcher_at_80x24(self, snap_compare: Any) -> None:
        assert snap_compare(app_for(), terminal_size=(80, 24), run_before=open_profiles)


def test_snapshots_exist() -> None:
    """The snapshots are committed: a missing one would silently pass as 'created' in CI."""
    folder = Path(__file__).parent / "__snapshots__" / "test_snapshots"
    expected = {
        f"{cls.__name__}.{name}.svg"
        for cls in (TestChatScreen, TestModals)
        for name, test in vars(cls).items()
        if name.startswith("test_") and "snap_compare" in inspect.signature(test).parameters
    }
    assert expected <= {path.name for path in folder.glob("*.svg")}
    themes = {f"TestMarkdownThemes.test_a_markdown_answer[{theme}].svg" for theme in ("chatterm-dark", "textual-light")}
    assert themes <= {path.name for path in folder.glob("*.svg")}
