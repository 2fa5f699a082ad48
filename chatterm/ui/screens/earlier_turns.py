"""The turns above those on screen, put back on it a batch at a time: by a click on the control at the top of the
conversation, or by Up on the first message shown (the cursor's `Earlier`), so the keyboard alone walks back through
a whole session.

The screen keeps every turn it has shown (`turns`) and how many of the first are not on screen (`hidden_turns`);
the control and the line above it that counts them (`_load_earlier`, `_earlier`) stay at the top until none is left.
The view keeps at most MAX_MOUNTED_TURNS turns: past that, the turns at the bottom leave for the control that
loads later turns (`keep_at_most`, `below`), so that walking back through a long session costs what a short one does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatterm.ui.screens import branches
from chatterm.ui.screens.recorded import rebuilt
from chatterm.ui.widgets.later import LoadLater, control_in
from chatterm.ui.widgets.messages import AssistantMessage

if TYPE_CHECKING:
    from chatterm.ui.screens.chat import ChatScreen
MAX_MOUNTED_TURNS = 50
"""Turns kept on screen: more leave it (at the top while a chat goes on, at the bottom while earlier ones come back);
they stay in the session, in the history and in the export."""
OPENED_TURNS = 20
"""Turns put on screen when a recording is opened or replayed at once, and put back at a time: more than a
screenful, and few enough that a long session is interactive at once (bench: 500-turn session; its earlier turns
stay in the file and the history)."""


def hidden_line(count: int) -> str:
    return f"⋯ {count} earlier turns are not shown (they are in the session file)"


async def load(screen: ChatScreen) -> bool:
    """Put the OPENED_TURNS turns before those on screen back on it (from `turns`, whole once the history of an opened
    session has loaded); False when none was hidden."""
    if screen._history is not None:
        await screen._history
    hidden = screen.hidden_turns
    if not hidden:
        return False
    start = max(hidden - OPENED_TURNS, 0)
    view = screen.conversation_view
    widgets, answers = rebuilt(screen.turns[start:hidden], screen.show_reasoning)
    await view.mount_all(widgets, after=screen._load_earlier)
    for answer, turn in zip(answers, screen.turns[start:hidden], strict=True):
        await answer.finish(notice=turn.notice, reasoning_tokens=turn.reasoning_tokens)
    screen.hidden_turns = start
    branches.mark(screen)  # (they learn their turns, and those with siblings say so)
    await keep_at_most(screen, MAX_MOUNTED_TURNS)
    if start:
        screen._earlier.show(hidden_line(start))
    else:
        await view.remove_children([screen._earlier, screen._load_earlier])
    return True


async def clicked(screen: ChatScreen) -> None:
    """The control was clicked: the earlier turns are shown from the top, and typing goes on in the composer."""
    if await load(screen):
        screen.conversation_view.scroll_home(animate=False)
    screen.composer.focus()


async def walk_up(screen: ChatScreen) -> None:
    """Up on the first message shown: the earlier turns come back and the message just above it is selected."""
    view = screen.conversation_view
    shown = view.selectable()
    if not shown or not await load(screen):
        return
    messages = view.selectable()
    index = messages.index(shown[0]) if shown[0] in messages else 0
    view.select(messages[max(index - 1, 0)])


async def hide(screen: ChatScreen, count: int) -> None:
    """The first `count` turns are not on screen: the control at the top says so, or goes when none is hidden."""
    screen.hidden_turns = count
    view = screen.conversation_view
    if not count:
        await view.remove_children([widget for widget in (screen._earlier, screen._load_earlier) if widget.parent])
        return
    screen._earlier.show(hidden_line(count))
    if screen._earlier.parent is None:
        await view.mount_all([screen._earlier, screen._load_earlier], before=0)


async def keep_at_most(screen: ChatScreen, count: int) -> None:
    """Keep at most `count` turns on screen once earlier ones came back above them: the turns at the bottom leave for
    the control at the end, as a switch leaves them (every layout costs with the turns on screen). Not while an
    answer is on its way, which is at the bottom; not where a turn on screen does not know its place yet."""
    session = screen.session
    if screen.busy or session is None:
        return
    branches.tag(screen)
    view = screen.conversation_view
    answers = [child for child in view.children if isinstance(child, AssistantMessage)]
    leaving = answers[count:]
    by_id = {turn.id: turn for turn in session.tree.turns()}
    if not leaving or any(answer.turn not in by_id for answer in leaving):
        return
    control = control_in(view)
    children = list(view.children)
    await view.remove_children(
        [child for child in children[children.index(answers[count - 1]) + 1 :] if child is not control]
    )
    del screen.turns[len(screen.turns) - len(leaving) :]
    turns = [by_id[answer.turn] for answer in leaving if answer.turn is not None]
    if control is not None:
        control.add(turns)
    else:
        await view.mount(LoadLater(turns))
