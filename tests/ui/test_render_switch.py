"""The render switch: chatterm's own rendering parts where supported, Textual's and Rich's stock ones when the
environment asks or a check fails, and the app drawn either way."""

from __future__ import annotations

import subprocess
import sys

import pytest
from textual.scrollbar import ScrollBar

from chatterm.ui.render import support
from chatterm.ui.render.compositor import MendedCompositor, RowCompositor
from chatterm.ui.render.scrollbar import RowScrollBar
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, wait_for


def _in_a_fresh_process(environment: dict[str, str]) -> str:
    code = "from chatterm.ui.render.support import custom_rendering; print(custom_rendering())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    return done.stdout.strip()


def test_the_environment_switch_forces_the_stock_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    base = {k: v for k, v in os.environ.items() if k != support.ENVIRONMENT_SWITCH}
    assert _in_a_fresh_process(base) == str(support.supported())
    assert _in_a_fresh_process({**base, support.ENVIRONMENT_SWITCH: "1"}) == "False"
    assert _in_a_fresh_process({**base, support.ENVIRONMENT_SWITCH: "0"}) == str(support.supported())


def test_a_missing_private_name_falls_back_to_the_stock_path(monkeypatch: pytest.MonkeyPatch) -> None:
    support.supported.cache_clear()
    monkeypatch.setattr(support, "missing_private_names", lambda: ["Compositor._get_renders"])
    try:
        support.force_stock(False)
        assert not support.custom_rendering()
    finally:
        support.supported.cache_clear()


def test_this_textual_and_rich_have_every_private_name_used() -> None:
    """Pins the private parts the render package relies on: a Textual or Rich release that drops one fails here
    (and the app falls back to the stock path)."""
    assert support.missing_private_names() == []


@pytest.mark.parametrize("stock", [False, True], ids=["custom", "stock"])
async def test_the_app_streams_an_answer_on_either_path(faults: FaultServer, stock: bool) -> None:
    support.force_stock(stock)
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.chat_screen
        await send(pilot, app, "hello")
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        view = screen.conversation_view
        if stock:
            assert not isinstance(screen._compositor, MendedCompositor)  # (Textual's own)
            assert type(view.vertical_scrollbar) is ScrollBar
        else:
            assert isinstance(screen._compositor, RowCompositor)
            assert isinstance(view.vertical_scrollbar, RowScrollBar)
        message = screen.messages()[-1]
        assert message.answer.startswith("# Title") and message.markdown.source == message.answer
