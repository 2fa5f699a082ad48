"""End to end: the terminal goes away under the app (its window closed, its tmux session killed) while an answer
streams: the app ends, as it does on Ctrl+Q, with the answer kept as far as it got; it does not stay behind."""

from __future__ import annotations

import shutil
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

    fault_server.gap = 0.001
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
