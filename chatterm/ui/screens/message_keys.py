"""What the message cursor's keys do on the chat screen: a handler for each act, given the selected message.

The conversation's cursor (`chatterm.ui.widgets.cursor`) says which message a key acts on and whether the act
applies to it (`ACTS_ON`); what the act does is the screen's, listed here by name (`HANDLERS`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from chatterm.ui.screens.copying import copy_message
from chatterm.ui.widgets.cursor import Selectable

if TYPE_CHECKING:
    from chatterm.ui.screens.chat import ChatScreen

Handler = Callable[["ChatScreen", Selectable], Awaitable[None] | None]

HANDLERS: dict[str, Handler] = {"copy": copy_message}
"""For each act of the cursor's keys (`act('NAME')`), what it does with the selected message."""


async def act(screen: ChatScreen, action: str, message: Selectable) -> None:
    """Do `action` on `message` (an act no handler is listed for does nothing)."""
    handler = HANDLERS.get(action)
    if handler is not None:
        done = handler(screen, message)
        if inspect.isawaitable(done):
            await done
