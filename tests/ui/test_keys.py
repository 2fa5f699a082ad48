"""Every key of the README's table, pressed where the table says (the composer, or the conversation after Tab), does
what the table says."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual.command import CommandPalette
from textual.pilot import Pilot

from chatterm import locations
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.help import HelpScreen
from chatterm.ui.screens.profiles import ProfileScreen
from chatterm.ui.screens.sessions import SessionsScreen
from chatterm.ui.widgets.edit_banner import EditBanner
from chatterm.ui.widgets.messages import UserMessage
from tests.faultserver import MARKDOWN_ANSWER, FaultServer
from tests.ui.helpers import app_for, wait_for
from tests.ui.readme_keys import readme_keys

Step = Callable[[Pilot[None], ChatApp], Awaitable[None]]
Press = tuple[str, Step, Step]
"""A key, what is done before it is pressed, and what it must have done."""


async def composer_focused(pilot: Pilot[None], app: ChatApp) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen) and app.chat_screen.composer.has_focus)


async def closes_with_escape(pilot: Pilot[None], app: ChatApp, kind: type) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, kind))
    await pilot.press("escape")
    await composer_focused(pilot, app)


def steps(faults: FaultServer) -> list[Press]:
    """The keys in an order that makes each one's effect visible, each pressed from the composer (a key of the
    conversation once Tab has moved there), with what is done before a key is pressed and what it must have done."""

    partial: list[str] = []
    forked_from: list[object] = []

    async def typed(pilot: Pilot[None], app: ChatApp) -> None:
        await pilot.press(*"first")

    async def newline(pilot: Pilot[None], app: ChatApp) -> None:
        composer = app.chat_screen.composer
        assert composer.text == "first\n"
        composer.clear()

    async def send(pilot: Pilot[None], app: ChatApp) -> None:
        faults.gap = 0.5  # slow enough to be stopped by the next key
        await pilot.press(*"hello")

    async def sent(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: bool(app.chat_screen.query(UserMessage)) and app.chat_screen.streaming)
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()[-1].reasoning))

    async def stopped(pilot: Pilot[None], app: ChatApp) -> None:
        message = app.chat_screen.messages()[-1]
        await wait_for(pilot, lambda: message.finished)
        assert "Stopped" in str(message.notice.render())
        faults.gap = 0.0

    async def earlier(pilot: Pilot[None], app: ChatApp) -> None:
        assert app.chat_screen.composer.text == "hello"

    async def later(pilot: Pilot[None], app: ChatApp) -> None:
        assert app.chat_screen.composer.text == ""

    async def retried(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: len(app.chat_screen.messages()) == 2)
        message = app.chat_screen.messages()[-1]
        await wait_for(pilot, lambda: message.finished and message.answer == MARKDOWN_ANSWER)

    async def reasoning_toggled(pilot: Pilot[None], app: ChatApp) -> None:
        assert app.chat_screen.messages()[-1].reasoning_pane.collapsed is False

    async def effort_cycled(pilot: Pilot[None], app: ChatApp) -> None:
        assert app.session is not None and app.session.effort == "off"
        assert "effort off" in app.chat_screen.status.line(100)

    async def copied(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: app.clipboard == MARKDOWN_ANSWER)

    def tab_then(*keys: str) -> Step:
        async def moved(pilot: Pilot[None], app: ChatApp) -> None:
            await pilot.press("tab", *keys)
            await wait_for(pilot, lambda: app.chat_screen.conversation_view.selected is not None)

        return moved

    def selects(index: int) -> Step:
        async def selected(pilot: Pilot[None], app: ChatApp) -> None:
            view = app.chat_screen.conversation_view
            await wait_for(pilot, lambda: view.has_focus and view.selected is view.selectable()[index])
            await pilot.press("escape")

        return selected

    def pane(collapsed: bool) -> Step:
        async def toggled(pilot: Pilot[None], app: ChatApp) -> None:
            message = app.chat_screen.messages()[-1]
            await wait_for(pilot, lambda: message.reasoning_pane.collapsed is collapsed)
            assert app.chat_screen.conversation_view.selected is message
            await pilot.press("escape")

        return toggled

    async def prompt_copied(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: app.clipboard == "hello")
        await pilot.press("escape")

    def at_branch(position: tuple[int, int]) -> Step:
        async def switched(pilot: Pilot[None], app: ChatApp) -> None:
            screen = app.chat_screen

            def shown() -> bool:
                messages = screen.messages()
                return len(messages) == 1 and messages[0].finished and messages[0].branch == position

            await wait_for(pilot, lambda: shown() and not screen.busy)
            await pilot.press("escape")

        return switched

    async def stopped_with_text(pilot: Pilot[None], app: ChatApp) -> None:
        screen = app.chat_screen
        faults.gap = 0.3
        await pilot.press(*"again", "enter")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 and bool(screen.messages()[-1].answer))
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.messages()[-1].finished and not screen.busy)
        faults.gap = 0.0
        partial.append(screen.messages()[-1].answer)
        await tab_then()(pilot, app)

    async def continued(pilot: Pilot[None], app: ChatApp) -> None:
        screen = app.chat_screen

        def whole() -> bool:
            messages = screen.messages()
            return len(messages) == 2 and messages[-1].finished and messages[-1].answer.endswith(MARKDOWN_ANSWER)

        await wait_for(pilot, lambda: whole() and not screen.busy)
        assert screen.messages()[-1].answer.startswith(partial[0]) and not screen.messages()[-1].has_notice

    async def edit_opened(pilot: Pilot[None], app: ChatApp) -> None:
        screen = app.chat_screen
        await wait_for(pilot, lambda: screen.composer.text == "hello" and bool(screen.query(EditBanner)))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.query(EditBanner) and screen.composer.text == "")

    async def fork_from(pilot: Pilot[None], app: ChatApp) -> None:
        forked_from.append(app.session)
        await tab_then()(pilot, app)

    async def forked(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: app.session is not forked_from[0] and app.session is not None)
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and not app.chat_screen.busy)
        session = app.session
        assert session is not None and session.path is not None
        await wait_for(pilot, lambda: session.path is not None and session.path.exists())

    async def exported(pilot: Pilot[None], app: ChatApp) -> None:
        exports = locations.data_dir() / "exports"
        await wait_for(pilot, lambda: exports.is_dir() and any(exports.iterdir()))
        (path,) = exports.iterdir()
        assert "print('hi')" in path.read_text()

    async def sessions(pilot: Pilot[None], app: ChatApp) -> None:
        await closes_with_escape(pilot, app, SessionsScreen)

    async def profiles(pilot: Pilot[None], app: ChatApp) -> None:
        await closes_with_escape(pilot, app, ProfileScreen)

    async def palette(pilot: Pilot[None], app: ChatApp) -> None:
        await closes_with_escape(pilot, app, CommandPalette)

    async def helped(pilot: Pilot[None], app: ChatApp) -> None:
        await closes_with_escape(pilot, app, HelpScreen)

    async def new_chat(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen) and not app.chat_screen.messages())

    async def quit_(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: app.return_code is not None)

    return [
        ("ctrl+j", typed, newline),
        ("enter", send, sent),
        ("escape", nothing_before, stopped),
        ("up", nothing_before, earlier),
        ("down", nothing_before, later),
        ("ctrl+r", nothing_before, retried),
        ("ctrl+t", nothing_before, reasoning_toggled),
        ("ctrl+g", nothing_before, effort_cycled),
        ("ctrl+y", nothing_before, copied),
        ("tab", nothing_before, selects(-1)),
        ("shift+tab", nothing_before, selects(-1)),
        ("enter", tab_then(), pane(collapsed=True)),
        ("space", tab_then(), pane(collapsed=False)),
        ("up", tab_then(), selects(-2)),
        ("k", tab_then(), selects(-2)),
        ("down", tab_then("up"), selects(-1)),
        ("j", tab_then("up"), selects(-1)),
        ("home", tab_then(), selects(0)),
        ("end", tab_then("home"), selects(-1)),
        ("y", tab_then("home"), prompt_copied),
        ("r", tab_then(), at_branch((3, 3))),
        ("left", tab_then(), at_branch((2, 3))),
        ("h", tab_then(), at_branch((1, 3))),
        ("right", tab_then(), at_branch((2, 3))),
        ("l", tab_then(), at_branch((3, 3))),
        ("c", stopped_with_text, continued),
        ("e", tab_then("home"), edit_opened),
        ("f", fork_from, forked),
        ("ctrl+e", nothing_before, exported),
        ("ctrl+o", nothing_before, sessions),
        ("ctrl+l", nothing_before, profiles),
        ("ctrl+p", nothing_before, palette),
        ("f1", nothing_before, helped),
        ("ctrl+n", nothing_before, new_chat),
        ("ctrl+q", nothing_before, quit_),
    ]


async def test_every_readme_key_works_from_the_composer(faults: FaultServer) -> None:
    ordered = steps(faults)
    assert sorted(key for key, _, _ in ordered) == sorted(readme_keys()), "a key of the README has no step here"
    app = app_for(faults.url("think"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        for key, before, check in ordered:
            await composer_focused(pilot, app)
            await before(pilot, app)
            await pilot.press(key)
            try:
                await check(pilot, app)
            except AssertionError as exc:
                raise AssertionError(f"{key} pressed: {exc}") from exc


async def nothing_before(pilot: Pilot[None], app: ChatApp) -> None:
    pass


async def test_the_composer_keeps_its_line_end_and_redo(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.chat_screen.composer
        await composer_focused(pilot, app)
        await pilot.press(*"one", "space", *"two")
        await pilot.press("home")
        assert composer.cursor_location == (0, 0)
        await pilot.press("end")
        assert composer.cursor_location == (0, 7)
        await pilot.press("ctrl+z")
        assert composer.text == ""
        await pilot.press("ctrl+shift+z")
        assert composer.text == "one two"
