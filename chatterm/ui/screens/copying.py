"""Copying any message or any code block of the conversation, not only the last answer.

"Copy message…" and "Copy code block…" in the command palette open a list to pick from (newest first, Enter copies,
Escape closes); the palette also finds each code block by the number it shows on screen ("Copy code block 3").
Code blocks are numbered on through the conversation (`chatterm.ui.markdown.codes`). `y` copies the message the
conversation's cursor selects, Ctrl+Y the last answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from chatterm.conversation.tool_text import tool_markdown
from chatterm.ui.markdown.codes import code_blocks
from chatterm.ui.plain import notify, plain
from chatterm.ui.screens.dialog import Dialog
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage
from chatterm.ui.widgets.tools import ToolCalls

if TYPE_CHECKING:
    from chatterm.ui.screens.chat import ChatScreen

PREVIEW = 60
"""Characters of a message or block shown in the list."""


@dataclass(frozen=True)
class Copyable:
    """Something the user can copy: what the list shows, what reaches the clipboard, what the toast says."""

    title: str
    text: str
    told: str
    number: int = 0
    """A code block's number (0 for a message)."""


def _preview(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW else line[: PREVIEW - 1] + "…"


def of_message(widget: Widget) -> Copyable | None:
    """What copying a message copies: a prompt's text, an answer's text as received (not its reasoning) with its
    tool calls and their results, calls shown on their own; None for anything else."""
    if isinstance(widget, UserMessage):
        return Copyable(f"You: {_preview(widget.text)}", widget.text, "Copied the prompt.")
    if isinstance(widget, AssistantMessage) and (widget.answer or widget.tools.blocks):
        text = "\n\n".join(part for part in (widget.answer.rstrip(), _tools(widget.tools)) if part)
        if widget.answer:
            return Copyable(f"Answer: {_preview(widget.answer)}", text, "Copied the answer.")
        return Copyable(f"Tool calls: {_names(widget.tools)}", text, "Copied the tool calls.")
    if isinstance(widget, ToolCalls) and widget.blocks:
        return Copyable(f"Tool calls: {_names(widget)}", _tools(widget), "Copied the tool calls.")
    return None


def messages(screen: ChatScreen) -> list[Copyable]:
    """The messages on screen, in order: prompts, and answers with their tool calls and the results under them (an
    answer's reasoning is not part of it); calls shown on their own (from a recorded request's history) too."""
    found = (of_message(widget) for widget in screen.conversation_view.children)
    return [item for item in found if item is not None]


def _tools(calls: ToolCalls) -> str:
    return tool_markdown([block.use() for block in calls.blocks])


def _names(calls: ToolCalls) -> str:
    return _preview(", ".join(block.tool or "tool" for block in calls.blocks))


def code(screen: ChatScreen) -> list[Copyable]:
    """The code blocks of the answers on screen, each with the number it shows."""
    found: list[Copyable] = []
    for message in screen.messages():
        view = message.markdown
        for index, block in enumerate(code_blocks(view.source)):
            number = view.code_base + index + 1
            title = f"[{number}] {block.language or 'text'}: {_preview(block.code)}"
            found.append(Copyable(title, block.code, f"Copied code block {number}.", number))
    return found


def copy(screen: ChatScreen, item: Copyable) -> None:
    screen.app.copy_to_clipboard(item.text)
    notify(screen, item.told)


def copy_message(screen: ChatScreen, widget: Widget) -> None:
    """Copy one message (the one the cursor selects), or say there is nothing in it to copy."""
    item = of_message(widget)
    if item is None:
        notify(screen, "Nothing to copy: this answer has no text.", severity="warning")
    else:
        copy(screen, item)


def copy_last_answer(screen: ChatScreen) -> None:
    answers = [message.answer for message in screen.messages() if message.answer]
    if answers:
        screen.app.copy_to_clipboard(answers[-1])
        notify(screen, "Copied the last answer.")


def copy_number(screen: ChatScreen, number: int) -> None:
    """Copy the code block that shows `number`."""
    found = [item for item in code(screen) if item.number == number]
    if found:
        copy(screen, found[0])
    else:
        notify(screen, f"No code block {number} on screen.", severity="warning")


class PickScreen(Dialog[Copyable | None]):
    """A list of things to copy, newest first."""

    DEFAULT_CSS = """
    PickScreen > Vertical { width: 90%; max-width: 100; max-height: 80%; border: round $primary; }
    PickScreen OptionList { height: auto; max-height: 20; border: none; }
    PickScreen Label { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, title: str, items: list[Copyable]) -> None:
        super().__init__()
        self.title_text = title
        self.items = list(reversed(items))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.title_text))
            yield OptionList(*(Option(plain(item.title)) for item in self.items))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.items[event.option_index])


def pick_and_copy(screen: ChatScreen, title: str, items: list[Copyable], nothing: str) -> None:
    """Show `items` to pick one from, and copy the one picked (a warning when there is none)."""
    if not items:
        notify(screen, nothing, severity="warning")
        return

    def picked(item: Copyable | None) -> None:
        if item is not None:
            copy(screen, item)

    screen.app.push_screen(PickScreen(title, items), picked)


def pick_message(screen: ChatScreen) -> None:
    pick_and_copy(screen, "Copy which message?", messages(screen), "No message to copy yet.")


def pick_code(screen: ChatScreen) -> None:
    pick_and_copy(screen, "Copy which code block?", code(screen), "No code block to copy yet.")
