"""The messages of the conversation view.

An answer streams into a `MarkdownView` through a coalescing buffer flushed every FLUSH_INTERVAL (every other one
while text comes faster than a few words a frame, every third faster still: BUSY_TEXT, RUSHED_TEXT): only the block
being written is re-rendered, never the whole answer; when the answer ends, the text on screen is checked to be
exactly the answer. Reasoning streams into a collapsible pane above the answer, open while the model thinks and
closed when the answer starts. Model text is shown harmlessly: control characters and escape sequences become
visible symbols, never terminal commands.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Group
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from chatterm.events import ToolCallDelta
from chatterm.terminal_text import neutralize
from chatterm.ui.markdown.text import TextView
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.plain import escaped, plain
from chatterm.ui.widgets.tools import ToolCalls

FLUSH_INTERVAL = 0.05
"""Seconds between screen updates while an answer streams: 20 a second, smooth to the eye while each frame adds a
word or two."""
BUSY_TEXT = 40
"""Characters, about eight tokens: a flush that moves more lets the next tick pass. Text that comes faster than
this (160 tokens a second and up) is drawn 10 times a second, a line or more at a time, where twice as many frames
would show nothing the eye follows and cost twice the CPU (bench S2: each frame costs the same whatever it adds)."""
RUSHED_TEXT = 100
"""Characters, a flush that moves more lets the next two ticks pass: text that comes faster than 1,000 characters a
second (200 tokens a second and up, faster than anyone reads) is drawn about 7 times a second, two lines or more
at a time at a wide terminal's width, for two thirds of the frames' cost."""


def branch_marker(branch: tuple[int, int]) -> str:
    """Which of a turn's alternatives a message is, of how many: `‹ 2/3 ›`."""
    return f"‹ {branch[0]}/{branch[1]} ›"


class UserMessage(Static):
    """A prompt. Its first line says which of its turn's alternatives it is when it has siblings (`show_branch`)."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 1 0 1;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
        color: $text;
    }
    UserMessage > .user-message--branch { color: $accent; }
    """
    COMPONENT_CLASSES = {"user-message--branch"}

    def __init__(self, text: str) -> None:
        super().__init__(plain(text), classes="user")
        self.text = text
        self.turn: str | None = None
        """The exchange of the conversation tree that asked this prompt (its turn's first), once known."""
        self.branch: tuple[int, int] | None = None
        """Which of its turn's alternatives it is, of how many, when it shows them (`‹ 2/3 ›`)."""

    def show_branch(self, branch: tuple[int, int] | None) -> None:
        if branch != self.branch:
            self.branch = branch
            if self.is_mounted:  # (else when mounted: the marker's colour is the theme's)
                self._show()

    def _show(self) -> None:
        if self.branch is None:
            self.update(plain(self.text))
            return
        style = self.get_component_rich_style("user-message--branch", partial=True)
        self.update(Group(plain(branch_marker(self.branch), style, "right"), plain(self.text)))

    def on_mount(self) -> None:
        if self.branch is not None:
            self._show()


class ReasoningPane(Collapsible):
    """The model's reasoning, live while it thinks; its title says for how long and how many tokens."""

    DEFAULT_CSS = """
    ReasoningPane {
        margin: 0;
        padding: 0;
        border: none;
        background: transparent;
    }
    ReasoningPane > Contents { padding: 0; }
    ReasoningPane .reasoning-text { color: $text-muted; padding: 0 2 0 4; }
    ReasoningPane CollapsibleTitle { color: $secondary; padding: 0; margin: 0 2; }
    """

    def __init__(self) -> None:
        self.body = TextView(classes="reasoning-text")
        super().__init__(self.body, title="Thinking…", collapsed=False)

    def append(self, text: str) -> None:
        """Add reasoning; only its last paragraph is re-wrapped (it can run to thousands of tokens)."""
        self.body.append(neutralize(text))

    _closed_by_chatterm = False

    def on_mount(self) -> None:
        """The title is clicked, not focused: the conversation's cursor is the keyboard's way to it (Enter on the
        selected answer)."""
        for title in self.query("CollapsibleTitle"):
            title.can_focus = False

    def close(self) -> None:
        """Closed by chatterm (its answer started or was shown finished), not by the reader: the conversation stays
        where it is (at its end, for a session opened whole)."""
        if not self.collapsed:
            self._closed_by_chatterm = True
            self.collapsed = True

    def scroll_visible(self, *args: Any, **kwargs: Any) -> None:
        """A Collapsible scrolls itself into view when it opens or closes: only when the reader opened or closed it,
        not while its answer streams (the conversation follows the text) nor when chatterm closed it."""
        closed_by_chatterm, self._closed_by_chatterm = self._closed_by_chatterm, False
        message = self.parent
        if closed_by_chatterm or (isinstance(message, AssistantMessage) and not message.finished):
            return
        super().scroll_visible(*args, **kwargs)


class AssistantMessage(Vertical):
    """One answer: reasoning pane, Markdown answer, tool calls, and a one-line notice for errors and stops.

    The pane, the calls and the notice are mounted only when there is something to show in them: a finished message
    costs as few widgets as possible, since the widget count is what slows a long conversation down.
    """

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0;
    }
    AssistantMessage > MarkdownView { margin: 0; padding: 0 2; }
    AssistantMessage > .notice { color: $error; padding: 0 2; }
    AssistantMessage > .branch { color: $accent; padding: 0 2; text-align: right; }
    AssistantMessage > .notice.-stopped { color: $warning; }
    """

    def __init__(self, show_reasoning: bool = True, timed: bool = True) -> None:
        super().__init__(classes="assistant")
        self.show_reasoning = show_reasoning
        self.timed = timed
        """False for an answer shown finished, whose thinking time is not known."""
        self.reasoning_pane = ReasoningPane()
        self.markdown = MarkdownView()
        self.tools = ToolCalls()
        self.notice = Static("", classes="notice", markup=False)
        self._answer_parts: list[str] = []
        self._reasoning_parts: list[str] = []
        """Joined when read, as `Reply` does: `str +=` on an attribute copies the whole text per token."""
        self._pending_answer: list[str] = []
        self._pending_reasoning: list[str] = []
        self._rest = 0
        """Ticks to pass before the next flush: the last one moved a busy frame (`BUSY_TEXT`, `RUSHED_TEXT`)."""
        self.started = time.monotonic()
        self.reasoning_started: float | None = None
        self.reasoning_seconds: float | None = None
        self.recorded_thinking: float | None = None
        """How long the model thought when a replayed answer was recorded: the title says it, not the replay's."""
        self.finished = False
        self.preset: tuple[str | None, int | None] = (None, None)
        """The notice and reasoning token count of an answer shown finished (an opened session)."""
        self.on_flush: Callable[[], None] | None = None
        """Called after each flush: what else changes as the answer streams (the status line's speed) is drawn in the
        same frame."""
        self.turn: str | None = None
        """The exchange of the conversation tree whose answer this is (its turn's first), once known."""
        self.branch: tuple[int, int] | None = None
        """Which of its turn's alternatives it is, of how many, when it shows them (`‹ 2/3 ›`)."""
        self._marker: Static | None = None

    @property
    def answer(self) -> str:
        return "".join(self._answer_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning_parts)

    def compose(self) -> ComposeResult:
        yield self.markdown

    @property
    def has_notice(self) -> bool:
        return self.notice.parent is not None

    async def show_reasoning_pane(self) -> None:
        """Mount the reasoning pane (once) with the reasoning received so far. What arrives while the pane is being
        mounted waits for the next flush, so the text is handed over before the mount and nothing reaches the pane
        twice."""
        if self.reasoning_pane.parent is None and self.reasoning:
            self._pending_reasoning.clear()
            self.reasoning_pane.append(self.reasoning)  # (before the mount: its first frame shows the text)
            await self.mount(self.reasoning_pane, before=self.markdown)

    def on_mount(self) -> None:
        self._timer = self.set_interval(FLUSH_INTERVAL, self._tick, pause=False)
        if self._marker is not None and self._marker.parent is None:
            self.mount(self._marker, before=0)

    def add_reasoning(self, text: str) -> None:
        if self.reasoning_started is None:
            self.reasoning_started = time.monotonic()
        self._reasoning_parts.append(text)
        self._pending_reasoning.append(text)

    def add_answer(self, text: str) -> None:
        self._answer_parts.append(text)
        self._pending_answer.append(neutralize(text))

    def add_tool_call(self, delta: ToolCallDelta) -> None:
        self.tools.add(delta)

    async def _tick(self) -> None:
        """The flush timer: a flush, unless the last one was busy (`BUSY_TEXT`, `RUSHED_TEXT`)."""
        if self._rest:
            self._rest -= 1
        else:
            size = self._pending_size()
            self._rest = 2 if size > RUSHED_TEXT else 1 if size > BUSY_TEXT else 0
            await self.flush()

    def _pending_size(self) -> int:
        return sum(map(len, self._pending_answer)) + sum(map(len, self._pending_reasoning))

    async def flush(self) -> None:
        """Move what arrived since the last flush onto the screen."""
        if self._pending_reasoning:
            text = "".join(self._pending_reasoning)
            self._pending_reasoning.clear()
            if self.show_reasoning:
                if self.reasoning_pane.parent is None:
                    await self.show_reasoning_pane()
                else:
                    self.reasoning_pane.append(text)
            self._title_thinking()
        if self._pending_answer:
            text = "".join(self._pending_answer)
            self._pending_answer.clear()
            self._stop_thinking()
            self.markdown.append(text)
        if self.tools.blocks:
            self._stop_thinking()  # (calls are an answer too)
            if self.tools.parent is None:
                self.markdown.fit_height()  # (the calls go under the text, not under room left for more)
                self._space_tools()
                await self.mount(self.tools, after=self.markdown)
            await self.tools.flush()
        if self.on_flush is not None:
            self.on_flush()

    def _stop_thinking(self) -> None:
        """The answer has started: the reasoning pane closes, its title says for how long the model thought."""
        if self.reasoning_started is not None and self.reasoning_seconds is None:
            self.reasoning_seconds = self._thought()
            self.reasoning_pane.close()
            self.reasoning_pane.body.fit_height()
            self.set_reasoning_title()

    def _space_tools(self) -> None:
        """A blank line between the calls and what is above them in the message (none when they come first)."""
        self.tools.set_class(bool(self.markdown.source) or self.reasoning_pane.parent is not None, "-spaced")

    def _title_thinking(self) -> None:
        if self.reasoning_seconds is None and self.reasoning_started is not None:
            # whole seconds: each new title relayouts the screen, so it changes once a second, not every frame
            self.reasoning_pane.title = escaped(f"Thinking… {time.monotonic() - self.reasoning_started:.0f} s")

    def _thought(self) -> float | None:
        """How long the model thought: as recorded, else as timed here (None for an answer shown finished)."""
        if self.recorded_thinking is not None:
            return self.recorded_thinking
        if self.timed and self.reasoning_started is not None:
            return time.monotonic() - self.reasoning_started
        return None

    def set_reasoning_title(self, reasoning_tokens: int | None = None) -> None:
        if self.reasoning_started is None:
            return
        seconds = self.reasoning_seconds if self.reasoning_seconds is not None else self._thought()
        title = f"Thought for {seconds:.1f} s" if seconds is not None else "Reasoning"
        if reasoning_tokens:
            title += f" · {reasoning_tokens} reasoning tokens"
        self.reasoning_pane.title = escaped(title)

    async def finish(
        self, notice: str | None = None, stopped: bool = False, reasoning_tokens: int | None = None
    ) -> None:
        """The answer ended: last flush, one full render so the screen holds exactly the answer."""
        self._timer.stop()
        await self.flush()
        shown = neutralize(self.answer)
        if self.markdown.source != shown:
            self.markdown.update(shown)
        self.markdown.fit_height()
        self.reasoning_pane.body.fit_height()
        self.tools.finish()
        self._space_tools()
        if self.reasoning_started is not None:
            if self.reasoning_seconds is None:
                self.reasoning_seconds = self._thought()
            self.set_reasoning_title(reasoning_tokens)
            if self.answer or self.tools.blocks:
                self.reasoning_pane.close()
        if not self.answer:
            self.markdown.display = False
        if notice:
            self.notice.update(plain(notice))
            self.notice.set_class(stopped, "-stopped")
            await self.mount(self.notice)
        self.finished = True

    def toggle_reasoning(self) -> None:
        self.reasoning_pane.collapsed = not self.reasoning_pane.collapsed

    def show_branch(self, branch: tuple[int, int] | None) -> None:
        """Say (on a line of its own above the answer) which of its turn's alternatives it is; None: say nothing."""
        if branch == self.branch:
            return
        self.branch = branch
        if branch is None:
            if self._marker is not None:
                self._marker.remove()
                self._marker = None
        elif self._marker is None:
            self._marker = Static(plain(branch_marker(branch)), classes="branch")
            if self.is_attached:
                self.mount(self._marker, before=0)
        else:
            self._marker.update(plain(branch_marker(branch)))


class InfoMessage(Static):
    """A line from chatterm itself (welcome, replay headers)."""

    DEFAULT_CSS = """
    InfoMessage { color: $text-muted; margin: 1 0 0 0; padding: 0 2; }
    """

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(plain(text), id=id)
        self.text = text

    def show(self, text: str) -> None:
        """Say something else."""
        self.text = text
        self.update(plain(text))
