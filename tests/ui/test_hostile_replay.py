"""A session file whose last turn reads but whose earlier history is hostile: `replay` checks only the last turn
before the app starts (a long session opens at once), so the app itself meets the refusal and says it in one line,
instead of the worker's error ending the app with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatterm.cassette.load import load_recording, load_tail
from chatterm.cassette.model import RecordingError
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, wait_for
from tests.ui.test_app import long_session


def hostile_head(path: Path) -> Path:
    """A long session whose first turn holds a number Python refuses to read."""
    long_session(path, 30)
    text = path.read_text()
    assert "    code: 200\n" in text
    path.write_text(text.replace("    code: 200\n", "    code: " + "9" * 5000 + "\n", 1))
    load_tail(path, 1)  # the last turn reads
    with pytest.raises(RecordingError):
        load_recording(path)
    return path


@pytest.mark.parametrize("speed", ["1x", "instant"])
async def test_a_session_with_a_hostile_history_is_refused_in_the_app(
    speed: str, faults: FaultServer, tmp_path: Path
) -> None:
    path = hostile_head(tmp_path / "hostile.yaml")
    app = app_for(faults.url("ok"), replay=path, speed=speed)
    async with app.run_test(size=(100, 36)) as pilot:
        said = "a number 5000 characters long"
        await wait_for(pilot, lambda: any(said in str(note.message) for note in app._notifications))
        assert app.is_running and app.return_code is None
