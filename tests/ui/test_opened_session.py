"""A session opened whole (Ctrl+O, or `replay --speed instant`) shows its end: the last answer and the line saying
the replay finished, however long its answers are."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import app_for, wait_for
from tests.ui.oracle import quiet, screen_text
from tests.ui.test_app import long_session

ANSWER = "## Turn {n}\n\n" + "".join(f"- point {k} of answer {{n}}, a line long enough to read\n" for k in range(8)) + (
    "\n```python\nprint({n})\n```\n\nThe end of answer {n}."
)


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_an_opened_long_session_shows_its_end(tmp_path: Path, size: tuple[int, int]) -> None:
    path = long_session(tmp_path / "long.yaml", 13, answer=ANSWER, reasoning="thinking about {n}")
    app = app_for(replay=path, speed="instant", save_sessions=False)
    async with app.run_test(size=size) as pilot:
        view = app.chat_screen.conversation_view
        await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
        await quiet(pilot)
        shown = screen_text(app)
        assert "The end of answer 12." in shown and "Replay finished" in shown, shown
