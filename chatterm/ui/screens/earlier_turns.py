"""The turns above those on screen, put back on it a batch at a time: by a click on the control at the top of the
conversation, or by Up on the first message shown (the cursor's `Earlier`), so the keyboard alone walks back through
a whole session.

The screen keeps every turn it has shown (`turns`) and how many of the first are not on screen (`hidden_turns`);
the control and the line above it that counts them (`_load_earlier`, `_earlier`) stay at the top until none is left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatterm.ui.screens import branches
from chatterm.ui.screens.recorded import rebuilt

if TYPE_CHECKING:
    from chatterm.ui.screens.chat import ChatScreen
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
        await answer.finish(notice=turn.notice)
    screen.hidden_turns = start
    branches.mark(screen)  # (they learn their turns, and those with siblings say so)
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
