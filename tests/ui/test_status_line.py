"""The status line tells the answer on screen: the model that gave it, this answer's figures only, and whole items
at any width (the least needed left out first, never one cut in the middle)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rich.cells import cell_len

from chatterm.cassette.load import load_recording
from chatterm.ui.app import ChatApp
from tests.conftest import CORPUS
from tests.scripted import Script, ScriptedServer
from tests.ui.helpers import app_for, send, wait_for

RECORDED = CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o-mini__simple_streaming.yaml"
"""Asked of gpt-4o-mini, answered by gpt-4o-mini-2024-07-18 (the demo profile's model is another)."""
LONG_MODEL = "meta-llama/Llama-3.3-70B-Instruct-Turbo"
SEPARATOR = "  │  "


def event(model: str, content: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
    payload: dict[str, Any] = {"model": model, "choices": []}
    if content is not None:
        payload["choices"] = [{"index": 0, "delta": {"content": content}, "finish_reason": None}]
    if usage is not None:
        payload["usage"] = usage
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


USAGE = {"prompt_tokens": 1234, "completion_tokens": 567, "total_tokens": 1801}
USAGE["completion_tokens_details"] = {"reasoning_tokens": 89}  # type: ignore[assignment]


def answer(model: str = LONG_MODEL) -> Script:
    return [(0.0, event(model, "Hello.")), (0.0, event(model, usage=USAGE) + b"data: [DONE]\n\n")]


def stalled(model: str = LONG_MODEL) -> Script:
    """An answer that starts and then waits far longer than any test: it ends when the user stops it."""
    return [(0.0, event(model, "Partial")), (600.0, b"data: [DONE]\n\n")]


def status_text(app: ChatApp) -> str:
    return str(app.chat_screen.status.render())


def finished(app: ChatApp, count: int) -> bool:
    messages = app.chat_screen.messages()
    return len(messages) >= count and all(message.finished for message in messages)


async def test_an_opened_recording_shows_the_model_that_answered_it() -> None:
    app = app_for(replay=RECORDED, speed="instant", save_sessions=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: finished(app, 1) and len(app.chat_screen.messages()) == 1)
        await wait_for(pilot, lambda: "gpt-4o-mini-2024-07-18" in status_text(app))
        assert "grok-code-fast-1" not in status_text(app), "the demo profile's model did not answer"


async def test_a_paced_replay_shows_the_recording_s_model_while_it_streams() -> None:
    app = app_for(replay=load_recording(RECORDED), speed="4x", save_sessions=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: len(app.chat_screen.messages()) == 1)
        assert "grok-code-fast-1" not in status_text(app), "shown from the first moment of the replay"
        await wait_for(pilot, lambda: finished(app, 1))
        assert "gpt-4o-mini-2024-07-18" in status_text(app)


async def test_a_live_answer_shows_the_model_the_provider_names(scripted: ScriptedServer) -> None:
    scripted.answers = [answer("provider-model-2025")]
    app = app_for(scripted.url, save_sessions=False)
    async with app.run_test(size=(120, 30)) as pilot:
        assert "fault-model" in status_text(app), "before an answer: the model asked for"
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: finished(app, 1))
        assert "provider-model-2025" in status_text(app) and "fault-model" not in status_text(app)


async def test_a_new_answer_clears_the_last_answer_s_usage_and_a_stopped_one_shows_none(
    scripted: ScriptedServer,
) -> None:
    scripted.answers = [answer(), stalled()]
    app = app_for(scripted.url, save_sessions=False)
    async with app.run_test(size=(200, 30)) as pilot:
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: finished(app, 1))
        assert "prompt 1234 · completion 567 · reasoning 89" in status_text(app)
        await send(pilot, app, "second")
        await wait_for(pilot, lambda: "Partial" in app.chat_screen.messages()[-1].answer)
        assert "1234" not in status_text(app), "the first answer's usage is not this one's"
        await pilot.press("escape")
        await wait_for(pilot, lambda: finished(app, 2))
        shown = status_text(app)
        assert "stopped" in shown and "1234" not in shown and "prompt" not in shown


def items(text: str) -> list[str]:
    return text.split(SEPARATOR)


@pytest.mark.parametrize("width", [80, 100, 200])
async def test_the_status_line_shows_whole_items_at_any_width(scripted: ScriptedServer, width: int) -> None:
    scripted.answers = [answer()]
    app = app_for(scripted.url, save_sessions=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: finished(app, 1))
        status = app.chat_screen.status
        status.ttft, status.tokens_per_second = 0.42, 1234.0  # (the figures of a slow, long answer: at their widest)
        status.refresh_text()
        await pilot.pause()
        shown = status_text(app)
        room = status.content_size.width
        assert cell_len(shown) <= room, (shown, room)
        whole = {
            f"ad-hoc · {LONG_MODEL}",
            LONG_MODEL,
            "ready",
            "first token 0.42 s",
            "1234 tok/s",
            "prompt 1234 · completion 567 · reasoning 89",
            "1234 → 567 tokens",
        }
        assert set(items(shown)) <= whole, f"an item was cut: {shown!r}"
        assert LONG_MODEL in shown and "ready" in shown, "the model and the state are always shown"
        if width == 200:
            assert items(shown) == [
                f"ad-hoc · {LONG_MODEL}",
                "ready",
                "first token 0.42 s",
                "1234 tok/s",
                "prompt 1234 · completion 567 · reasoning 89",
            ]
        if width == 80:
            assert "1234 → 567 tokens" in items(shown), "usage is kept, in short, before speeds"


async def test_a_model_wider_than_the_line_is_shortened_with_a_mark(scripted: ScriptedServer) -> None:
    huge = "x" * 120
    scripted.answers = [answer(huge)]
    app = app_for(scripted.url, save_sessions=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, app, "hi")
        await wait_for(pilot, lambda: finished(app, 1))
        shown = status_text(app)
        assert cell_len(shown) <= app.chat_screen.status.content_size.width
        assert items(shown)[1:] == ["ready"] and shown.startswith("xxx") and items(shown)[0].endswith("…")
