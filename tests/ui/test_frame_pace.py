"""While text comes a word or two a frame, every tick of the flush timer draws it; once it comes faster than a few
words a frame, every other tick does (ten frames a second, each a line or more), and faster still every third (about
seven a second, each two lines or more); nothing is held back: the next tick that draws shows all of it, and the end
of the answer draws at once."""

from __future__ import annotations

from textual.app import App, ComposeResult

from chatterm.ui.widgets.conversation import ConversationView
from chatterm.ui.widgets.messages import BUSY_TEXT, RUSHED_TEXT, AssistantMessage


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView(id="conversation")


async def ticks(message: AssistantMessage, pieces: list[str]) -> list[str]:
    """What the answer's view holds after each tick, a piece of text arriving before each."""
    shown = []
    for piece in pieces:
        message.add_answer(piece)
        await message._tick()
        shown.append(message.markdown.source)
    return shown


async def test_slow_text_is_drawn_at_every_tick_fast_text_at_every_other_and_faster_at_every_third() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        message = AssistantMessage()
        await app.query_one(ConversationView).mount(message)
        await pilot.pause()
        message._timer.stop()  # (the test ticks it)
        slow = ["a word "] * 4
        assert await ticks(message, slow) == ["a word " * n for n in range(1, 5)], "every tick draws"
        fast = ["x" * (BUSY_TEXT + 1)] * 4
        before = message.markdown.source
        shown = await ticks(message, fast)
        assert shown == [before + fast[0], before + fast[0], before + "".join(fast[:3]), before + "".join(fast[:3])]
        message.add_answer("the end")
        await message.finish()
        assert message.markdown.source == message.answer == before + "".join(fast) + "the end", "nothing held back"
        rushing = AssistantMessage()
        await app.query_one(ConversationView).mount(rushing)
        await pilot.pause()
        rushing._timer.stop()
        rushed = ["y" * (RUSHED_TEXT + 1)] * 7
        drawn = ["".join(rushed[:n]) for n in (1, 4, 7)]
        assert await ticks(rushing, rushed) == [drawn[0]] * 3 + [drawn[1]] * 3 + [drawn[2]], "every third tick draws"
        rushing.add_answer("the end")
        await rushing.finish()
        assert rushing.markdown.source == rushing.answer == "".join(rushed) + "the end", "nothing held back"
        slower = AssistantMessage()  # (a new answer starts at every tick again)
        await app.query_one(ConversationView).mount(slower)
        await pilot.pause()
        slower._timer.stop()
        assert await ticks(slower, ["one ", "two "]) == ["one ", "one two "]
