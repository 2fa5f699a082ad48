"""The conversation follows the end of the text while an answer streams, without relayouts per line, and stops
following when the reader scrolls up to read; after a new width or theme, it draws what is far out of sight after
the frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from chatterm.ui.app import ChatApp
from chatterm.ui.markdown.view import GROWTH_ROOM, MarkdownView
from chatterm.ui.widgets.conversation import FOLLOW_STEP, ConversationView
from chatterm.ui.widgets.messages import AssistantMessage
from tests.faultserver import LINES, FaultServer
from tests.ui.helpers import app_for, send, settled, shown_text, wait_for
from tests.ui.oracle import Oracle, screen_text


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView(id="conversation")


def rows_below_text(view: ConversationView, markdown: MarkdownView) -> int:
    """Blank rows between the last line of text and the bottom of the view (negative: the text end is below)."""
    last_row = markdown.region.y + markdown.line_count - 1
    return view.scrollable_content_region.bottom - 1 - last_row


async def settle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_the_view_follows_the_text_and_grows_a_screen_at_a_time() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(ConversationView)
        message = AssistantMessage()
        await view.mount(message)
        view.follow()
        heights = []
        for n in range(80):
            message.add_answer(f"Line {n}.\n\n")
            await message.flush()
            markdown = message.markdown
            if markdown.line_count <= markdown.size.height and view.scroll_y > 0:  # no growth: scrolled at once
                text_bottom = view.virtual_size.height - (markdown.size.height - markdown.line_count)
                height = view.scrollable_content_region.height
                assert view.scroll_y + height >= text_bottom, f"the scroll joins the frame that draws the line ({n})"
            await settle(pilot)
            below = rows_below_text(view, markdown)
            assert below >= 0, f"the end of the text is on screen ({n})"
            assert view.scroll_y == 0 or below < FOLLOW_STEP, f"with at most a few blank rows under it ({n})"
            assert markdown.line_count <= markdown.size.height
            heights.append(markdown.size.height)
        assert len(set(heights)) <= 160 // max(GROWTH_ROOM, 20) + 1, "grown a screenful at a time, not per line"
        await message.finish()
        view.stop_following()
        await settle(pilot)
        assert message.markdown.size.height == message.markdown.line_count, "exact height once finished"
        assert view.scroll_y == view.max_scroll_y, "at the end, as between answers"


@pytest.mark.parametrize("height", [8, 12, 20])
async def test_a_short_view_follows_with_most_of_it_showing_text(height: int) -> None:
    """The room the view leaves under the text for what comes next is a few lines of a tall view and a quarter of a
    short one: a view of 9 rows showed 2 rows of text and 7 blank ones."""
    app = Host()
    async with app.run_test(size=(60, height)) as pilot:
        view = app.query_one(ConversationView)
        message = AssistantMessage()
        await view.mount(message)
        view.follow()
        rows = view.scrollable_content_region.height
        for n in range(40):
            message.add_answer(f"Line {n}.\n\n")
            await message.flush()
            await settle(pilot)
            below = rows_below_text(view, message.markdown)
            assert below >= 0 and (view.scroll_y <= 0 or below <= max(rows // 4, 1)), (n, rows, below)


async def answer_past_a_screen(pilot: Pilot[None], app: ChatApp) -> tuple[ConversationView, AssistantMessage]:
    """Ask, and wait until the streaming answer is taller than the 24-line screen."""
    await send(pilot, app, "go")
    screen = app.chat_screen
    await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].markdown.line_count > 40)
    return screen.conversation_view, screen.messages()[-1]


async def test_scrolling_up_stops_following_and_coming_back_resumes(faults: FaultServer) -> None:
    faults.gap = 0.03
    app = app_for(faults.url("lines"))
    async with app.run_test(size=(80, 24)) as pilot:
        view, message = await answer_past_a_screen(pilot, app)
        view.scroll_home(animate=False)
        await pilot.pause(0.3)
        assert view.scroll_y == 0 and not view.following, "left where the reader put it"
        lines = message.markdown.line_count
        await wait_for(pilot, lambda: message.markdown.line_count > lines + 20)
        assert view.scroll_y == 0, "still there while the text grows"
        view.scroll_to(y=view.max_scroll_y, animate=False)  # back down, past the end of the text
        await wait_for(pilot, lambda: view.following or message.finished)
        await wait_for(pilot, lambda: message.finished)
        await settle(pilot)
        assert message.answer == "".join(LINES)
        assert 0 <= rows_below_text(view, message.markdown) < FOLLOW_STEP, "followed to the end"
        assert view.scroll_y == view.max_scroll_y


async def test_a_reader_who_scrolled_up_stays_put_when_the_answer_ends(faults: FaultServer) -> None:
    faults.gap = 0.005
    app = app_for(faults.url("lines"))
    async with app.run_test(size=(80, 24)) as pilot:
        view, message = await answer_past_a_screen(pilot, app)
        view.scroll_to(y=10, animate=False)
        await wait_for(pilot, lambda: message.finished)
        await settle(pilot)
        assert view.scroll_y == 10


def long_answer(n: int) -> str:
    paragraph = f"Answer {n} says a fair amount of words, enough to wrap onto a few lines at most widths. " * 4
    items = "".join(f"- item {i} of answer {n}, which wraps when the screen is narrow enough\n" for i in range(6))
    return f"## Answer {n}\n\n{paragraph}\n\n{items}\n```python\nprint({n})\n```\n\n{paragraph}\n"


async def conversation_of(pilot: Pilot[None], view: ConversationView, answers: int) -> list[AssistantMessage]:
    messages = []
    for n in range(answers):
        message = AssistantMessage()
        await view.mount(message)
        message.add_answer(long_answer(n))
        await message.finish()
        messages.append(message)
    view.anchor()
    await settle(pilot)
    return messages


async def all_drawn(pilot: Pilot[None], messages: list[AssistantMessage], meanwhile: Callable[[], None]) -> None:
    """Wait until no message waits to be drawn again, calling `meanwhile` after each pause."""
    for _ in range(100):
        meanwhile()
        if not any(m.markdown.waiting for m in messages):
            return
        await pilot.pause(0.02)
    raise AssertionError("messages still wait to be drawn")


async def test_a_resize_measures_messages_far_out_of_sight_after_the_frame() -> None:
    """A new width draws every message again. Those far above what shows keep their height for the resize's frame
    and are measured after it, a slice at a time; the view keeps to its end throughout, and ends as a conversation
    laid out at that width from the start."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        messages = await conversation_of(pilot, view, 16)
        assert view.scroll_y == view.max_scroll_y > 0
        waited: list[MarkdownView] = []
        can_wait = view.can_wait

        def spied(markdown: MarkdownView) -> bool:
            if can_wait(markdown):
                waited.append(markdown)
                return True
            return False

        view.can_wait = spied  # type: ignore[method-assign, assignment]
        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        views = [m.markdown for m in messages]
        assert waited and set(waited) == set(views[: len(set(waited))]), "the first messages waited"
        assert views[-4] not in waited, "not those in sight or near it"

        def at_end() -> None:
            assert view.scroll_y == view.max_scroll_y, "at the end while the rest are measured"

        await all_drawn(pilot, messages, at_end)
        await settle(pilot)
        assert view.scroll_y == view.max_scroll_y
        resized = [(m.markdown.size.height, [s.text for s in m.markdown.lines]) for m in messages]

    fresh = Host()
    async with fresh.run_test(size=(60, 30)) as pilot:
        expected = await conversation_of(pilot, fresh.query_one(ConversationView), 16)
        assert resized == [(m.markdown.size.height, [s.text for s in m.markdown.lines]) for m in expected]


async def test_a_resize_while_the_reader_is_up_the_conversation_measures_everything_at_once() -> None:
    """Away from the end nothing waits: a message measured later would move what the reader is looking at."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        messages = await conversation_of(pilot, view, 16)
        view.scroll_to(y=view.max_scroll_y // 2, animate=False)
        view.release_anchor()
        await settle(pilot)
        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        assert not any(m.markdown.waiting for m in messages)
        assert all(m.markdown.size.height == m.markdown.line_count for m in messages)


def drawn(messages: list[AssistantMessage]) -> list[list[list[tuple[str, str]]]]:
    """Each message's lines as text and style, however Rich cut them into segments."""
    return [
        [[(segment.text, str(segment.style)) for segment in line.simplify()] for line in message.markdown.lines]
        for message in messages
    ]


async def test_a_theme_change_draws_messages_out_of_sight_after_the_frame() -> None:
    """A new theme draws every message again: those not drawn in the frame are drawn a slice at a time after it,
    and end as a conversation drawn in that theme from the start."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        messages = await conversation_of(pilot, view, 16)
        queued: list[MarkdownView] = []
        measure_later = view.measure_later

        def spied(markdown: MarkdownView) -> None:
            queued.append(markdown)
            measure_later(markdown)

        view.measure_later = spied  # type: ignore[method-assign, assignment]
        app.theme = "textual-light"
        await pilot.pause()
        assert len(queued) == len(messages), "each message was left to be drawn later, or when in sight"
        await all_drawn(pilot, messages, lambda: None)
        restyled = drawn(messages)

    fresh = Host()
    async with fresh.run_test(size=(100, 30)) as pilot:
        fresh.theme = "textual-light"
        await pilot.pause()
        assert restyled == drawn(await conversation_of(pilot, fresh.query_one(ConversationView), 16))


async def test_asking_whether_a_view_can_wait_does_not_ask_where_widgets_are(monkeypatch: pytest.MonkeyPatch) -> None:
    """`can_wait` is asked inside a layout. Asking where a widget is there (`Widget.size` does) arranges the whole
    screen again at once: at the end of a fast answer, the answer was drawn twice for it (S3: 0.6 -> 1-2 s)."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        messages = await conversation_of(pilot, view, 16)
        asked: list[Widget] = []
        find_widget = Screen.find_widget

        def spied(screen: Screen[Any], widget: Widget) -> Any:
            asked.append(widget)
            return find_widget(screen, widget)

        monkeypatch.setattr(Screen, "find_widget", spied)
        assert view.can_wait(messages[0].markdown) and not view.can_wait(messages[-1].markdown)
        assert asked == []


async def test_an_answer_ending_in_a_notice_is_on_screen_however_late_the_end_is_handled(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short conversation is drawn against the bottom edge. When the answer ends, the view keeps to its end after
    the frame that lays the last message out; on a busy machine that frame can come first, and the message that
    only holds a notice (an error, no text) was left below the edge, off screen."""
    later: Callable[..., Any] = ConversationView.call_after_refresh

    def late(self: ConversationView, callback: Callable[[], object], *args: Any) -> bool:
        self.set_timer(0.3, lambda: later(self, callback, *args))
        return True

    monkeypatch.setattr(ConversationView, "call_after_refresh", late)
    app = app_for(faults.url("e401"))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "Explain briefly")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        await pilot.pause(0.6)
        shot = shown_text(await settled(pilot))
        assert "HTTP 401: Invalid API Key" in shot and "Explain briefly" in shot


@pytest.mark.parametrize("before", ["ok", "lines"], ids=["short", "taller-than-the-screen"])
async def test_a_prompt_sent_is_on_screen_before_its_answer_starts(faults: FaultServer, before: str) -> None:
    """The view follows from the moment a prompt is sent: the prompt and the answer's place are on screen while the
    model has not answered yet (it stayed where it was, the prompt below the screen, until the first token)."""
    faults.stall, faults.gap = 3.0, 0.0
    app = app_for(faults.url(before))
    oracle = Oracle(app, checks_per_update=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, app, "first")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].finished)
        session = app.session
        assert session is not None
        session.client.endpoint.base_url = faults.url("silent")  # (the next answer does not come)
        await send(pilot, app, "where did my prompt go")
        await wait_for(pilot, lambda: faults.counts.get("silent", 0) == 1)
        await pilot.pause(0.3)
        shown = "\n".join(oracle.terminal.display)
        assert "where did my prompt go" in shown, shown
        assert "where did my prompt go" in screen_text(app)


async def test_a_message_selected_above_the_stream_holds_the_view_until_the_last_is(faults: FaultServer) -> None:
    """Selecting a message above the answer (Tab, Up) is reading it: the view stops following and keeps it on
    screen while the answer grows; selecting the last message (End) follows the answer again."""
    faults.gap = 0.03
    app = app_for(faults.url("lines"))
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, app, "go")
        screen = app.chat_screen
        await wait_for(pilot, lambda: bool(screen.messages()) and screen.messages()[-1].markdown.line_count > 2)
        view, message = screen.conversation_view, screen.messages()[-1]
        await pilot.press("tab", "up")  # (the prompt, on screen above the answer's first lines)
        prompt = view.selected
        assert prompt is not None and prompt is not message
        await wait_for(pilot, lambda: message.markdown.line_count > 60)
        await pilot.pause(0.1)
        assert view.region.contains_region(prompt.region), "the selected prompt stays on screen"
        await pilot.press("end")
        await wait_for(pilot, lambda: message.finished)
        await settle(pilot)
        assert 0 <= rows_below_text(view, message.markdown) < FOLLOW_STEP, "followed to the end again"
