"""The app driven with Pilot against real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Label

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.screens.profiles import ProfileScreen
from chatterm.ui.screens.sessions import SessionsScreen
from tests.conftest import SEEDS, sse_capture
from tests.faultserver import ANSWER, MARKDOWN_ANSWER, PARTIAL, FaultServer
from tests.ui.helpers import app_for, run_command, send, wait_for


def saved_turns(app: ChatApp) -> list[dict[str, Any]]:
    assert app.session is not None and app.session.saver is not None
    app.session.saver.flush()
    path = app.session.path
    assert path is not None and path.exists()
    turns: list[dict[str, Any]] = summarize(load_recording(path))["turns"]
    return turns


async def test_reasoning_pane_open_while_thinking_closed_after(faults: FaultServer) -> None:
    faults.gap = 0.08
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 36)) as pilot:
        await send(pilot, app, "Explain")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and bool(screen.messages()[-1].reasoning))
        message = screen.messages()[-1]
        await wait_for(pilot, lambda: message.reasoning_pane.is_mounted)
        assert message.reasoning_pane.collapsed is False, "expanded while reasoning arrives"
        assert message.reasoning_pane.title.startswith("Thinking…")
        await wait_for(pilot, lambda: message.finished)
        assert message.reasoning_pane.collapsed is True, "collapsed once the answer started"
        assert message.reasoning_pane.title.endswith("· 9 reasoning tokens")
        assert message.markdown.source == MARKDOWN_ANSWER
        assert message.answer == MARKDOWN_ANSWER and "Let me" not in message.markdown.source
        assert "reasoning 9" in str(screen.status.render())
        (turn,) = saved_turns(app)
        assert turn["response"]["content"] == MARKDOWN_ANSWER
        assert turn["response"]["reasoning"] == "Let me think about a short answer."
        await pilot.press("ctrl+t")
        assert message.reasoning_pane.collapsed is False, "the key toggles the pane"


async def test_escape_stops_and_keeps_the_partial(faults: FaultServer) -> None:
    app = app_for(faults.url("stall"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "hi")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].answer == PARTIAL)
        await pilot.press("escape")
        message = screen.messages()[-1]
        await wait_for(pilot, lambda: message.finished)
        assert message.answer == PARTIAL and message.markdown.source == PARTIAL
        assert message.has_notice and "Stopped" in str(message.notice.render())
        (turn,) = saved_turns(app)
        assert turn["response"]["content"] == PARTIAL
        assert "stopped" in turn["response"]["error"]["message"]


async def test_error_notice_stays_out_of_text_and_history_and_retry_works(faults: FaultServer) -> None:
    app = app_for(faults.url("e401"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "hi")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        message = screen.messages()[-1]
        assert "HTTP 401: Invalid API Key" in str(message.notice.render())
        assert "401" not in message.answer
        assert app.session is not None
        assert all("401" not in json.dumps(m) for m in app.session.conversation.messages)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 and screen.messages()[-1].finished)
        assert faults.counts["e401"] == 2
        assert [m["role"] for m in app.session.conversation.messages] == ["user"]


async def test_composer_history_and_newline(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.chat_screen.composer
        composer.focus()
        await pilot.press("a", "ctrl+j", "b")
        assert composer.text == "a\nb"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chat_screen.messages()[-1].finished)
        assert faults.seen[-1].body["messages"][-1] == {"role": "user", "content": "a\nb"}
        assert composer.text == ""
        await pilot.press("up")
        assert composer.text == "a\nb"
        await pilot.press("down")
        assert composer.text == ""


async def test_terminal_escapes_in_answers_are_shown_harmlessly(serve_recording: Any, tmp_path: Path) -> None:
    hostile = "Hi\x1b[2J\x1b]52;c;ZXZpbA==\x07 and a \x1b]8;;http://x\x07link\x1b]8;;\x07"
    capture = sse_capture(tmp_path / "hostile.sse", hostile)
    app = app_for(serve_recording(capture))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        message = app.chat_screen.messages()[-1]
        assert message.answer == hostile, "the answer is kept exactly"
        shown = message.markdown.source
        assert "\x1b" not in shown and "\x07" not in shown and "␛[2J" in shown
        assert app.clipboard == "", "nothing reached the clipboard"


async def test_replay_a_seed_then_continue_live(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"), replay=load_recording(SEEDS / "xai_grok_simple_streaming.yaml"), speed="instant")
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        replayed = screen.messages()[-1]
        assert replayed.answer.startswith("Oi!") and replayed.reasoning.startswith("First")
        await wait_for(pilot, lambda: not screen.streaming)
        await send(pilot, app, "And in Spanish?")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 and screen.messages()[-1].finished)
        sent = faults.seen[-1].body["messages"]
        assert sent[0] == {"role": "system", "content": "You are a helpful assistant"}
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
        assert sent[2]["content"].startswith("Oi!") and "reasoning_content" not in sent[2]
        turns = saved_turns(app)
        assert len(turns) == 2 and turns[0]["response"]["content"].startswith("Oi!")


async def test_sessions_screen_lists_and_replays(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(110, 36)) as pilot:
        await send(pilot, app, "first question")
        await wait_for(pilot, lambda: app.chat_screen.messages()[-1].finished)
        saved_turns(app)
        (locations.sessions_dir() / "broken.yaml").write_text("interactions: [")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        sessions = app.screen
        assert isinstance(sessions, SessionsScreen)
        await wait_for(pilot, lambda: sessions.loaded)
        titles = [s.title for s in sessions.sessions]
        assert "first question" in titles and any(s.error for s in sessions.sessions)
        await pilot.press(*"first")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen))
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert app.chat_screen.messages()[-1].answer == "Hello, this is a partial answer."


async def test_profile_switch_mid_conversation_is_recorded(faults: FaultServer, monkeypatch: Any) -> None:
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__BASE_URL", faults.url("ok"))
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__MODEL", "other-model")
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__LOCAL", "true")
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, app, "one")
        await wait_for(pilot, lambda: app.chat_screen.messages()[-1].finished)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        screen = app.screen
        assert isinstance(screen, ProfileScreen)
        screen._choose("local")
        await wait_for(pilot, lambda: app.choice.profile == "local")
        await send(pilot, app, "two")
        await wait_for(pilot, lambda: len(app.chat_screen.messages()) == 2 and app.chat_screen.messages()[-1].finished)
        assert faults.seen[-1].body["model"] == "other-model"
        assert [m["content"] for m in faults.seen[-1].body["messages"] if m["role"] == "user"] == ["one", "two"]
        assert app.session is not None and app.session.saver is not None
        app.session.saver.flush()
        recording = load_recording(app.session.path)  # type: ignore[arg-type]
        metas = [(i.meta["profile"], i.meta["model"]) for i in recording.interactions]
        assert metas == [("ad-hoc", "fault-model"), ("local", "other-model")]


class GatedBoot(ChatApp):
    """The app with the step after the first frame held until the test lets it go."""

    gate: asyncio.Event

    async def _boot(self) -> None:
        await self.gate.wait()
        await super()._boot()


async def test_a_prompt_sent_before_the_session_is_ready_is_answered(faults: FaultServer, monkeypatch: Any) -> None:
    """The first frame comes before the HTTP stack is loaded: a prompt sent in between waits for it while the
    screen keeps drawing, and a profile switched in between is the one that answers."""
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__BASE_URL", faults.url("ok"))
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__MODEL", "other-model")
    monkeypatch.setenv("CHATTERM_PROFILES__LOCAL__LOCAL", "true")
    settings = load_settings()
    app = GatedBoot(settings, choose(settings, base_url=faults.url("think"), model="fault-model"))
    app.gate = asyncio.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.session is None
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        assert isinstance(app.screen, ProfileScreen)
        app.screen._choose("local")
        await wait_for(pilot, lambda: app.choice.profile == "local")
        await send(pilot, app, "early")
        await pilot.pause(0.2)
        assert app.session is None and not app.chat_screen.messages(), "waiting for the session"
        assert "local · other-model" in str(app.chat_screen.status.render()), "the screen goes on updating"
        app.gate.set()
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert app.chat_screen.messages()[-1].answer == ANSWER
        assert faults.seen[-1].body["model"] == "other-model"
        assert [m["content"] for m in faults.seen[-1].body["messages"]] == ["early"]


async def test_export_and_themes(faults: FaultServer) -> None:
    faults.gap = 0.01
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "Explain")
        await wait_for(pilot, lambda: app.chat_screen.messages()[-1].finished)
        app.action_export()
        exported = next((locations.data_dir() / "exports").glob("*.md")).read_text()
        assert "<details><summary>Reasoning</summary>" in exported and "Let me think" in exported
        assert "# Title" in exported and "\n---\n\n**You**\n\nExplain\n" in exported
        ours = {t for t in app.available_themes if t.startswith("chatterm")}
        assert len(ours) >= 3
        app.theme = "chatterm-light"
        await pilot.pause()
    from chatterm.settings.remembered import load_state

    assert load_state()["theme"] == "chatterm-light"


async def test_the_first_frame_is_drawn_in_the_remembered_theme(monkeypatch: pytest.MonkeyPatch) -> None:
    """The theme is set before anything is styled: set when the app mounted, the chat screen was styled (and its
    first frame drawn) in Textual's default theme, then styled again in the chosen one."""
    from chatterm.settings.remembered import save_state
    from chatterm.ui.screens.chat import ChatScreen

    save_state(theme="chatterm-light")
    styled: list[str] = []
    mounted = ChatScreen.on_mount

    def on_mount(screen: ChatScreen) -> None:
        styled.append(screen.styles.background.hex)
        mounted(screen)

    monkeypatch.setattr(ChatScreen, "on_mount", on_mount)
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "chatterm-light"
        assert styled == ["#FAFAF7"], "the light theme's background from the start"
        assert app.chat_screen.styles.background.hex == "#FAFAF7"


async def test_demo_profile_first_run() -> None:
    app = app_for()
    async with app.run_test(size=(100, 36)) as pilot:
        assert app.choice.is_demo
        await wait_for(pilot, lambda: bool(app.chat_screen.conversation_view.children))
        await send(pilot, app, "Say hi in Portuguese")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        message = app.chat_screen.messages()[-1]
        assert message.answer.startswith("Oi!") and message.reasoning.startswith("First")
        assert isinstance(message.markdown, MarkdownView)


async def test_palette_offers_the_chat_commands(faults: FaultServer) -> None:
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 30)) as pilot:
        await run_command(pilot, app, "replay speed: 4x")
        await wait_for(pilot, lambda: app.replay_speed == "4x")
        await send(pilot, app, "code please")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        app.action_copy_code()
        assert app.clipboard == "print('hi')\n"


async def test_old_turns_leave_the_view_at_a_quiet_moment(faults: FaultServer, monkeypatch: Any) -> None:
    """Removing turns relayouts the whole view, so it waits for a quiet moment after an answer, unless the view
    holds PRUNE_SLACK turns too many."""
    from chatterm.ui.screens import chat

    monkeypatch.setattr(chat, "MAX_MOUNTED_TURNS", 3)
    monkeypatch.setattr(chat, "PRUNE_SLACK", 2)
    monkeypatch.setattr(chat, "TIDY_DELAY", 600)  # no quiet moment yet
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        for turn in range(6):
            await send(pilot, app, f"turn {turn}")
            await wait_for(pilot, lambda: not screen.streaming and screen.messages()[-1].finished)
        assert len(screen.messages()) == 3, "past the slack: at once"
        assert "3 earlier turns" in str(screen._earlier.render())
        monkeypatch.setattr(chat, "TIDY_DELAY", 0.3)
        await send(pilot, app, "turn 6")
        await wait_for(pilot, lambda: not screen.streaming and screen.messages()[-1].finished)
        assert len(screen.messages()) == 4, "within the slack: not at once"
        # (the turns go, then the line above them says how many are not shown: wait for both)
        await wait_for(pilot, lambda: len(screen.messages()) == 3 and "4 earlier" in str(screen._earlier.render()))
        assert len(screen.turns) == 7


def long_session(path: Path, turns: int, answer: str = "answer {n}", reasoning: str | None = None) -> Path:
    """A session of `turns` turns: question n, answered with `answer` (`{n}`: the turn's number), after `reasoning`."""
    from chatterm.cassette.model import Interaction, Recording, Request, Response
    from chatterm.cassette.write import render

    interactions, history = [], []
    for turn in range(turns):
        history.append({"role": "user", "content": f"question {turn}"})
        text = answer.format(n=turn)
        deltas = ([{"reasoning_content": reasoning.format(n=turn)}] if reasoning else []) + [{"content": text}]
        chunks = [{"choices": [{"index": 0, "delta": delta}]} for delta in deltas]
        body = ("".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n").encode()
        url = "http://127.0.0.1/v1/chat/completions"
        request = Request("POST", url, body=json.dumps({"messages": history}).encode())
        interactions.append(Interaction(request, Response(200, {"content-type": ["text/event-stream"]}, body)))
        history = [*history, {"role": "assistant", "content": text}]
    path.write_bytes(render(Recording("vcr", interactions)))
    return path


def test_load_tail_matches_a_full_load(tmp_path: Path) -> None:
    from chatterm.cassette.load import load_tail

    path = long_session(tmp_path / "long.yaml", 30)
    tail, total = load_tail(path, 7)
    full = load_recording(path)
    assert total == 30 and len(tail.interactions) == 7
    assert [i.response.body for i in tail.interactions] == [i.response.body for i in full.interactions[-7:]]
    assert [i.request.body for i in tail.interactions] == [i.request.body for i in full.interactions[-7:]]  # type: ignore[union-attr]


async def test_a_long_session_opens_with_its_tail_then_its_whole_history(faults: FaultServer, tmp_path: Path) -> None:
    from chatterm.ui.screens.chat import OPENED_TURNS

    path = long_session(tmp_path / "long.yaml", 120)
    app = app_for(faults.url("ok"), replay=path, speed="instant")
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen

        def shown() -> bool:
            children = list(screen.conversation_view.children)
            return bool(children) and "Replay finished" in str(children[-1].render())

        await wait_for(pilot, shown)
        assert len(screen.messages()) == OPENED_TURNS
        assert screen.messages()[-1].answer == "answer 119"
        assert "100 earlier turns" in str(screen._earlier.render())
        await send(pilot, app, "and now?")
        await wait_for(pilot, lambda: screen.messages()[-1].finished and screen.messages()[-1].answer[:5] == "Hello")
        sent = faults.seen[-1].body["messages"]
        assert len(sent) == 241 and sent[0] == {"role": "user", "content": "question 0"}
        assert len(screen.turns) == 121 and screen.turns[0].prompt == "question 0"
        assert len(screen.messages()) == OPENED_TURNS + 1
        turns = saved_turns(app)
        assert len(turns) == 121, "the continued session file holds the whole history"


@pytest.mark.blinking_cursor
async def test_while_an_answer_streams_the_speed_is_shown_and_the_cursor_is_steady(faults: FaultServer) -> None:
    """The live speed is redrawn with the answer's frames, and the composer's cursor does not blink (each blink and
    each speed redraw of their own would be a frame more while the answer draws 20 a second)."""
    faults.gap = 0.02
    app = app_for(faults.url("lines"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.chat_screen
        assert screen.composer.cursor_blink
        await send(pilot, app, "Go")
        await wait_for(pilot, lambda: "tok/s" in str(screen.status.render()))
        assert screen.streaming and not screen.composer.cursor_blink
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        assert screen.composer.cursor_blink, "blinks again once the answer is in"


WARMED = """
import asyncio
from pygments.lexer import RegexLexer
from pygments.lexers import find_lexer_class_by_name
from chatterm.ui.markdown.blocks import WARM_LANGUAGES
from tests.ui.helpers import app_for, wait_for

async def main() -> None:
    lexers = [find_lexer_class_by_name(language) for language in WARM_LANGUAGES]
    lexers = [lexer for lexer in lexers if issubclass(lexer, RegexLexer)]  # (those that compile expressions)
    assert "PythonLexer" in [lexer.__name__ for lexer in lexers]
    assert not any("_tokens" in lexer.__dict__ for lexer in lexers), "compiled before the app started"
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: all("_tokens" in lexer.__dict__ for lexer in lexers))
        assert not app.chat_screen.messages(), "without an answer drawn"

asyncio.run(main())
"""


def test_code_highlighting_is_prepared_after_start_up() -> None:
    """The commonest languages' highlighters are compiled in a thread once the app is up, not in the frame that
    draws an answer's first code block (about 50 ms for Python). In a process of its own: the test run has compiled
    them long before."""
    done = subprocess.run([sys.executable, "-c", WARMED], cwd=Path(__file__).parents[2], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


COLLECTION_AT_START = """
import gc
from textual.app import App
from chatterm.cli.main import main
from chatterm.ui import memory
from chatterm.ui.app import ChatApp

assert main(["profiles", "list"]) == 0 and gc.isenabled(), "other commands collect as usual"
seen = {}
booted = ChatApp._boot

async def boot(self: ChatApp) -> None:
    seen["before boot"] = gc.isenabled()
    await booted(self)
    seen["after boot"] = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() > 0)
    self.exit()

ChatApp._boot = boot
ChatApp.run = lambda self, **options: App.run(self, headless=True)
assert main(["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]) == 0
assert seen["before boot"] is False, seen
assert seen["after boot"] == (True, (memory.YOUNG, 10, memory.FULL_EVERY), True), seen
"""


def test_the_app_starts_without_garbage_collection_and_turns_it_on_once_up() -> None:
    """Start-up allocates much and frees little: collections then only delay the first frame (by 70-100 ms). The
    command line switches them off for the app; once the app is up, collection is on again, tuned."""
    done = subprocess.run(
        [sys.executable, "-c", COLLECTION_AT_START], cwd=Path(__file__).parents[2], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


async def test_the_sessions_dialog_opens_at_once_and_fills_as_sessions_are_read() -> None:
    """Every session is read whole to be listed (a hundred long ones took seconds): the dialog opens first, is
    usable at once, and gains its rows, newest first, as a thread reads them; a filter typed meanwhile holds."""
    import threading
    import time

    from chatterm.cassette.store import SessionInfo

    release = threading.Event()

    def read(path: Path) -> SessionInfo:
        n = int(path.stem)
        if n >= 10:
            release.wait(10)  # (the rest are read once the test has looked at the dialog)
        time.sleep(0.002)
        return SessionInfo(path, f"question {n} {'even' if n % 2 == 0 else 'odd'}", 1.8e9 - n, "demo", "m", 1)

    app = app_for()
    async with app.run_test(size=(110, 36)) as pilot:
        dialog = SessionsScreen([Path(f"/s/{n}.yaml") for n in range(40)], read)
        dialog.BATCH = 0.0  # (each row as soon as it is read)
        await app.push_screen(dialog)
        table = dialog.query_one("#sessions", DataTable)
        await wait_for(pilot, lambda: table.row_count == 10)
        assert not dialog.loaded and "reading 10 of 40" in str(dialog.query_one(".title", Label).render())
        await pilot.press(*"even")
        await wait_for(pilot, lambda: table.row_count == 5)
        release.set()
        await wait_for(pilot, lambda: dialog.loaded)
        shown = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        assert shown == [f"question {n} even" for n in range(0, 40, 2)], "newest first, the filter kept"
        assert str(dialog.query_one(".title", Label).render()) == "Sessions"
