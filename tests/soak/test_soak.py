"""Soak: 500 turns through `ask --record` and through the headless app; memory flat, no fd leaks.

Run on its own (CI runs it as a separate step): `python3 -m pytest -m soak -s tests/soak`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from chatterm.cli.main import main
from tests.faultserver import ANSWER, FaultServer
from tests.ui.helpers import app_for, send, wait_for

pytestmark = [pytest.mark.soak, pytest.mark.timeout(900)]
TURNS = int(os.environ.get("CHATTERM_SOAK_TURNS", "500"))


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def report(name: str, samples: list[tuple[int, float, int]], seconds: float) -> None:
    (_, rss_start, fds_start), (_, rss_end, fds_end) = samples[0], samples[-1]
    print(
        f"\nsoak {name}: {TURNS} turns in {seconds:.1f} s; RSS {rss_start:.1f} -> {rss_end:.1f} MB "
        f"({rss_end - rss_start:+.1f} MB after warm-up); open fds {fds_start} -> {fds_end}"
    )


def test_ask_record_500_turns(fault_server: FaultServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "soak.yaml"
    samples: list[tuple[int, float, int]] = []
    started = time.monotonic()
    for turn in range(TURNS):
        argv = ["ask", "--base-url", fault_server.url("ok"), "--record", str(record), "--force", f"turn {turn}"]
        assert main(argv) == 0
        assert capsys.readouterr().out == ANSWER
        if turn in (TURNS // 10, TURNS - 1):
            samples.append((turn, rss_mb(), open_fds()))
    with capsys.disabled():
        report("ask --record", samples, time.monotonic() - started)
    assert samples[-1][2] - samples[0][2] <= 2, "file descriptors leak"
    assert samples[-1][1] - samples[0][1] < 40, "memory grows with the number of runs"


async def test_headless_app_500_turns(faults: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    app = app_for(faults.url("ok"))
    warm = min(TURNS - 2, max(TURNS // 5, 60))  # after the view has filled up
    samples: list[tuple[int, float, int]] = []
    started = time.monotonic()
    async with app.run_test(size=(120, 40)) as pilot:
        for turn in range(TURNS):
            await send(pilot, app, f"turn {turn}")
            await wait_for(pilot, lambda: not app.chat_screen.streaming and app.chat_screen.messages()[-1].finished)
            if turn in (warm, TURNS - 1):
                samples.append((turn, rss_mb(), open_fds()))

        from chatterm.ui.screens.chat import MAX_MOUNTED_TURNS

        assert len(app.chat_screen.turns) == TURNS
        await wait_for(pilot, lambda: len(app.chat_screen.messages()) == min(TURNS, MAX_MOUNTED_TURNS))  # quiet: tidied
        assert app.session is not None and app.session.saver is not None
        app.session.saver.flush()
    with capsys.disabled():
        report("headless app", samples, time.monotonic() - started)
    assert samples[-1][2] - samples[0][2] <= 2, "file descriptors leak"
    # Only the last turns stay mounted, so widgets (about 360 KB a turn when they leaked; 300 when the footer kept
    # the keys it rebuilt, tests/ui/test_footer.py) no longer grow. What grows is the conversation: every recorded
    # request carries the whole history, as a cassette must, and the session saver keeps each one's YAML so that a
    # save renders only the newest (each about 35 KB a turn on average over 100-500 turns); then the last requests
    # the test's server keeps, and garbage awaiting the next collection: about 120-150 KB a turn measured here.
    per_turn_kb = (samples[-1][1] - samples[0][1]) * 1024 / (samples[-1][0] - samples[0][0])
    print(f"soak headless app: {per_turn_kb:.0f} KB per turn after warm-up")
    assert per_turn_kb < 300, f"{per_turn_kb:.0f} KB per turn"  # a widget leak adds ~360 KB/turn on top
