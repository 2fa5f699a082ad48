"""The help screen (F1): chatterm's keys grouped, the palette's commands, where files live; and the README's key
table, the footer and the help agree."""

from __future__ import annotations

import re

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from chatterm import locations
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.help import SECTIONS, HelpScreen, key_entries, key_label
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, settled, shown_text, wait_for
from tests.ui.readme_keys import key_rows, readme_keys


async def read_through(pilot: Pilot[None], body: VerticalScroll) -> str:
    """What the help shows, screen after screen, scrolled from its top to its end."""
    shots = []
    body.scroll_home(animate=False)
    while True:
        shots.append(shown_text(await settled(pilot)))
        if body.scroll_y >= body.max_scroll_y:
            return "\n".join(shots)
        body.scroll_to(y=body.scroll_y + body.scrollable_content_region.height - 1, animate=False)


async def test_f1_opens_the_help_and_f1_or_escape_closes_it(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(80, 24)) as pilot:
        for closing in ("f1", "escape"):
            await wait_for(pilot, lambda: app.chat_screen.composer.has_focus)
            await pilot.press("f1")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.press(closing)
            await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen))


async def test_the_help_lists_keys_by_section_commands_and_files(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        shot = shown_text(await settled(pilot))
        assert "Chat" in shot and "Enter" in shot and "Send the prompt" in shot
        body = app.screen.query_one("#help-body", VerticalScroll)
        assert body.max_scroll_y > 0, "at 80x24 the help scrolls"
        text = await read_through(pilot, body)
        sections = [str(label.render()) for label in app.screen.query(".section")]
        assert sections == [*SECTIONS, "Command palette (Ctrl+P)", "Files"]
        for key in readme_keys():
            assert key_label(key) in text, f"{key_label(key)} is in the README's table, not in the help"
        copy_line = next(line for line in text.splitlines() if "Copy the selected message" in line)
        assert re.search(r"\by\b", copy_line) and not re.search(r"\bY\b", copy_line), "a letter as typed"
        for name in ("Switch model", "Replay speed: 4x", "Keys/Help", "Retry", "Theme", "Quit"):
            assert name in text
        unfolded = re.sub(r"█\n█", "", text)  # (a test's home is long: its paths are folded over lines)
        for path in (locations.config_file(), locations.sessions_dir(), locations.data_dir() / "exports"):
            assert str(path) in unfolded


def test_a_key_added_to_the_chat_screen_appears_in_the_help(monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    added = Binding("f9", "app.switch_model", "Model", tooltip="Switch the model")
    monkeypatch.setattr(ChatScreen, "BINDINGS", [*ChatScreen.BINDINGS, added])
    entries = key_entries(app_for())
    (entry,) = [entry for entry in entries if "f9" in entry.keys]
    assert entry.section == "Profiles" and entry.description == "Switch the model"


def test_the_readme_table_the_footer_and_the_help_agree() -> None:
    app = app_for()
    readme = set(readme_keys())
    helped = {key for entry in key_entries(app) for key in entry.keys}
    assert readme <= helped, f"in the README, not in the help: {readme - helped}"
    bindings = [*Binding.make_bindings([*ChatScreen.BINDINGS, *ChatApp.BINDINGS])]
    declared = {binding.key for binding in bindings} | {app.COMMAND_PALETTE_BINDING}
    assert declared <= readme, f"keys of the app not in the README's table: {declared - readme}"
    footer = {binding.key for binding in bindings if binding.show}
    assert footer <= readme
    assert all(keys for keys, _ in key_rows())
