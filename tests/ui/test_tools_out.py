"""Tool calls and results wherever a conversation leaves the live screen: the Markdown export, "Copy message…", and
turns put back on screen by "Load earlier turns"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.summary import summarize
from chatterm.cassette.write import render
from chatterm.ui.screens.chat import OPENED_TURNS
from chatterm.ui.screens.copying import PickScreen
from chatterm.ui.widgets.earlier import LoadEarlier
from tests.test_show_tools import responses_recording
from tests.ui.helpers import app_for, run_command, settled, wait_for
from tests.ui.test_tools import ANTHROPIC, PARALLEL, calls, prompts, replayed

ARGUMENTS = ["```json", "{", '  "a": 2,', '  "b": 3', "}", "```"]
PARALLEL_TOOLS = "\n".join(
    [
        *["[tool call] add", *ARGUMENTS, "[tool result] add", "```", "5", "```"],
        *["[tool call] multiply", *ARGUMENTS, "[tool result] multiply", "```", "6", "```"],
    ]
)
"""The parallel recording's calls, each with its result under it (the calls' ids left out)."""
ANTHROPIC_TOOLS = "\n".join(
    [
        *["[tool call] weather", "```json", "{", '  "location": "Florence, Italy"', "}", "```"],
        *["[tool result] weather", "```", "40 C", "```"],
    ]
)

RESPONSES_TOOLS = "\n".join(["[tool call] add", *ARGUMENTS, "[tool result] add", "```", "5", "```"])


def without_ids(text: str) -> str:
    return re.sub(r"^(\[tool (?:call|result)\] \S+) · \S+$", r"\1", text, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("path", "tools"),
    [(PARALLEL, PARALLEL_TOOLS), (ANTHROPIC, ANTHROPIC_TOOLS), (None, RESPONSES_TOOLS)],
    ids=["chat-completions", "anthropic", "responses"],
)
async def test_the_export_holds_each_call_with_its_arguments_and_its_result_under_it(
    path: Path | None, tools: str, tmp_path: Path
) -> None:
    """The export left tool calls out, and wrote each OpenAI result as a prompt (`[tool result] 6`), each Anthropic
    result as an empty one, and a Responses result and the reasoning items sent back as empty ones."""
    path = path or responses_recording(tmp_path / "responses.yaml")
    app = app_for(replay=load_recording(path), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        app.action_export()
    exported = without_ids(next((locations.data_dir() / "exports").glob("*.md")).read_text())
    assert tools in exported
    assert exported.count("**You**") == 1, "a turn that sends results back is no prompt"
    answer = summarize(load_recording(path))["turns"][-1]["response"]["content"]
    assert exported.index(tools) < exported.index(answer), "the calls and results come before the answer they led to"


async def test_a_copied_answer_holds_its_calls_and_their_results() -> None:
    """ "Copy message…" listed the answer that made the calls as nothing (no text), and copied no call."""
    app = app_for(replay=load_recording(PARALLEL), speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        await run_command(pilot, app, "copy message")
        await wait_for(pilot, lambda: isinstance(app.screen, PickScreen))
        await pilot.press("down", "enter")  # newest first: the last answer, then the one that made the calls
        await wait_for(pilot, lambda: not isinstance(app.screen, PickScreen))
        assert without_ids(app.clipboard) == PARALLEL_TOOLS


def tool_session(path: Path, after: int) -> Path:
    """The parallel recording's two turns, then `after` plain turns carrying the conversation on."""
    recorded = load_recording(PARALLEL).interactions
    assert recorded[1].request is not None
    history = [*recorded[1].request.messages, {"role": "assistant", "content": "The sum of 2 and 3 is 5."}]
    interactions = list(recorded)
    for turn in range(after):
        history.append({"role": "user", "content": f"question {turn}"})
        chunk = {"choices": [{"index": 0, "delta": {"content": f"answer {turn}"}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        body_sent = json.dumps({"messages": history}).encode()
        request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=body_sent)
        interactions.append(Interaction(request, Response(200, {"content-type": ["text/event-stream"]}, body)))
        history = [*history, {"role": "assistant", "content": f"answer {turn}"}]
    path.write_bytes(render(Recording("vcr", interactions)))
    return path


async def test_load_earlier_turns_puts_their_calls_and_results_back(tmp_path: Path) -> None:
    """Turns put back by "Load earlier turns" came without their calls, and a result as a prompt."""
    path = tool_session(tmp_path / "tools.yaml", OPENED_TURNS)
    app = app_for(replay=path, speed="instant", save_sessions=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        assert calls(app) == [], "the tool turns are the earlier ones"
        app.chat_screen.conversation_view.scroll_home(animate=False)
        await settled(pilot)
        await pilot.click("#load-earlier")
        await wait_for(pilot, lambda: not app.chat_screen.query(LoadEarlier))
        pretty = json.dumps({"a": 2, "b": 3}, indent=2)
        assert calls(app) == [("add", pretty, ["5"]), ("multiply", pretty, ["6"])]
        assert prompts(app)[:2] == ["Add and multiply the number 2 and 3", "question 0"]
        first = app.chat_screen.messages()[0]
        assert [call[0] for call in calls(app)] == [block.tool for block in first.tools.blocks], "under the answer"
