"""End to end: the terminal goes away under the app (its window closed, its tmux session killed) while an answer
streams: the app ends, as it does on Ctrl+Q, with the answer kept as far as it got; it does not stay behind."""

from __future__ import annotations

import os
import shutil
import signal
from typing import Any

import pytest

from tests.e2e.processes import ended
from tests.e2e.test_tmux import Terminal, chatterm_command, terminal  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
]


@pytest.mark.parametrize("how", ["kill-server", "kill-session"])
def test_the_app_ends_when_its_terminal_goes_away_mid_answer(
    terminal: Terminal,  # noqa: F811
    fault_server: Any,
    how: str,
) -> None:
    from chatterm import locations
    from chatterm.cassette.load import load_recording
    from chatterm.cassette.summary import summarize
    from tests.faultserver import LONG_ANSWER

    fault_server.gap = 0.005  # (400 words in two seconds: word30 is on screen for a good part of one)
    terminal.start(chatterm_command("--base-url", fault_server.url("long"), "--model", "fault-model"))
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("an earlier turn", "Enter")  # (the server's long answer is its second)
    terminal.wait_for(lambda s: "partial answer." in s and "ready" in s)
    terminal.send("a long one", "Enter")
    terminal.wait_for(lambda s: "word30 " in s)
    pid = int(terminal.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())
    terminal.tmux(how, *([] if how == "kill-server" else ["-t", "t"]))
    assert ended(pid, 15), "the app stayed behind its closed terminal"
    (session,) = locations.sessions_dir().glob("*.yaml")
    content = summarize(load_recording(session))["turns"][-1]["response"]["content"]
    assert content and LONG_ANSWER.startswith(content) and "word30 " in content, "the answer as far as it got"


def test_the_app_ends_when_its_terminal_goes_away_right_after_keys(terminal: Terminal) -> None:  # noqa: F811
    """A terminal that hangs up sends SIGHUP and SIGCONT together; Textual resumed its application mode on the
    SIGCONT, on a terminal that was gone, and the app's last writes then waited forever: the process stayed behind
    its closed window, deaf to SIGTERM (one run in three of a burst of keys followed by the window closing)."""
    stayed = []
    for attempt in range(6):
        terminal.start(chatterm_command())
        terminal.wait_for(lambda s: "Enter sends" in s)
        terminal.send("abc", "Left", "C-j", "xy", "End", "C-j", "z")
        terminal.wait_for(lambda s: "z" in s.split("Enter sends")[-1])
        pid = int(terminal.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())
        terminal.tmux("kill-server")
        if not ended(pid, 8):
            stayed.append(attempt)
            os.kill(pid, signal.SIGKILL)
    assert not stayed, f"the app stayed behind its closed terminal (attempts {stayed})"
