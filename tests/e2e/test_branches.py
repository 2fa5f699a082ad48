"""End to end: the conversation tree in the installed command in tmux. Two prompts, the first edited into a new
branch, Left back to the first branch, quit; the session opened again from Ctrl+O holds both branches."""

from __future__ import annotations

import shutil
import time
from typing import Any

import pytest

from tests.e2e.test_tmux import Terminal, chatterm_command, terminal  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
]


def select_first_prompt(terminal: Terminal) -> None:  # noqa: F811
    """Tab to the conversation, then Home: each key once the one before has acted (the focus moves between them)."""
    terminal.send("Tab")
    terminal.wait_for(lambda s: "↑↓ Select" in s)
    terminal.send("Home")
    terminal.wait_for(lambda s: any(line.startswith(" ▌") and "first question" in line for line in s.splitlines()))


def quit_app(terminal: Terminal) -> None:  # noqa: F811
    terminal.send("C-q")
    deadline = time.monotonic() + 10
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive(), "Ctrl+Q quits"


def test_an_edited_prompt_is_a_branch_kept_in_the_session(terminal: Terminal, fault_server: Any) -> None:  # noqa: F811
    command = chatterm_command("--base-url", fault_server.url("ok"), "--model", "fault-model")
    terminal.start(command)
    terminal.wait_for(lambda s: "Enter sends" in s)
    for prompt in ("first question", "second question"):
        terminal.send(prompt, "Enter")
        terminal.wait_for(lambda s: prompt in s and "ready" in s)  # noqa: B023
    select_first_prompt(terminal)
    terminal.send("e")
    terminal.wait_for(lambda s: "Editing message 1 · Enter sends as a new branch · Escape cancels" in s)
    terminal.send(" edited", "Enter")
    screen = terminal.wait_for(lambda s: "first question edited" in s and "‹ 2/2 ›" in s and "ready" in s)
    assert "second question" not in screen, "the conversation below the edit is the new branch's"
    terminal.send("Tab")
    terminal.wait_for(lambda s: "↑↓ Select" in s)
    terminal.send("Home")
    terminal.wait_for(lambda s: "‹ 2/2 ›" in s and "←→ Branch" in s)
    terminal.send("Left")
    screen = terminal.wait_for(lambda s: "second question" in s and "‹ 1/2 ›" in s)
    assert "first question edited" not in screen
    quit_app(terminal)

    terminal.start(command)
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("C-o")
    terminal.wait_for(lambda s: "first question" in s)
    terminal.send("Enter")
    screen = terminal.wait_for(lambda s: "Replay finished" in s and "‹ 1/2 ›" in s)
    assert "second question" in screen, "the session opens on the branch it was left on"
    select_first_prompt(terminal)
    terminal.send("Right")
    screen = terminal.wait_for(lambda s: "first question edited" in s and "‹ 2/2 ›" in s)
    assert "second question" not in screen
    quit_app(terminal)
