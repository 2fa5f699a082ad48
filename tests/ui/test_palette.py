"""The command palette as the user searches it: one "Theme", chatterm's "Keys/Help" and "Retry"."""

from __future__ import annotations

from textual.command import Command, CommandList, CommandPalette
from textual.pilot import Pilot

from chatterm.ui.app import ChatApp
from chatterm.ui.screens.help import HelpScreen
from tests.faultserver import ANSWER, FaultServer
from tests.ui.helpers import app_for, send, settled, wait_for


async def search(pilot: Pilot[None], app: ChatApp, query: str) -> list[str]:
    """The names the palette lists for `query`, once the list stops changing."""
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*query)
    results = app.screen.query_one(CommandList)
    await wait_for(pilot, lambda: results.option_count > 0)
    await settled(pilot)
    names = []
    for index in range(results.option_count):
        option = results.get_option_at_index(index)
        assert isinstance(option, Command)
        names.append(option.hit.text or "")
    return names


async def test_the_palette_has_one_theme_entry(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        names = await search(pilot, app, "theme")
        assert names.count("Theme") == 1, names


async def test_keys_help_in_the_palette_opens_chatterms_help(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        names = await search(pilot, app, "keys")
        assert "Keys/Help" in names and "Keys" not in names, names  # (Textual's generic key panel is not offered)
        assert names[0] == "Keys/Help"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_retry_in_the_palette_asks_again_as_a_new_branch(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "hi")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        names = await search(pilot, app, "retry")
        assert names[0] == "Retry", names
        await pilot.press("enter")
        await wait_for(pilot, lambda: faults.counts["ok"] == 2)
        await wait_for(pilot, lambda: screen.messages()[-1].finished and screen.messages()[-1].branch == (2, 2))
        assert len(screen.messages()) == 1 and screen.messages()[-1].answer == ANSWER


async def test_the_palette_lists_chatterms_commands_first_one_code_block_entry_and_the_current_pace(
    faults: FaultServer,
) -> None:
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "code please")  # (an answer with a code block: the palette could offer it)
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert app.code_block_titles(), "an answer with a code block"
        app.replay_speed = "2x"
        names = await search(pilot, app, "")
        assert "Maximize" not in names and "Keys" not in names
        assert names[0] == "New chat", names
        textuals = [names.index(name) for name in ("Theme", "Screenshot", "Quit")]
        assert min(textuals) > names.index("Keys/Help") and min(textuals) > names.index("Replay speed: 4x"), names
        assert [name for name in names if "code" in name.lower()] == ["Copy code block…"]
        speeds = [name for name in names if name.startswith("Replay speed")]
        assert speeds == ["Replay speed: instant", "Replay speed: 1x", "Replay speed: 2x (current)", "Replay speed: 4x"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
        coded = await search(pilot, app, "copy code")
        assert [name for name in coded if "code" in name.lower()] == ["Copy code block…"], coded
