"""The conversation from one turn down, taken off the screen and drawn again: what switching branch, editing,
regenerating and continuing do below the turn they act on (what is above it stays on screen).

A branch below a switch may be hundreds of turns long, and every layout of the conversation costs in proportion to
the widgets in it: drawn whole, a switch high in a long branch would hold the screen for seconds, and so would every
frame after it. So a window of turns is drawn below the switched one (`WINDOW`, more than a screenful), and a control
at the end stands for the rest (`LoadLater`): a click or Down on the last message shown puts the next window on
screen (`load_later`). Only the turns drawn are read from the session (`shown_turns`); export reads the rest too
(`whole_turns`). What goes on at the end of the conversation (a prompt sent, Ctrl+R, the palette's acts on the last
message) first shows its end (`to_end`): the last turns, the earlier ones behind the control at the top, as an
opened session shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from chatterm.conversation.tree import Turn
from chatterm.ui.screens import branches
from chatterm.ui.widgets.earlier import LoadEarlier
from chatterm.ui.widgets.later import LoadLater, control_in
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage
from chatterm.ui.widgets.tools import ToolCallBlock

if TYPE_CHECKING:
    from chatterm.conversation.export import ExportTurn
    from chatterm.conversation.reply import Reply
    from chatterm.ui.screens.chat import ChatScreen

WINDOW = 20
"""Turns drawn below a switch, and put on screen at a time after them: more than a screenful (a turn takes four rows
at least), and few enough to draw in a frame."""

Drawing = tuple[Turn, "ExportTurn", "Reply"]
"""A turn to draw: the tree's turn, what it shows, and its answer."""


async def cut(screen: ChatScreen, turn: Turn) -> None:
    """Take `turn` and everything below it off the screen (and out of the screen's turns, for export), the turns not
    shown yet below it with them."""
    session = screen.session
    assert session is not None
    above = session.tree.turns(turn.id)[:-1]
    children = list(screen.conversation_view.children)
    last = above[-1].id if above else None
    ends = [n for n, child in enumerate(children) if isinstance(child, AssistantMessage) and child.turn == last]
    if last is None:
        ends = []
    if ends:
        start = ends[-1] + 1
    else:  # (the first turn on screen: the control that loads earlier turns stays)
        start = next((n + 1 for n, child in enumerate(children) if isinstance(child, LoadEarlier)), 0)
    await screen.conversation_view.remove_children(children[start:])
    del screen.turns[len(above) :]


def later(screen: ChatScreen) -> LoadLater | None:
    """The control that stands for the turns below those on screen, if any are not."""
    return control_in(screen.conversation_view)


async def load_later(screen: ChatScreen) -> bool:
    """Put the next window of turns not shown yet on screen (False: all are)."""
    control = later(screen)
    if control is None:
        return False
    batch = shown_turns(screen, control.pending[:WINDOW])
    screen.turns += [shown for _, shown, _ in batch]
    await _draw(screen, batch, calls_above(screen), before=control)
    control.shown(len(batch))
    if not control.pending:
        await control.remove()
    branches.mark(screen)
    return True


def whole_turns(screen: ChatScreen) -> list[ExportTurn]:
    """Every turn of the active branch as shown, those not on screen yet below included (for export)."""
    control = later(screen)
    return (
        [*screen.turns, *(shown for _, shown, _ in shown_turns(screen, control.pending))] if control else screen.turns
    )


async def walk_down(screen: ChatScreen) -> None:
    """Down on the last message shown: the later turns come on screen and the message just below it is selected."""
    view = screen.conversation_view
    shown = view.selectable()
    if not shown or not await load_later(screen):
        return
    messages = view.selectable()
    view.select(messages[min(messages.index(shown[-1]) + 1, len(messages) - 1)])


async def to_end(screen: ChatScreen) -> None:
    """Show the end of the conversation when it is not on screen: its last turns, below the control that loads the
    earlier ones."""
    from chatterm.ui.screens import earlier_turns

    session, control = screen.session, later(screen)
    if control is None or session is None:
        return
    screen.turns += [shown for _, shown, _ in shown_turns(screen, control.pending)]
    view = screen.conversation_view
    kept = (screen._earlier, screen._load_earlier)
    await view.remove_children([child for child in view.children if child not in kept])
    turns = session.tree.turns()
    count = min(WINDOW, len(turns), len(screen.turns))  # (the last turns of the branch, each as the screen shows it)
    ends = zip(turns[len(turns) - count :], screen.turns[len(screen.turns) - count :], strict=True)
    drawing = [(turn, shown, session.answer_of(turn)) for turn, shown in ends]
    await earlier_turns.hide(screen, len(screen.turns) - count)
    await _draw(screen, drawing, [])
    branches.mark(screen)


def calls_above(screen: ChatScreen) -> list[ToolCallBlock]:
    """The tool calls of the last answer on screen: a turn drawn after it puts its results under them."""
    answers = [child for child in screen.conversation_view.children if isinstance(child, AssistantMessage)]
    return answers[-1].tools.blocks if answers else []


async def show_results(blocks: list[ToolCallBlock]) -> None:
    """Mount the results a turn drawn below put under calls on screen."""
    for block in blocks:
        await block.show_results()


def opened(screen: ChatScreen, turn: Turn, earlier: list[Any] | None = None) -> ExportTurn:
    """What `turn` opens with (its prompt and tool results; no answer yet), after the messages `earlier` (those the
    turn above sent: looked up when not given)."""
    from chatterm.cassette.transcript import messages_of, opened_turn  # (the HTTP stack: after the first frame)

    session = screen.session
    assert session is not None
    if earlier is None:
        above = session.tree.turns(turn.id)[:-1]
        earlier = messages_of(session.exchange(above[-1].id)) if above else []
    shown = opened_turn(session.exchange(turn.id), earlier)
    shown.prompt = session.prompt_of(turn)
    return shown


def shown_turns(screen: ChatScreen, turns: list[Turn]) -> list[Drawing]:
    """What consecutive turns of the active branch show, with their answers. Each request holds the whole history
    before it, so reading them costs with the depth of the branch: only the turns drawn are read."""
    from chatterm.cassette.transcript import answered, messages_of

    session = screen.session
    assert session is not None
    drawings: list[Drawing] = []
    earlier: list[Any] | None = None
    for turn in turns:
        reply = session.answer_of(turn)
        drawings.append((turn, answered(opened(screen, turn, earlier), reply), reply))
        earlier = messages_of(session.exchange(turn.id))
    return drawings


def opening(screen: ChatScreen, turn: Turn, calls: list[ToolCallBlock]) -> list[Widget]:
    """The widgets `turn` opens with (its prompt; its tool results go under `calls`, those of the answer above it,
    see `recorded.opening`), knowing their turn; the turn joins the screen's turns."""
    shown = opened(screen, turn)
    screen.turns.append(shown)
    return _opening(shown, turn, calls)


def _opening(shown: ExportTurn, turn: Turn, calls: list[ToolCallBlock]) -> list[Widget]:
    from chatterm.ui.screens import recorded

    widgets = recorded.opening(shown, calls)
    for widget in widgets:
        if isinstance(widget, UserMessage):
            widget.turn = turn.id
    return widgets


async def draw_below(screen: ChatScreen, turn: Turn) -> None:
    """Draw the active branch from `turn` (on it) down, after what is on screen: a window of it, and a control that
    stands for the rest (see the module)."""
    session = screen.session
    assert session is not None
    turns = session.tree.turns()[branches.depth(session.tree, turn) :]
    window = shown_turns(screen, turns[:WINDOW])
    screen.turns += [shown for _, shown, _ in window]
    await _draw(screen, window, calls_above(screen))
    if turns[WINDOW:]:
        await screen.conversation_view.mount(LoadLater(turns[WINDOW:]))


async def _draw(
    screen: ChatScreen, turns: list[Drawing], calls: list[ToolCallBlock], before: Widget | None = None
) -> None:
    """Mount `turns` (before `before`, else at the end), their first results under `calls`; an answer's reasoning
    says how long the model thought, as recorded."""
    from chatterm.cassette.timing import thinking_time
    from chatterm.ui.screens import recorded

    session = screen.session
    assert session is not None
    widgets: list[Widget] = []
    answers: list[tuple[AssistantMessage, ExportTurn]] = []
    on_screen = calls
    for turn, shown, reply in turns:
        widgets += _opening(shown, turn, calls)
        if reply.reasoning:  # (timed here, for the turns drawn: reading every turn's timing would cost with the depth)
            shown.thought = thinking_time(session.exchange(turn.id).response)
        message = recorded.recorded_answer(shown, screen.show_reasoning)
        message.turn = turn.id
        widgets.append(message)
        answers.append((message, shown))
        calls = message.tools.blocks
    await screen.conversation_view.mount_all(widgets, before=before)
    await show_results(on_screen)
    for message, shown in answers:
        await message.finish(notice=shown.notice, reasoning_tokens=shown.reasoning_tokens)
