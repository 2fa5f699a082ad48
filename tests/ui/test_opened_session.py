"""A session opened whole (Ctrl+O, or `replay --speed instant`) shows its end: the last answer and the line saying
the replay finished, however long its answers are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.write import render
from tests.ui.helpers import app_for, wait_for
from tests.ui.oracle import quiet, screen_text

ANSWER = "## Turn {n}\n\n" + "".join(f"- point {k} of answer {{n}}, a line long enough to read\n" for k in range(8)) + (
    "\n```python\nprint({n})\n```\n\nThe end of answer {n}."
)


def session_of_long_answers(path: Path, turns: int) -> Path:
    interactions, history = [], []
    for turn in range(turns):
        history.append({"role": "user", "content": f"question {turn}"})
        text = ANSWER.format(n=turn)
        chunks = [{"choices": [{"index": 0, "delta": {"reasoning_content": f"thinking about {turn}"}}]}]
        chunks += [{"choices": [{"index": 0, "delta": {"content": text}}]}]
        body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
        url = "http://127.0.0.1/v1/chat/completions"
        request = Request("POST", url, body=json.dumps({"messages": history}).encode())
        response = Response(200, {"content-type": ["text/event-stream"]}, body.encode())
        interactions.append(Interaction(request, response))
        history = [*history, {"role": "assistant", "content": text}]
    path.write_bytes(render(Recording("vcr", interactions)))
    return path


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_an_opened_long_session_shows_its_end(tmp_path: Path, size: tuple[int, int]) -> None:
    path = session_of_long_answers(tmp_path / "long.yaml", 13)
    app = app_for(replay=path, speed="instant", save_sessions=False)
    async with app.run_test(size=size) as pilot:
        view = app.chat_screen.conversation_view
        await wait_for(pilot, lambda: bool(view.children) and "Replay finished" in str(view.children[-1].render()))
        await quiet(pilot)
        shown = screen_text(app)
        assert "The end of answer 12." in shown and "Replay finished" in shown, shown
