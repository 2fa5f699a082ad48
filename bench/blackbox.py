"""Black-box driver: any terminal chat command in tmux at a fixed size, read off the screen.

For each run: seconds from the server's first byte to the sentinel on screen, the lag after the server's
last byte, CPU seconds of the app's whole process tree, and the longest interval with no screen change.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from bench.server import SENTINEL, BenchServer

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of a process and all its descendants."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total


@dataclass
class Terminal:
    socket: str
    width: int = 160
    height: int = 50

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True).stdout

    def start(self, command: str, env: dict[str, str]) -> None:
        self.tmux("kill-server")
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
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
                "b",
                "-x",
                str(self.width),
                "-y",
                str(self.height),
                f"env {exports} {command}",
            ],
            check=True,
        )

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "b")

    def pane_pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", "b", "#{pane_pid}").strip())

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "b", *keys)

    def wait_for(self, text: str, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.screen():
                return time.monotonic()
            time.sleep(0.01)
        raise TimeoutError(f"{text!r} never appeared on screen:\n{self.screen()}")

    def close(self) -> None:
        self.tmux("kill-server")


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


_HOMES: list[str] = []


@atexit.register
def _remove_homes() -> None:
    for home in _HOMES:
        shutil.rmtree(home, ignore_errors=True)


def fresh_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A fresh HOME and XDG directories (removed when the benchmark ends) and nothing else of this environment but
    PATH."""
    home = tempfile.mkdtemp(prefix="bench-home-")
    _HOMES.append(home)
    env = {
        "HOME": home,
        "XDG_CONFIG_HOME": f"{home}/.config",
        "XDG_DATA_HOME": f"{home}/.local/share",
        "PATH": os.environ.get("PATH", ""),
        "TERM": "xterm-256color",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    env.update(extra or {})
    return env


def run_app(
    command: str, server: BenchServer, ready: str = "Enter sends", prompt: str = "go", timeout: float = 900
) -> dict[str, float]:
    """Start `command` in tmux, send a prompt, and measure until the sentinel is on screen."""
    terminal = Terminal(f"bench-{os.getpid()}-{time.monotonic_ns()}")
    try:
        terminal.start(command, fresh_env())
        terminal.wait_for(ready, 30)
        time.sleep(0.5)  # the ready text can be drawn a moment before the input takes keys
        pid = terminal.pane_pid()
        cpu_before = tree_cpu(pid)
        server.reset()
        terminal.send(prompt, "Enter")
        last_screen, last_change, longest = "", time.monotonic(), 0.0
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            screen = terminal.screen()
            now = time.monotonic()
            if screen != last_screen:
                if server.first_byte is not None:
                    longest = max(longest, now - max(last_change, server.first_byte))
                last_screen, last_change = screen, now
            if SENTINEL in screen:
                seen = now
                break
            time.sleep(0.01)
        if seen is None or server.first_byte is None:
            raise TimeoutError(
                f"the sentinel never reached the screen (first byte {server.first_byte}):\n{last_screen}"
            )
        while server.last_byte is None:
            time.sleep(0.01)
        cpu = tree_cpu(pid) - cpu_before
        return {
            "first_to_last": seen - server.first_byte,
            "lag": max(seen - server.last_byte, 0.0),
            "cpu": cpu,
            "longest_still": longest,
        }
    finally:
        terminal.close()


def first_frame(command: str, ready: str = "Enter sends") -> float:
    """Seconds from starting the command to its first ready screen."""
    terminal = Terminal(f"bench-start-{os.getpid()}-{time.monotonic_ns()}")
    try:
        started = time.monotonic()
        terminal.start(command, fresh_env())
        return terminal.wait_for(ready, 30) - started
    finally:
        terminal.close()
