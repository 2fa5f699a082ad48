"""Helpers for driving the app with Textual's Pilot."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable

from rich.segment import Segment
from textual.pilot import Pilot
from textual.strip import Strip

from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.markdown.blocks import markdown, without_blank_end
from chatterm.ui.markdown.style import code_theme, render_lines
from chatterm.ui.markdown.text import TextView
from chatterm.ui.markdown.view import MarkdownView


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


async def run_command(pilot: Pilot[None], app: ChatApp, query: str) -> None:
    """Run the command the palette offers first for `query`, once that is one that names it. The query goes into the
    palette's search at once: typed a key at a time, each key would start a search of every command anew."""
    from textual.command import Command, CommandInput, CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    app.screen.query_one(CommandInput).value = query
    found = app.screen.query_one(CommandList)

    def offered() -> bool:
        option = found.get_option_at_index(found.highlighted) if found.highlighted is not None else None
        return isinstance(option, Command) and query.lower() in (option.hit.text or "").lower()

    await wait_for(pilot, offered)
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))


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


def one_render(view: MarkdownView, text: str | None = None) -> list[Strip]:
    """`text` (the view's source by default) rendered in one piece at the view's width by the renderer the view uses
    (Rich's, with its failures on some texts worked around: `blocks.markdown`), styled as the view styles its lines
    and less the blank lines at its end: what the view must draw. A reasoning view (plain text) draws its text with
    its own rules (`TextView._render_text`)."""
    source = view.source if text is None else text
    if isinstance(view, TextView):
        return [line.simplify() for line in view._render_text(source)]
    theme = view.app.current_theme
    lines = without_blank_end(render_lines(view.app.console, theme, markdown(source, code_theme(theme)), view._width))
    style = view.rich_style
    return [Strip(Segment.apply_style(line, style), view._width).simplify() for line in lines]
