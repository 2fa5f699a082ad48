"""End to end, in a real terminal (tmux): whatever ends the app gives the terminal back as it was, and what a
provider sends never acts on the terminal."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tmux import Terminal, chatterm_command
from tests.faultserver import ANSWER, LONG_ANSWER

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
]


@pytest.fixture
def pane(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    term = Terminal(f"chatterm-safety-{request.node.name[:20]}-{time.monotonic_ns()}")
    yield term
    term.tmux("kill-server")


def modes(terminal: Terminal) -> dict[str, str]:
    """The pane's alternate screen and mouse reporting modes, as tmux keeps them ("1": on)."""
    names = ["alternate_on", "mouse_any_flag", "mouse_all_flag", "mouse_button_flag", "mouse_standard_flag"]
    shown = terminal.tmux("display-message", "-p", "-t", "t", " ".join(f"#{{{name}}}" for name in names))
    return dict(zip(names, shown.split(), strict=True))


def in_a_shell(terminal: Terminal, tmp_path: Path, command: list[str], before: str = "") -> None:
    """Run `command` from a shell that says how it exited and stays, so the pane can be read afterwards."""
    script = tmp_path / "run.sh"
    script.write_text(f"{before}{' '.join(command)}; echo exited $?; sleep 60\n")
    terminal.start(["sh", str(script)])


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_mid_answer_saves_the_session_and_gives_the_terminal_back(
    pane: Terminal,
    fault_server: Any,
    tmp_path: Path,
    name: str,
) -> None:
    from chatterm import locations
    from chatterm.cassette.load import load_recording
    from chatterm.cassette.summary import summarize

    number = int(getattr(signal, name))
    fault_server.gap = 0.03
    in_a_shell(pane, tmp_path, chatterm_command("--base-url", fault_server.url("long"), "--model", "fault-model"))
    pane.wait_for(lambda s: "Enter sends" in s)
    assert modes(pane)["alternate_on"] == "1" and modes(pane)["mouse_any_flag"] == "1"
    pane.send("an earlier turn", "Enter")
    pane.wait_for(lambda s: "partial answer." in s and "ready" in s)
    pane.send("a long one", "Enter")
    pane.wait_for(lambda s: "word60 " in s)
    shell = pane.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
    (app,) = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True).stdout.split()
    os.kill(int(app), number)
    pane.wait_for(lambda s: f"exited {128 + number}" in s, timeout=15)
    assert set(modes(pane).values()) == {"0"}, "the normal screen, no mouse reporting"
    (session,) = locations.sessions_dir().glob("*.yaml")
    turns = summarize(load_recording(session))["turns"]
    assert turns[0]["response"]["content"] == ANSWER
    content = turns[-1]["response"]["content"]
    assert "word60 " in content and LONG_ANSWER.startswith(content) and content != LONG_ANSWER
    assert turns[-1]["response"]["error"] is not None, "marked as cut short"


def test_a_provider_error_on_a_terminal_does_not_act_on_it(
    pane: Terminal,
    fault_server: Any,
    tmp_path: Path,
) -> None:
    command = chatterm_command("ask", "--base-url", fault_server.url("escapes-error"), "--model", "fault-model", "hi")
    in_a_shell(pane, tmp_path, command, before="echo before-the-error; ")
    screen = pane.wait_for(lambda s: "exited 1" in s)
    assert "before-the-error" in screen, "the screen was not cleared"
    assert "chatterm: HTTP 400: bad request␛[2J␛[H␛]52;c;cHduZWQ=␇" in screen
    assert pane.tmux("list-buffers") == "", "nothing reached the clipboard"
