"""Helpers for driving the app with Textual's Pilot."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.pilot import Pilot

from chatterm.config import load_settings
from chatterm.resolve import choose
from chatterm.ui.app import ChatApp


def app_for(base_url: str | None = None, **options: object) -> ChatApp:
    settings = load_settings()
    choice = choose(settings, base_url=base_url, model="fault-model") if base_url else choose(settings)
    return ChatApp(settings, choice, **options)  # type: ignore[arg-type]


async def wait_for(pilot: Pilot[None], predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)


async def send(pilot: Pilot[None], app: ChatApp, text: str) -> None:
    app.chat_screen.composer.focus()
    app.chat_screen.composer.insert(text)
    await pilot.press("enter")
