"""End to end: the sessions list (Ctrl+O) of the installed command in tmux, with a bad file of every kind in the
sessions folder, the newest one a file that would take minutes to parse."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from chatterm import locations
from tests.e2e.test_tmux import Terminal, chatterm_command, terminal  # noqa: F401  (the fixture)
from tests.test_sessions_index import bad_files, huge_dense, save, turn

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
]


def test_bad_files_never_stop_the_sessions_list_nor_ctrl_q(terminal: Terminal) -> None:  # noqa: F811
    folder = locations.sessions_dir()
    for n in range(2):
        save(f"good{n}.yaml", turn(f"good question {n}"))
    bad = bad_files(folder)
    huge_dense(folder / "slow.yaml", 64)  # parsed whole, about a minute or more
    later = time.time() + 60
    os.utime(folder / "slow.yaml", (later, later))  # the newest: read first
    (folder / ".index.json").unlink(missing_ok=True)
    terminal.start(chatterm_command())
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("C-o")
    terminal.wait_for(lambda s: all(f"good question {n}" in s for n in range(2)), timeout=20)
    screen = terminal.whole_frame()
    for name in [*bad, "slow.yaml"]:
        assert f"⚠ {name}: " in screen, f"{name} is not marked:\n{screen}"  # (the rest as its column allows)
    terminal.send("C-q")
    deadline = time.monotonic() + 10
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive(), "Ctrl+Q quits"


def test_a_burst_after_ctrl_o_filters_the_list_moves_in_it_and_opens_the_one_picked(terminal: Terminal) -> None:  # noqa: F811
    """Ctrl+O, a filter with a typo mended, Down and Enter, sent at once as a macro or a text expander would."""
    for number, prompt in enumerate(["the oldest question", "a question about Python", "the newest question"]):
        path = save(f"s{number}.yaml", turn(prompt))
        os.utime(path, (1767225600 + number * 3600, 1767225600 + number * 3600))
    save("other.yaml", turn("nothing to do with it"))
    terminal.start(chatterm_command())
    terminal.wait_for(lambda s: "Enter sends" in s)
    terminal.send("C-o", "questiin", "Left", "BSpace", "o", "Down", "Enter")
    screen = terminal.wait_for(lambda s: "Replay finished" in s, timeout=20)
    assert "a question about Python" in screen, screen
    assert "the newest question" not in screen and "questi" not in screen.split("Enter sends")[-1], screen
    terminal.send("C-q")
