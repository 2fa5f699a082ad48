"""A recording put on the chat screen: shown at once (a session opened, `replay --speed instant`) or re-streamed at
its recorded pace.

Either way the screen shows the active branch as the live chat does: one prompt and one answer per turn, a cut-short
answer and the exchanges that continued it (`active_turns`) as one answer, the continuations' requests never shown as
prompts of their own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from chatterm.conversation.continuation import joined, without_echo
from chatterm.conversation.reply import Reply
from chatterm.events import Content, Event, Finish, StreamError, UsageReport
from chatterm.ui.screens import earlier_turns
from chatterm.ui.screens.recorded import answered_by, messages_of, opening, recorded_answer
from chatterm.ui.widgets.tools import ToolCallBlock

if TYPE_CHECKING:
    from chatterm.cassette.model import Interaction, Recording
    from chatterm.net.client import ChatClient
    from chatterm.ui.screens.chat import ChatScreen


async def show_at_once(screen: ChatScreen, recording: Recording, mounted: int, earlier: int = 0) -> Reply | None:
    """A recording shown finished: only its last `mounted` turns mounted (`earlier` turns not loaded). Returns the
    reply of its last exchange (for the history: an answer is decoded once)."""
    from chatterm.cassette.branches import active_turns
    from chatterm.cassette.summary import reply_of
    from chatterm.cassette.transcript import answered, opened_turn

    await screen.put_away_welcome()
    turns = active_turns(recording)  # (the active branch; a retried turn's answering attempt; continuations joined)
    first_shown = max(len(turns) - mounted, 0)
    widgets: list[Widget] = []
    reply = part = None
    before: list[Any] = []
    shown: list[ToolCallBlock] = []
    for number, exchanges in enumerate(turns):
        parts = [reply_of(interaction) for interaction in exchanges]  # (each decoded once: a long one takes seconds)
        reply, part = joined(parts), parts[-1]
        turn = answered(opened_turn(exchanges[0], before), reply, exchanges[0].response)
        screen.turns.append(turn)
        before = messages_of(exchanges[0])
        if number < first_shown:
            continue
        widgets += opening(turn, shown)
        message = recorded_answer(turn, screen.show_reasoning)
        shown = message.tools.blocks
        widgets.append(message)
        message.preset = (turn.notice, turn.reasoning_tokens)
    screen.hidden_turns = first_shown + earlier
    if screen.hidden_turns:
        screen._earlier.show(earlier_turns.hidden_line(screen.hidden_turns))
        widgets[:0] = [screen._earlier, screen._load_earlier]
    await screen.conversation_view.mount_all(widgets)
    if turns:
        screen.status.show_answer(answered_by(turns[-1][-1], reply), reply.usage if reply else None)
    for message in screen.messages():
        notice, reasoning_tokens = message.preset
        await message.finish(notice=notice, reasoning_tokens=reasoning_tokens)
    screen.conversation_view.scroll_end(animate=False)
    return part if turns and turns[-1][-1] is recording.interactions[-1] else None


async def pace(screen: ChatScreen, client: ChatClient, answered: Recording) -> None:
    """Re-stream the turns of `answered` (a recording's active branch) at their recorded pace, each answer into one
    message."""
    from chatterm.cassette.branches import active_turns
    from chatterm.cassette.timing import thinking_time

    earlier: list[Any] = []
    shown: list[ToolCallBlock] = []
    for exchanges in active_turns(answered):
        await screen._open_turn(exchanges[0], earlier, shown)
        earlier = messages_of(exchanges[0])
        first = exchanges[0].request
        screen.status.begin(first.model if first else None)  # (as the answer appears)
        message = await screen._mount_answer()
        message.recorded_thinking = thinking_time(exchanges[0].response)
        await screen._stream_into(message, replayed_turn(client, exchanges))
        shown = message.tools.blocks


async def replayed_turn(client: ChatClient, exchanges: list[Interaction]) -> AsyncIterator[Event]:
    """The events of a turn's exchanges played again one after the other as one answer: each continuation's text
    after the text before it (an echo of that left out), the end, usage and error the last exchange's."""
    from chatterm.chat.session import replayed

    text = ""
    for number, interaction in enumerate(exchanges):
        last = number == len(exchanges) - 1
        events = replayed(client, interaction)
        async for event in without_echo(events, text) if number else events:
            if not last and isinstance(event, (Finish, StreamError, UsageReport)):
                continue
            if isinstance(event, Content):
                text += event.text
            yield event
