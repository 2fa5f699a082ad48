"""NO_COLOR (no-color.org): with it set to anything but empty, the screen has no colour at all; emphasis is bold,
reverse and underline."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.segment import Segment
from textual.command import CommandPalette
from textual.pilot import Pilot

from chatterm.settings.presets import PRESETS
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.help import HelpScreen
from chatterm.ui.screens.profiles import ProfileScreen
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, settled, wait_for

EMPHASIS = {"bold", "reverse", "underline"}


def drawn(app: ChatApp) -> list[Segment]:
    """The segments of the whole screen, as the terminal is sent them."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    assert update is not None
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    return [segment for segment in console.render(update) if not segment.control]


def coloured(segments: list[Segment]) -> list[str]:
    """The segments drawn with a colour or an emphasis other than bold, reverse and underline."""
    found = []
    for text, style, _ in segments:
        if style is None:
            continue
        colours = [c for c in (style.color, style.bgcolor) if c is not None and not c.is_default]
        attributes = {name for name in ("dim", "italic", "blink", "strike", "overline") if getattr(style, name)}
        if colours or attributes:
            found.append(f"{text!r}: {style}")
    return found


async def colourless(pilot: Pilot[None], app: ChatApp, where: str) -> list[Segment]:
    await settled(pilot)
    segments = drawn(app)
    found = coloured(segments)
    assert not found, f"{where}: {len(found)} segments in colour, e.g. " + "; ".join(found[:5])
    return segments


def emphasised(segments: list[Segment], attribute: str) -> str:
    return "".join(text for text, style, _ in segments if style is not None and getattr(style, attribute))


async def test_no_color_draws_the_app_without_colour(monkeypatch: pytest.MonkeyPatch, faults: FaultServer) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await send(pilot, app, "Explain")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        await pilot.press("ctrl+t")  # the reasoning pane open
        segments = await colourless(pilot, app, "an answer with reasoning, Markdown and a code block")
        assert emphasised(segments, "reverse").strip("▊") == " ", "the composer's cursor is reversed"
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await pilot.press("down")
        segments = await colourless(pilot, app, "the profile dialog")
        underlined = emphasised(segments, "underline")
        assert any(name in underlined for name in PRESETS), "the highlighted profile is underlined"
        await pilot.press("escape", "ctrl+p", *"retry")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        segments = await colourless(pilot, app, "the command palette")
        assert "Retry" in emphasised(segments, "underline")
        await pilot.press("escape", "f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await colourless(pilot, app, "the help")


async def test_an_empty_no_color_is_not_set(monkeypatch: pytest.MonkeyPatch, faults: FaultServer) -> None:
    monkeypatch.setenv("NO_COLOR", "")
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot)
        assert not app.no_color and coloured(drawn(app))
