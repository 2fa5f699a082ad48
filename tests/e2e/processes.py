"""Waiting for processes the end-to-end tests started (through a terminal or a server) to end."""

from __future__ import annotations

import os
import time


def ended(pid: int, timeout: float = 10, group: bool = False) -> bool:
    """Whether process `pid` (with `group`: every process of the group it leads) is gone within `timeout` seconds."""
    signal = os.killpg if group else os.kill
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            signal(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False
