"""End to end: the installed `chatterm` command in a real terminal (tmux), read off the screen."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import sse_capture

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
]


class Terminal:
    """A tmux session on a private socket, 120x40, running one command."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False).stdout

    def start(self, command: list[str]) -> None:
        self.tmux("kill-server")
        subprocess.run(
            [
                "tmux",
                "-L",
                self.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                "120",
                "-y",
                "40",
                *command,
            ],
            check=True,
        )
        self.tmux("set-option", "-g", "set-clipboard", "on")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def wait_for(self, check: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed what was expected:\n{screen}")
            time.sleep(0.1)

    def whole_frame(self, timeout: float = 5.0) -> str:
        """The screen between two frames: tmux applies what the app writes as it arrives, so a capture can catch a
        frame half drawn (the lines scrolled, the new ones not yet written). Two captures in a row that agree are
        a whole frame; a line left stale by the app stays so in both."""
        deadline = time.monotonic() + timeout
        screen = self.screen()
        while time.monotonic() < deadline:
            time.sleep(0.02)
            again = self.screen()
            if again == screen:
                return screen
            screen = again
        raise AssertionError(f"the screen never held still:\n{screen}")

    def alive(self) -> bool:
        return "t" in self.tmux("list-sessions", "-F", "#{session_name}").split()


@pytest.fixture
def terminal(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    term = Terminal(f"chatterm-e2e-{request.node.name[:20]}-{time.monotonic_ns()}")
    yield term
    term.tmux("kill-server")


def chatterm_command(*args: str) -> list[str]:
    executable = shutil.which("chatterm")
    assert executable, "the chatterm command is installed (pip install -e .)"
    return [executable, *args]


def test_streamed_answer_and_reasoning_pane_on_screen(terminal: Terminal, fault_server: Any) -> None:
    fault_server.gap = 0.3
    terminal.start(chatterm_command("--base-url", fault_server.url("think"), "--model", "fault-model"))
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("Explain it", "Enter")
    thinking = terminal.wait_for(lambda s: "Thinking" in s and "Let me" in s)
    assert "Title" not in thinking, "reasoning shows before the answer"
    final = terminal.wait_for(lambda s: "reasoning tokens" in s and "two" in s and "ready" in s)
    assert "print('hi')" in final and "Title" in final and "bold" in final
    assert "9 reasoning tokens" in final
    assert "Let me think" not in final, "the pane collapsed when the answer started"
    terminal.send("C-t")
    terminal.wait_for(lambda s: "Let me think about a short answer." in s)
    terminal.send("C-q")
    deadline = time.monotonic() + 10
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive(), "Ctrl+Q quits"


def test_escape_sequences_do_not_clear_the_screen_or_reach_the_clipboard(
    terminal: Terminal, serve_recording: Callable[..., str], tmp_path: Path
) -> None:
    hostile = "Hello\x1b[2J\x1b[H\x1b]52;c;cHduZWQ=\x07 there \x1b]8;;http://evil\x07link\x1b]8;;\x07 end"
    capture = sse_capture(tmp_path / "hostile.sse", hostile)
    terminal.start(chatterm_command("--base-url", serve_recording(capture)))
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("first prompt stays visible", "Enter")
    screen = terminal.wait_for(lambda s: " end" in s and "ready" in s)
    assert "first prompt stays visible" in screen, "the screen was not cleared"
    assert "␛[2J" in screen
    assert terminal.tmux("list-buffers") == "", "nothing reached the clipboard"
    terminal.send("C-q")


def test_replay_command_restreams_a_seed(terminal: Terminal) -> None:
    from tests.conftest import SEEDS

    terminal.start(chatterm_command("replay", str(SEEDS / "xai_grok_simple_streaming.yaml"), "--instant"))
    screen = terminal.wait_for(lambda s: "Replay finished" in s)
    assert "Say hi in Portuguese" in screen and "Oi!" in screen
    assert "133 reasoning tokens" in screen
    terminal.send("C-q")


def test_first_run_opens_a_working_chat_on_the_demo_profile(terminal: Terminal) -> None:
    """The README's first command: `chatterm` with no config, no key, no network."""
    terminal.start(chatterm_command())
    terminal.wait_for(lambda s: "offline demo profile" in s and "demo · chatterm-demo" in s)
    terminal.send("Say hi in Portuguese", "Enter")
    screen = terminal.wait_for(lambda s: "Oi!" in s and "ready" in s)
    assert "reasoning tokens" in screen
    terminal.send("C-q")


@pytest.mark.parametrize("scenario", ["long", "gzip-long"])
def test_kill_9_mid_answer_keeps_the_session_as_far_as_it_got(
    terminal: Terminal, fault_server: Any, scenario: str
) -> None:
    """Also for an answer sent gzip-compressed, whose wire bytes cut short would not inflate as a whole."""
    import os
    import signal

    from chatterm import locations
    from chatterm.cassette.load import load_recording
    from chatterm.cassette.summary import summarize
    from tests.faultserver import LONG_ANSWER

    fault_server.gap = 0.03
    terminal.start(chatterm_command("--base-url", fault_server.url(scenario), "--model", "fault-model"))
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("an earlier turn", "Enter")
    terminal.wait_for(lambda s: "partial answer." in s and "ready" in s)
    terminal.send("a long one", "Enter")
    terminal.wait_for(lambda s: "word60 " in s)
    time.sleep(1.3)  # past a flush interval
    pane_pid = int(terminal.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())
    os.killpg(os.getpgid(pane_pid), signal.SIGKILL)
    (session,) = locations.sessions_dir().glob("*.yaml")
    turns = summarize(load_recording(session))["turns"]
    assert turns[0]["response"]["content"] == "Hello, this is a partial answer.", "earlier turns are all there"
    content = turns[-1]["response"]["content"]
    assert content and LONG_ANSWER.startswith(content) and "word40 " in content
    assert content != LONG_ANSWER, "the process died mid-answer"
    assert turns[-1]["response"]["error"]["message"].startswith("the answer was still streaming")


def test_ask_on_a_terminal_neutralises_escapes(
    terminal: Terminal, serve_recording: Callable[..., str], tmp_path: Path
) -> None:
    hostile = "Hello\x1b[2J\x1b[H\x1b]52;c;cHduZWQ=\x07 there end"
    capture = sse_capture(tmp_path / "hostile.sse", hostile)
    base_url = serve_recording(capture)
    script = tmp_path / "run.sh"
    script.write_text(
        f"echo before-the-answer; {' '.join(chatterm_command('ask', '--base-url', base_url, 'hi'))}; sleep 30\n"
    )
    terminal.start(["sh", str(script)])
    screen = terminal.wait_for(lambda s: "there end" in s)
    assert "before-the-answer" in screen, "the screen was not cleared"
    assert "␛[2J" in screen and terminal.tmux("list-buffers") == ""


def in_order(screen: str) -> list[int]:
    """The numbers of the "Line N." paragraphs on screen, checked to be one blank line apart (none doubled or lost)."""
    rows = screen.splitlines()
    view = [row.rstrip(" ▁▂▃▄▅▆▇█▔▕▐▏▎▍▌▋▊▉") for row in rows[: next(i for i, r in enumerate(rows) if "Message" in r)]]
    lines = [i for i, row in enumerate(view) if row.startswith("  Line ")]
    shown = view[lines[0] : lines[-1] + 1]
    numbers = [int(row.strip()[5:-1]) if row.strip()[5:-1].isdigit() else -1 for row in shown[::2]]  # (-1: not one)
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), screen
    assert not any(row.strip() for row in shown[1::2]), shown
    return numbers


def test_a_long_answer_followed_by_terminal_scrolls_is_drawn_in_order(terminal: Terminal, fault_server: Any) -> None:
    """The conversation follows a long answer by scrolling the terminal's lines (a scroll region) and repainting only
    what that leaves out: in tmux, while it streams and after, its lines are on screen in order, one blank line
    apart, none doubled, lost or left behind."""
    fault_server.gap = 0.04
    terminal.start(chatterm_command("--base-url", fault_server.url("lines"), "--model", "fault-model"))
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("Many lines", "Enter")
    terminal.wait_for(lambda s: re.search(r"Line [3-9]\d\.", s) is not None)
    for _ in range(8):  # while it streams
        assert len(in_order(terminal.whole_frame())) >= 5
        time.sleep(0.25)
    screen = terminal.wait_for(lambda s: "Line 119." in s and "ready" in s)
    while (settled := terminal.screen()) != screen:  # (the last frames of the answer)
        screen = settled
        time.sleep(0.3)
    assert in_order(screen)[-1] == 119
    terminal.send("C-q")


def reasoning_rows(screen: str) -> list[str]:
    """The lines of the reasoning pane on screen, as written (its body is indented 4 columns under its title)."""
    rows = screen.splitlines()
    title = next((n for n, row in enumerate(rows) if "Thinking" in row or "Thought for" in row), None)
    if title is None:
        return []
    body = []
    for row in rows[title + 1 :]:
        if not row.startswith("    ") or not row.strip():
            break
        body.append(row.rstrip(" ▁▂▃▄▅▆▇█▔▕▐▏▎▍▌▋▊▉").strip())
    return body


def test_the_reasoning_pane_shows_only_what_the_model_sent_at_its_pace(terminal: Terminal) -> None:
    """The deepseek recording replayed at its pace: in every frame captured, each line of the reasoning pane is a
    piece of the recorded reasoning, and they follow each other in it (the pane once showed `Hmmmm, the user`)."""
    import json

    from tests.conftest import CORPUS, run_chatterm

    path = CORPUS / "pydai__test_deepseek__test_deepseek_model_thinking_stream.yaml"
    recorded = json.loads(run_chatterm("show", str(path), "--json").stdout)["turns"][0]["response"]["reasoning"]
    flat = " ".join(recorded.split())
    terminal.start(chatterm_command("replay", str(path)))
    frames: list[list[str]] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        screen = terminal.screen()
        rows = reasoning_rows(screen)
        if rows:
            frames.append(rows)
        if "Replay finished" in screen:
            break
        time.sleep(0.03)
    assert len(frames) > 5, "the reasoning was on screen while it streamed"
    for rows in frames:
        at = 0
        for row in rows:
            found = flat.find(" ".join(row.split()), at)
            assert found >= 0, f"{row!r} is not what the model sent next (after {flat[at - 40 : at]!r})"
            at = found + len(row)
    terminal.send("C-q")
