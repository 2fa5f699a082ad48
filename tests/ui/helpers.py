"""Helpers for driving the app with Textual's Pilot."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable

from textual.pilot import Pilot

from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp


def app_for(base_url: str | None = None, **options: object) -> ChatApp:
    settings = load_settings()
    choice = choose(settings, base_url=base_url, model="fault-model") if base_url else choose(settings)
    return ChatApp(settings, choice, **options)  # type: ignore[arg-type]


async def wait_for(pilot: Pilot[None], predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            app = pilot.app
            state = ""
            if isinstance(app, ChatApp) and len(app.screen_stack) > 1:
                screen = app.chat_screen
                messages = screen.messages()
                state = f"worker={screen._worker} messages={len(messages)}"
                if messages:
                    last = messages[-1]
                    state += f" answer={last.answer[:60]!r} finished={last.finished} notice={last.notice.render()!s}"
            raise AssertionError(f"timed out waiting for the app: {state}")
        await pilot.pause(0.02)


async def send(pilot: Pilot[None], app: ChatApp, text: str) -> None:
    composer = app.chat_screen.composer
    composer.focus()
    await wait_for(pilot, lambda: composer.has_focus)  # focus moves on the next message cycle
    composer.insert(text)
    await pilot.press("enter")


def shown_text(svg: str) -> str:
    """The text of a screenshot (`App.export_screenshot`), for asserting what the screen shows."""
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def settled(pilot: Pilot[None], quiet: float = 0.15, timeout: float = 10.0) -> str:
    """The screen once it stops changing (the same for `quiet` seconds), as a screenshot: what a snapshot should be
    taken of, however busy the machine is (`shown_text` reads it)."""
    deadline = time.monotonic() + timeout
    shot, since = pilot.app.export_screenshot(), time.monotonic()
    while time.monotonic() - since < quiet:
        if time.monotonic() > deadline:
            raise AssertionError("the screen never settled")
        await pilot.pause(0.03)
        now = pilot.app.export_screenshot()
        if now != shot:
            shot, since = now, time.monotonic()
    return shot
