"""End to end: keys typed into the installed command in tmux, as a burst (`tmux send-keys` writes them at once, as a
text expander or a macro does)."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.e2e.test_tmux import Terminal, chatterm_command, terminal  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
]


def composer_lines(screen: str) -> list[str]:
    """The text lines inside the composer's frame (between its title line and its bottom edge)."""
    lines = screen.splitlines()
    top = next(n for n, line in enumerate(lines) if "Enter sends" in line)
    inside = []
    for line in lines[top + 1 :]:
        if "▁▁▁" in line:
            break
        inside.append(re.sub(r"^▊ ?|\s*▎$", "", line).rstrip())
    return inside


def test_a_burst_with_ctrl_j_breaks_the_line_at_the_cursor(terminal: Terminal) -> None:  # noqa: F811
    terminal.start(chatterm_command())
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("abc", "Left", "C-j", "xy", "End", "C-j", "z")
    screen = terminal.wait_for(lambda s: "z" in composer_lines(s))
    assert composer_lines(screen) == ["ab", "xyc", "z"]
