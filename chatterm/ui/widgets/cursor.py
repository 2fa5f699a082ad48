"""The message cursor: the conversation takes the focus and one message is selected, for a key to act on it.

Tab (or Shift+Tab) in the composer moves the focus to the conversation and selects the last message (`enter`); a
click selects the message under it. Up/Down and k/j move between the messages (the prompts and the answers: an
answer's reasoning, tool calls and notice are part of it), Home/End go to the first and the last shown; Up on the
first shown, when earlier turns are not on screen, asks for them (`Earlier`), and Down on the last shown for the
later ones (`Later`). Escape, Tab or Shift+Tab go back to
the composer, and so does a printable key no binding takes (it is typed there: the chat screen hands it over).

The conversation is the one focus in it: what is inside a message (a reasoning pane's title, the control that loads
earlier turns) takes clicks but not the focus, and is reached with the cursor's keys (Enter or Space opens or closes
the selected answer's reasoning).

The selection is drawn while the conversation has the focus: a bar in the accent colour down the message's left
edge. It is an outline, drawn over columns the message leaves blank (an answer's padding, a prompt's own bar), so
selecting repaints one message and moves nothing: no line of an answer is wrapped again. It is a CSS class
(`-selected`), so any render of the screen, the terminal's or a fresh one, draws it.

A key that acts on the selected message is a binding to `act('NAME')`: the cursor posts `Act` with the message, and
the screen does it. `ACTS_ON` says which messages an act applies to; on the others its key is hidden from the
footer and not taken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from chatterm.ui.widgets.earlier import LoadEarlier
from chatterm.ui.widgets.later import LoadLater
from chatterm.ui.widgets.measuring import MeasuredLater
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage

Selectable = UserMessage | AssistantMessage
"""What the cursor selects: a prompt or an answer."""


def any_message(message: Selectable) -> bool:
    return True


def prompt(message: Selectable) -> bool:
    return isinstance(message, UserMessage)


def answer(message: Selectable) -> bool:
    return isinstance(message, AssistantMessage) and message.finished


def cut_short(message: Selectable) -> bool:
    """An answer that ended with a notice (stopped, the token limit, an error) after some text."""
    return answer(message) and isinstance(message, AssistantMessage) and message.has_notice and bool(message.answer)


def has_reasoning(message: Selectable) -> bool:
    """An answer that shows a reasoning pane (open or closed)."""
    return isinstance(message, AssistantMessage) and message.reasoning_pane.parent is not None


def shows_branch(message: Selectable) -> bool:
    """A message that shows its turn's place among siblings (`‹ 2/3 ›`)."""
    return message.branch is not None


ACTS_ON: dict[str, Callable[[Selectable], bool]] = {
    "copy": any_message,
    "edit": prompt,
    "regenerate": answer,
    "continue": cut_short,
    "previous_branch": shows_branch,
    "next_branch": shows_branch,
    "fork": any_message,
    "reasoning": has_reasoning,
}
"""For each act (`act('NAME')` bindings), whether it applies to a message: a key whose act does not apply to the
selected message is hidden from the footer and goes on to the screen."""

_MOVE = Binding.Group("Select", compact=True)
_BRANCH = Binding.Group("Branch", compact=True)
_AT = "‹ 2/3 ›"


class MessageCursor(MeasuredLater):
    """A scrolling view of messages in which one message can be selected (see the module). The conversation is one;
    Textual takes a widget's CSS from its first base alone, so the line of bases is a single one."""

    DEFAULT_CSS = """
    AssistantMessage.-selected, AssistantMessage.-selected > *, AssistantMessage.-selected .reasoning-text,
    UserMessage.-selected {
        outline-left: outer $accent;
    }
    """

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", tooltip="Select the message above (or earlier turns)", group=_MOVE),
        Binding("down,j", "move(1)", "Down", tooltip="Select the message below (or later turns)", group=_MOVE),
        Binding("home", "first", "First", show=False, tooltip="Select the first message"),
        Binding("end", "last", "Last", show=False, tooltip="Select the last message"),
        Binding("y", "act('copy')", "Copy", tooltip="Copy the selected message"),
        Binding("e", "act('edit')", "Edit", tooltip="Edit the selected prompt: Enter sends it as a new branch"),
        Binding("r", "act('regenerate')", "Regenerate", tooltip="Ask for the selected answer again: a new branch"),
        Binding("c", "act('continue')", "Continue", tooltip="Continue the selected answer, cut short, as one answer"),
        Binding("left,h", "act('previous_branch')", "Branch", tooltip=f"Previous branch ({_AT})", group=_BRANCH),
        Binding("right,l", "act('next_branch')", "Branch", tooltip=f"Next branch ({_AT})", group=_BRANCH),
        Binding("enter,space", "act('reasoning')", "Reasoning", tooltip="Open or close the answer's reasoning"),
        Binding("f", "act('fork')", "Fork", tooltip="A new session with the branch up to the selected message"),
        Binding("escape,tab,shift+tab", "leave", "Back", show=False, tooltip="Back to the composer (or type)"),
    ]

    @dataclass
    class Selected(Message):
        """The selection changed: `message` is selected now (None: nothing is, the focus left)."""

        cursor: MessageCursor
        message: Selectable | None

    @dataclass
    class Act(Message):
        """A key asks for `action` to be done on the selected `message` (the screen does it)."""

        cursor: MessageCursor
        action: str
        message: Selectable

    @dataclass
    class Earlier(Message):
        """Up on the first message shown while earlier turns are not on screen: the screen puts them back."""

        cursor: MessageCursor

    @dataclass
    class Later(Message):
        """Down on the last message shown while later turns are not on screen: the screen puts them on it."""

        cursor: MessageCursor

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._selected: Selectable | None = None
        self.returns_to: Widget | None = None
        """Where the focus goes back to (the composer)."""

    @property
    def selected(self) -> Selectable | None:
        """The selected message, while the conversation has the focus and the message is on screen."""
        message = self._selected
        return message if message is not None and message.is_attached and message.parent is self else None

    def selectable(self) -> list[Selectable]:
        """The messages the cursor moves between, top to bottom."""
        return [child for child in self.children if isinstance(child, (UserMessage, AssistantMessage))]

    def select(self, message: Selectable | None) -> None:
        """Select `message` (None: nothing), draw it so and bring it into view."""
        old = self._selected
        if old is message:
            return
        if old is not None:
            old.remove_class("-selected")
        self._selected = message
        if message is not None:
            message.add_class("-selected")
            if message.region:
                self._bring_into_view(message)
            else:  # (mounted since the last layout: in view once it has a place)
                self.call_after_refresh(self._bring_into_view, message)
        self.refresh_bindings()
        self.post_message(self.Selected(self, message))

    def enter(self) -> None:
        """Take the focus from the composer, with the last message selected (none yet: the composer keeps it)."""
        messages = self.selectable()
        if messages:
            self.focus()
            self.select(messages[-1])

    def _bring_into_view(self, message: Selectable) -> None:
        """Scroll the least that shows the whole message; a message taller than the view is shown from its top,
        unless it already fills the view or its top is in sight."""
        content = self.scrollable_content_region
        if not message.region or not content.height:
            return
        top = round(self.scroll_y)
        start = message.region.y - content.y + top - message.styles.margin.top
        end = message.region.bottom - content.y + top
        bottom = top + content.height
        if start >= top and end <= bottom:
            return
        if end - start <= content.height:
            target = start if start < top else end - content.height
        elif (start <= top and end >= bottom) or top <= start < bottom:
            return
        else:
            target = start
        self.scroll_to(y=target, animate=False, immediate=True)

    def _move_to(self, index: int) -> None:
        messages = self.selectable()
        if messages:
            self.select(messages[max(0, min(index, len(messages) - 1))])

    def action_move(self, step: int) -> None:
        messages = self.selectable()
        current = self.selected
        if current is None or current not in messages:
            self._move_to(len(messages) - 1)
        elif step < 0 and current is messages[0] and self.query_children(LoadEarlier):
            self.post_message(self.Earlier(self))
        elif step > 0 and current is messages[-1] and self.query_children(LoadLater):
            self.post_message(self.Later(self))
        else:
            self._move_to(messages.index(current) + step)

    def action_first(self) -> None:
        self._move_to(0)

    def action_last(self) -> None:
        self._move_to(len(self.selectable()) - 1)

    def action_act(self, action: str) -> None:
        message = self.selected
        if message is not None:
            self.post_message(self.Act(self, action, message))

    def action_leave(self) -> None:
        if self.returns_to is not None:
            self.returns_to.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The cursor's keys are the conversation's only while it has the focus itself; an act only on a message it
        applies to."""
        if action not in ("move", "first", "last", "act", "leave"):
            return True
        if not self.has_focus:
            return False
        if action == "act":
            message = self.selected
            applies = ACTS_ON.get(str(parameters[0])) if parameters else None
            return message is not None and applies is not None and applies(message)
        return True

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click selects the message under it (as it is pressed: what is clicked may take the click itself, as a
        reasoning pane's title does, which opens or closes the pane)."""
        widget = event.widget
        while widget is not None and widget.parent is not self:
            parent = widget.parent
            widget = parent if isinstance(parent, Widget) else None
        if isinstance(widget, (UserMessage, AssistantMessage)) and self.has_focus:
            self.select(widget)

    def on_blur(self, event: events.Blur) -> None:
        """The focus went elsewhere on the screen (not to another screen): nothing is selected."""
        if self.screen.focused is not None and self.screen.focused is not self:
            self.select(None)
