"""The footer offers what can be done now (Escape's "Stop" only while an answer streams or a replay plays), each
binding whole at any width: a narrow terminal drops bindings, never cuts one."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator

import pytest
from textual.widgets import Footer

from chatterm.ui.app import ChatApp
from chatterm.ui.render import support
from chatterm.ui.render.footer import FittedKey, FooterKey  # (Textual's own key, which FittedKey extends)
from chatterm.ui.screens import tree_keys
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.widgets.messages import InfoMessage
from tests.conftest import SEEDS
from tests.faultserver import FaultServer
from tests.scripted import HeldServer, ScriptedServer, sse_script
from tests.ui.helpers import app_for, send, settled, wait_for
from tests.ui.oracle import screen_text


@pytest.fixture
async def slow() -> AsyncIterator[HeldServer]:
    """An answer's "Hello", then " world" once the test lets it go on."""
    server = HeldServer()
    server.answers = [server.held("Hello world", 5)]
    await server.start()
    yield server
    server.go_on.set()
    await server.stop()


def footer_text(app: ChatApp) -> str:
    footer = app.chat_screen.query_one(Footer)
    return " ".join(str(key.render()) for key in footer.children)


def infos(app: ChatApp) -> str:
    return " ".join(str(message.render()) for message in app.chat_screen.query(InfoMessage))


def offers_stop(app: ChatApp) -> bool:
    return "Stop" in footer_text(app)


async def test_escape_is_offered_only_while_an_answer_streams(slow: HeldServer) -> None:
    app = app_for(slow.url)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and "New chat" in footer_text(app))
        assert not offers_stop(app), "nothing streams"
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and bool(app.chat_screen.messages()[0].answer))
        await wait_for(pilot, lambda: offers_stop(app))
        slow.go_on.set()
        await wait_for(pilot, lambda: app.chat_screen.messages()[0].finished)
        await wait_for(pilot, lambda: not offers_stop(app))


async def test_escape_is_offered_while_a_replay_plays_and_not_after_it() -> None:
    app = app_for(replay=SEEDS / "xai_grok_simple_streaming.yaml", speed="1x", save_sessions=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()))
        await wait_for(pilot, lambda: offers_stop(app))
        await wait_for(pilot, lambda: "Replay finished" in infos(app))
        await wait_for(pilot, lambda: not offers_stop(app))


async def test_only_escape_asks_whether_an_edit_is_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The footer asks about every binding whenever the bindings may have changed (a key, a focus move, an answer
    starting or ending). Whether an edit is under way matters to Escape alone, and finding out searches the screen:
    asked for every binding, a long conversation was searched once a binding at every key."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and "New chat" in footer_text(app))
        asked: list[str] = []
        searched: list[ChatScreen] = []
        check_action, editing = ChatScreen.check_action, tree_keys.editing

        def checking(screen: ChatScreen, action: str, parameters: tuple[object, ...]) -> bool | None:
            asked.append(action)
            return check_action(screen, action, parameters)

        def searching(screen: ChatScreen) -> object:
            searched.append(screen)
            return editing(screen)

        monkeypatch.setattr(ChatScreen, "check_action", checking)
        monkeypatch.setattr(tree_keys, "editing", searching)
        app.chat_screen.refresh_bindings()
        await wait_for(pilot, lambda: "stop" in asked)
        await pilot.pause()
        assert len(set(asked)) > 1, "the footer asked about its other bindings too"
        assert len(searched) == asked.count("stop")


@pytest.mark.parametrize("stock", [False, True], ids=["custom", "stock"])
async def test_the_footer_is_built_again_only_when_its_keys_change(slow: HeldServer, stock: bool) -> None:
    """The bindings are refreshed at every start and end of an answer, at focus moves, at keys: the footer is left
    as it is when nothing it shows changed, and when a key comes or goes (Stop, with an answer) that key alone is
    mounted or removed (Textual's builds all again: ten widgets mounted, some 10 ms)."""
    support.force_stock(stock)
    app = app_for(slow.url)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and "New chat" in footer_text(app))
        footer = app.chat_screen.query_one(Footer)
        before = list(footer.children)
        app.chat_screen.refresh_bindings()
        await settled(pilot)
        assert list(footer.children) == before, "the same keys: nothing changed"
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: offers_stop(app))
        (stop,) = set(footer.children) - set(before)
        assert "Stop" in str(stop.render()) and set(before) < set(footer.children), "Stop alone came"
        shown = footer_text(app)
        await footer.remove_children()
        footer.call_later(footer.recompose)  # (with no keys, all built again as Textual does)
        await wait_for(pilot, lambda: bool(footer.children))
        assert footer_text(app) == shown, "the same as the footer built whole"
        others = [key for key in footer.children if "Stop" not in str(key.render())]
        slow.go_on.set()
        await wait_for(pilot, lambda: app.chat_screen.messages()[0].finished and not offers_stop(app))
        assert list(footer.children) == others, "Stop alone went"


def keys(app: ChatApp) -> tuple[list[FittedKey], FittedKey]:
    footer = app.chat_screen.query_one(Footer)
    (palette,) = footer.query(".-command-palette")
    assert isinstance(palette, FittedKey)
    return [key for key in footer.query(FittedKey) if key is not palette], palette


@pytest.mark.parametrize("width", [45, 60, 100])
async def test_the_footer_shows_whole_bindings_at_any_width(width: int, render_path: str) -> None:
    if render_path == "stock":
        pytest.skip("the keys drawn blank are the render package's (FittedKey); the stock path's are Textual's own")
    app = app_for()
    async with app.run_test(size=(width, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and "New chat" in footer_text(app))
        await settled(pilot)
        bindings, palette = keys(app)
        shown = [key for key in bindings if key.shown]
        assert shown and shown[0].description == "New chat"
        for key in bindings:
            drawn = str(key.render()).strip()
            if key in shown:
                assert key.region.right <= palette.region.x, f"{key.description!r} runs under the palette's key"
                assert drawn.endswith(key.description)
            else:
                assert drawn == "", f"{key.description!r} is left out whole"
        assert (shown == bindings) == (width == 100), "left out only when there is no room"


def live_keys() -> int:
    """The footer keys alive (on the screen or not), once garbage is collected; those made at startup, which the
    app froze with the rest of what it holds from then on (`chatterm.ui.memory`), too."""
    gc.unfreeze()
    gc.collect()
    try:
        return sum(1 for thing in gc.get_objects() if isinstance(thing, FooterKey))
    finally:
        gc.freeze()


@pytest.mark.parametrize("stock", [False, True], ids=["custom", "stock"])
async def test_the_keys_of_a_footer_drawn_again_are_released(faults: FaultServer, stock: bool) -> None:
    """Every answer changes the bindings (Stop comes and goes), and the footer builds its keys again: those it took
    off go with it, on either render path (kept, each answer of a long chat would hold a footer's worth of widgets)."""
    support.force_stock(stock)
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None and "New chat" in footer_text(app))
        alive = []
        for prompt in ("first", "second", "third", "fourth"):
            await send(pilot, app, prompt)
            await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
            await wait_for(pilot, lambda: not offers_stop(app))
            alive.append(live_keys())
        shown = len(app.chat_screen.query(FooterKey))
        assert alive == [shown] * len(alive), f"footer keys alive after each answer: {alive}, {shown} on screen"


async def test_at_80_columns_with_a_message_selected_the_footer_keeps_quit_and_every_key_whole() -> None:
    """Quit is the last binding left out: the conversation's keys fill a narrow footer before the screen's, and the
    ones that do not fit go (a group of keys, ↑↓ Select, counts for its width too)."""
    server = ScriptedServer(answers=[sse_script("The answer.", reasoning="Let me think.")])
    await server.start()
    app = app_for(server.url)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await send(pilot, app, "q")
            await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[0].finished)
            view = app.chat_screen.conversation_view
            for keys in (("tab",), ("up",)):
                await pilot.press(*keys)
                await wait_for(pilot, lambda: view.selected is not None and "Select" in footer_line(app))
                await settled(pilot)
                line = footer_line(app)
                assert "^q Quit" in line and "↑↓ Select" in line, line
                drawn = line.split("▏")[0]
                assert drawn.rstrip().endswith(("Quit", "Help")), f"no key cut short: {line!r}"
    finally:
        await server.stop()


def footer_line(app: ChatApp) -> str:
    """The footer's row as the screen shows it."""
    return screen_text(app).splitlines()[-1]
