"""The conversation's message cursor: Tab moves to the conversation, the keys move a selection drawn on screen, `y`
copies the selected message, Escape or typing goes back to the composer."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from chatterm.ui.app import ChatApp
from chatterm.ui.widgets.conversation import ConversationView
from chatterm.ui.widgets.cursor import MessageCursor
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage
from tests.scripted import ScriptedServer, sse_script
from tests.ui.helpers import app_for, send, wait_for
from tests.ui.oracle import Oracle, screen_text

MARK = "▌"
LONG = "\n\n".join(f"Paragraph {n} of a long answer, long enough to fill a few lines of the screen." for n in range(12))


async def conversation(pilot: Pilot[None], app: ChatApp, *prompts: str) -> list[Widget]:
    """Send `prompts`, each once the answer before it has ended; the messages the cursor moves between."""
    screen = app.chat_screen
    for number, prompt in enumerate(prompts, 1):
        await send(pilot, app, prompt)
        await wait_for(pilot, lambda: len(screen.messages()) == number and screen.messages()[-1].finished)  # noqa: B023
    await pilot.pause()
    return list(screen.conversation_view.selectable())


def marked_rows(app: ChatApp) -> list[int]:
    """The rows of the screen, as a whole render draws it, that show the selection's bar (at a message's edge)."""
    return [y for y, row in enumerate(screen_text(app).splitlines()) if MARK in row[:2]]


def rows_of(widget: Widget) -> list[int]:
    """The screen rows where `widget` is seen."""
    assert isinstance(widget.parent, Widget)
    visible = widget.region.intersection(widget.parent.region)
    return list(range(visible.y, visible.bottom))


async def selected_is(pilot: Pilot[None], app: ChatApp, message: Widget) -> None:
    """`message` is selected and the screen draws it so (its rows, and no others, show the bar)."""
    view = app.chat_screen.conversation_view
    await wait_for(pilot, lambda: view.selected is message)
    await pilot.pause()
    assert rows_of(message), "the selected message is in view"
    assert marked_rows(app) == rows_of(message)


async def test_tab_selects_the_last_answer_and_the_keys_move_the_selection(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("First answer."), sse_script("Second answer.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:  # (wide enough for the footer to hold F1 beside the tree's keys)
        first, one, second, two = await conversation(pilot, app, "first prompt", "second prompt")
        assert marked_rows(app) == [], "nothing is selected while the composer has the focus"
        assert "Select" not in screen_text(app).splitlines()[-1]
        await pilot.press("tab")
        assert app.chat_screen.conversation_view.has_focus
        await selected_is(pilot, app, two)
        footer = screen_text(app).splitlines()[-1]
        assert "↑↓ Select" in footer and "y Copy" in footer and "f1 Help" in footer, "the keys are in the footer"
        for key, message in (("k", second), ("up", one), ("up", first), ("up", first), ("j", one), ("down", second)):
            await pilot.press(key)
            await selected_is(pilot, app, message)
        await pilot.press("home")
        await selected_is(pilot, app, first)
        await pilot.press("end")
        await selected_is(pilot, app, two)


async def test_home_and_up_bring_a_message_out_of_sight_into_view_and_move_none_of_its_text(
    scripted: ScriptedServer,
) -> None:
    scripted.answers = [sse_script(LONG)]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        first, answer, _, last = await conversation(pilot, app, "first", "second")
        assert isinstance(last, AssistantMessage)
        assert not rows_of(first), "the first prompt is out of sight"
        text = last.markdown.content_region, list(last.markdown.lines)
        await pilot.press("tab")
        await selected_is(pilot, app, last)
        assert (last.markdown.content_region, list(last.markdown.lines)) == text, "no line wrapped again, none moved"
        await pilot.press("home")
        await selected_is(pilot, app, first)
        await pilot.press("end")
        await selected_is(pilot, app, last)
        await pilot.press("up", "up")
        await selected_is(pilot, app, answer)
        assert answer.region.y == app.chat_screen.conversation_view.region.y + 1, "a tall answer shows from its top"


async def test_escape_tab_and_typing_go_back_to_the_composer(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("An answer.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await conversation(pilot, app, "q")
        screen = app.chat_screen
        for leaving in ("escape", "tab", "shift+tab", "x"):
            await pilot.press("shift+tab" if leaving == "tab" else "tab")
            await wait_for(pilot, lambda: screen.conversation_view.selected is not None)
            await pilot.press(leaving)
            await wait_for(pilot, lambda: screen.composer.has_focus)
            assert screen.conversation_view.selected is None
            await pilot.pause()
            assert marked_rows(app) == [], f"{leaving}: the selection is no longer drawn"
        assert screen.composer.text == "x", "the key typed in the conversation lands in the composer"


async def test_y_copies_the_selected_message_and_a_click_selects_one(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("The **first** answer."), sse_script("The second answer.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 30), notifications=True) as pilot:
        first, one, _, _ = await conversation(pilot, app, "first prompt", "second prompt")
        await pilot.press("tab", "y")
        await wait_for(pilot, lambda: app.clipboard == "The second answer.")
        await pilot.press("up", "y")
        await wait_for(pilot, lambda: app.clipboard == "second prompt")
        assert "Copied the prompt." in [str(note.message) for note in app._notifications]
        await pilot.press("up", "y")
        await wait_for(pilot, lambda: app.clipboard == "The **first** answer.")
        assert app.chat_screen.conversation_view.has_focus, "copying keeps the selection"
        await pilot.press("escape")
        await pilot.click(first, offset=(4, 0))
        await selected_is(pilot, app, first)
        await pilot.click(one, offset=(4, 0))
        await selected_is(pilot, app, one)
        await pilot.press("k", "y")
        await wait_for(pilot, lambda: app.clipboard == "first prompt")


async def test_an_act_goes_to_the_screen_with_the_message_only_where_it_applies(
    scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API the tree's keys stand on: a binding to `act('NAME')` posts `Act` with the selected message where
    `ACTS_ON` lets it (the screen's `HANDLERS` do it); every change of selection is posted as `Selected`."""
    from chatterm.ui.screens import message_keys
    from chatterm.ui.screens.chat import ChatScreen
    from chatterm.ui.widgets import cursor

    done: list[Widget] = []
    selections: list[Widget | None] = []
    monkeypatch.setitem(cursor.ACTS_ON, "edit", lambda message: isinstance(message, UserMessage))
    monkeypatch.setitem(message_keys.HANDLERS, "edit", lambda screen, message: done.append(message))
    monkeypatch.setattr(MessageCursor, "BINDINGS", [*MessageCursor.BINDINGS, ("e", "act('edit')", "Edit")])
    monkeypatch.setattr(ConversationView, "_merged_bindings", ConversationView._merge_bindings())  # (as at import)
    monkeypatch.setattr(
        ChatScreen, "on_message_cursor_selected", lambda screen, event: selections.append(event.message), raising=False
    )
    scripted.answers = [sse_script("An answer.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        prompt, answer = await conversation(pilot, app, "q")
        screen = app.chat_screen
        await pilot.press("tab")
        await wait_for(pilot, lambda: screen.conversation_view.selected is answer)
        assert "Edit" not in screen_text(app).splitlines()[-1], "an act that does not apply to an answer is not offered"
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.composer.has_focus)
        assert done == [] and screen.composer.text == "e", "not taken: typed in the composer"
        screen.composer.clear()
        await pilot.press("tab", "up")
        await wait_for(pilot, lambda: screen.conversation_view.selected is prompt)
        await wait_for(pilot, lambda: "e Edit" in screen_text(app).splitlines()[-1])
        await pilot.press("e")
        await wait_for(pilot, lambda: done == [prompt])
        await wait_for(pilot, lambda: len(selections) == 4)
    assert selections == [answer, None, answer, prompt]


async def test_with_no_color_the_selection_is_drawn_without_colour(
    scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ui.test_no_color import colourless, emphasised

    monkeypatch.setenv("NO_COLOR", "1")
    scripted.answers = [sse_script("An answer.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        prompt, answer = await conversation(pilot, app, "the prompt")
        assert "the prompt" not in emphasised(await colourless(pilot, app, "composer"), "bold")
        await pilot.press("tab")
        await selected_is(pilot, app, answer)
        await colourless(pilot, app, "an answer selected")
        await pilot.press("up")
        await selected_is(pilot, app, prompt)
        assert "the prompt" in emphasised(await colourless(pilot, app, "a prompt selected"), "bold")


class Footers(Oracle):
    """Keeps the footer of every frame the terminal is sent."""

    def __init__(self, app: ChatApp) -> None:
        super().__init__(app, checks_per_update=False)
        self.footers: list[str] = []

    def _play(self, update: Any) -> None:
        super()._play(update)
        self.footers.append(self.terminal.display[-1])


async def test_the_conversation_keys_do_not_flash_in_the_footer_as_the_chat_opens() -> None:
    """As a chat opens the composer has the focus from the first frame: Textual's first focusable widget, the
    conversation, never has it, so no frame's footer offers its keys."""
    app = app_for(save_sessions=False)
    frames = Footers(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.chat_screen.composer.has_focus and bool(frames.footers))
        await pilot.pause()
    assert frames.footers and not [footer for footer in frames.footers if "Select" in footer]


async def test_enter_or_space_on_a_selected_answer_opens_and_closes_its_reasoning(scripted: ScriptedServer) -> None:
    """The reasoning panes are reached with the cursor (Tab goes from the composer to the conversation, not to the
    panes' titles): Enter or Space on a selected answer opens or closes its pane; on a prompt they do nothing."""
    scripted.answers = [sse_script("The answer.", reasoning="Let me think.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt, answer = await conversation(pilot, app, "think first")
        assert isinstance(answer, AssistantMessage)
        pane = answer.reasoning_pane
        assert pane.collapsed
        await pilot.press("tab")
        await selected_is(pilot, app, answer)
        await wait_for(pilot, lambda: "⏎ Reasoning" in screen_text(app).splitlines()[-1])
        await pilot.press("enter")
        await wait_for(pilot, lambda: not pane.collapsed)
        await pilot.press("space")
        await wait_for(pilot, lambda: pane.collapsed)
        view = app.chat_screen.conversation_view
        assert view.has_focus and view.selected is answer, "the answer stays selected"
        await pilot.press("up", "enter")
        await selected_is(pilot, app, prompt)
        assert pane.collapsed and app.chat_screen.composer.text == "", "Enter on a prompt leaves the panes be"
        assert "Reasoning" not in screen_text(app).splitlines()[-1]


async def test_a_click_on_a_reasoning_title_toggles_it_and_selects_its_answer_for_enter(
    scripted: ScriptedServer,
) -> None:
    """A click on a pane's title opens it and leaves the focus with the conversation, the answer selected: Enter then
    closes it (the title is not a focus of its own that would take Enter, or the typed letters)."""
    scripted.answers = [sse_script("The answer.", reasoning="Let me think.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:
        _, answer = await conversation(pilot, app, "think first")
        assert isinstance(answer, AssistantMessage)
        pane = answer.reasoning_pane
        await pilot.click(pane.query_one("CollapsibleTitle"))
        await wait_for(pilot, lambda: not pane.collapsed)
        view = app.chat_screen.conversation_view
        await wait_for(pilot, lambda: view.has_focus and view.selected is answer)
        await pilot.press("enter")
        await wait_for(pilot, lambda: pane.collapsed)
        await pilot.press("x")
        await wait_for(pilot, lambda: app.chat_screen.composer.text == "x")
