"""What the message cursor's keys do on the chat screen: a handler for each act, given the selected message.

The conversation's cursor (`chatterm.ui.widgets.cursor`) says which message a key acts on and whether the act
applies to it (`ACTS_ON`); what the act does is the screen's, listed here by name (`HANDLERS`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from chatterm.ui.plain import notify
from chatterm.ui.screens import below, tree_keys
from chatterm.ui.screens.copying import copy_message
from chatterm.ui.widgets.cursor import ACTS_ON, Selectable
from chatterm.ui.widgets.messages import AssistantMessage

if TYPE_CHECKING:
    from chatterm.ui.app import ChatApp
    from chatterm.ui.screens.chat import ChatScreen

Handler = Callable[["ChatScreen", Selectable], Awaitable[None] | None]

HANDLERS: dict[str, Handler] = {
    "copy": copy_message,
    "edit": tree_keys.edit,
    "regenerate": tree_keys.regenerate,
    "continue": tree_keys.continue_answer,
    "next_branch": tree_keys.next_branch,
    "previous_branch": tree_keys.previous_branch,
    "fork": tree_keys.fork,
    "reasoning": lambda screen, message: message.toggle_reasoning() if isinstance(message, AssistantMessage) else None,
}
"""For each act of the cursor's keys (`act('NAME')`), what it does with the selected message."""
NOTHING = {
    "edit": "No prompt to edit yet.",
    "regenerate": "No answer to regenerate yet.",
    "continue": "No answer was cut short: there is nothing to continue.",
    "next_branch": "No message has another branch.",
    "previous_branch": "No message has another branch.",
    "fork": "Nothing to fork yet.",
    "reasoning": "No answer shows reasoning.",
}
"""What the palette says when an act applies to no message on screen."""


async def act(screen: ChatScreen, action: str, message: Selectable) -> None:
    """Do `action` on `message` (an act no handler is listed for does nothing)."""
    handler = HANDLERS.get(action)
    if handler is not None:
        done = handler(screen, message)
        if inspect.isawaitable(done):
            await done


async def from_palette(app: ChatApp, action: str) -> None:
    """An act chosen in the palette: on the selected message when it applies to it, else on the last message on
    screen it applies to."""
    screen = app.chat_screen
    await below.to_end(screen)
    view = screen.conversation_view
    applies = ACTS_ON[action]
    selected = view.selected
    candidates = [message for message in view.selectable() if applies(message)]
    target = selected if selected is not None and applies(selected) else (candidates[-1] if candidates else None)
    if target is None:
        notify(screen, NOTHING.get(action, "No message to act on."), severity="warning")
        return
    await act(screen, action, target)
