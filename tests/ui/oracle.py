"""The screen oracle: what the terminal shows is what a fresh render of what was received draws.

`Oracle` plays every update the app sends to the terminal into a terminal emulator (pyte), exactly as a terminal
would get it, and after each one checks the emulated screen:

- it equals a whole render of the screen by Textual's own compositor (chatterm's compositor draws only what
  changed, and scrolls the terminal: nothing it leaves on the terminal may differ);
- every text view of the conversation draws exactly a one-shot render of the text received for it so far (what
  the model sent, as the message recorded it, not what the view holds), at the view's width: an incremental
  render that went wrong, or text handed to a view twice, differs here (a tool call's arguments too);
- while an answer streams and the view follows it, the end of the text being written is on screen.

`final()` then draws the conversation as it ended in a new app, from the text received alone (every view rendering
its whole text in one piece; tool calls from their names, arguments and results; the branch marker a prompt or an
answer shows, `‹ 2/3 ›`, from the place it says it is), at the same size, scrolled to its end if the live view keeps
to its end, with the message the live view's cursor selects selected, and compares the conversation's rows: an
answer cut short by a stale height, left off screen, or drawn with room it no longer needs differs there. Every
difference is reported with the differing rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyte
from rich.console import RenderableType
from textual import messages
from textual._compositor import Compositor, CompositorUpdate  # (the oracle compares with Textual's own)
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Button, Collapsible

from chatterm.terminal_text import neutralize
from chatterm.ui.app import ChatApp
from chatterm.ui.markdown.text import TextView
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.widgets.earlier import LoadEarlier
from chatterm.ui.widgets.later import LoadLater
from chatterm.ui.widgets.messages import AssistantMessage, InfoMessage, ReasoningPane, UserMessage
from chatterm.ui.widgets.tools import ToolCallBlock, ToolCalls, shown_arguments
from tests.ui.helpers import app_for, one_render

MAX_REPORTED = 20
QUIET = 0.2
"""Seconds without a frame after which an app has settled."""


class WholeMarkdown(MarkdownView):
    """The answer's text drawn in one piece: Rich's Markdown of the whole source, nothing kept between appends."""

    def _settle(self) -> None:
        pass  # (everything stays in the tail)

    def _render_tail(self) -> list[Strip]:
        return self._render_text(self._tail)


class WholeText(TextView):
    """The reasoning drawn in one piece: the whole text wrapped at once."""

    def _settle(self) -> None:
        pass

    def _render_tail(self) -> list[Strip]:
        return self._render_text(self._tail)


class WholePane(ReasoningPane):
    def __init__(self, title: str, collapsed: bool) -> None:
        self.body = WholeText(classes="reasoning-text")
        Collapsible.__init__(self, self.body, title=title, collapsed=collapsed)


def _flushed(parts: list[str], pending: list[str]) -> str:
    """What of a message's text has been handed to its view (the rest waits for the next flush)."""
    whole = "".join(parts)
    return whole[: len(whole) - len("".join(pending))]


def received(message: AssistantMessage) -> tuple[str, str]:
    """The answer and the reasoning received and due on screen (neutralised, as shown)."""
    answer = neutralize(_flushed(message._answer_parts, message._pending_answer))
    reasoning = neutralize(_flushed(message._reasoning_parts, message._pending_reasoning))
    if message.finished:
        answer = neutralize(message.answer)
    return answer, reasoning


def arguments_received(block: ToolCallBlock) -> str:
    """A tool call's arguments as shown from what was received and handed to its view (neutralised, as shown)."""
    return neutralize(shown_arguments(block.arguments)) if block.arguments else ""


def _row(screen: pyte.Screen, y: int) -> tuple[Any, ...]:
    """A row as the eye sees it: characters with their colours and attributes (a blank's foreground colour, which
    draws nothing, left out)."""
    line = screen.buffer[y]
    cells = (line[x] for x in range(screen.columns))
    return tuple(
        cell._replace(fg="default") if cell.data == " " and not (cell.underscore or cell.reverse or cell.strikethrough)
        else cell
        for cell in cells
    )


def _drawn(lines: list[Strip]) -> list[Strip]:
    return [line.simplify() for line in lines]


@dataclass
class Problem:
    update: int
    what: str

    def __str__(self) -> str:
        return f"update {self.update}: {self.what}"


def _laid_out_afresh(screen: Any) -> Compositor:
    """A compositor of its own laid out over `screen`, leaving the live app as it was. A layout moves scrolled
    widgets (Textual's anchor, the conversation's following) without a repaint, which the app's own next layout
    may never do; the terminal would then be blamed for a state the oracle made."""
    kept = [(widget, _scroll_state(widget)) for widget in screen.walk_children(with_self=True) if widget.is_scrollable]
    compositor = Compositor()
    compositor.reflow(screen, screen.size)
    for widget, state in kept:
        widget.set_reactive(Widget.scroll_y, state["scroll_y"])
        widget.set_reactive(Widget.scroll_target_y, state["scroll_target_y"])
        if widget._vertical_scrollbar is not None:
            widget._vertical_scrollbar.set_reactive(ScrollBar.position, state["position"])
        for name in _FOLLOWING_STATE:
            if name in state:
                setattr(widget, name, state[name])
    return compositor


_FOLLOWING_STATE = ("_floor", "_text_bottom")
"""What the conversation's layout sets beside the scroll offset (chatterm/ui/widgets/conversation.py)."""


def _scroll_pending(screen: Any) -> bool:
    """A scroll is asked for and not made yet: a view's offset is set, and the screen is told when the view is next
    idle, which can be after a frame that draws what changed with it (the lines an append added, laid out where the
    view was). That frame shows the view where it was; the next one, where it is now (and is judged)."""
    if screen._scroll_required or any(widget._scroll_required for widget in screen.walk_children(with_self=False)):
        return True
    return any(isinstance(message, messages.UpdateScroll) for message in screen._message_queue.values)


def _layout_pending(screen: Any) -> bool:
    """A layout is asked for and not made yet: a widget says it needs one (it asks the screen when it is next idle)
    or the screen's queue holds the request. Textual goes on drawing the widgets that changed meanwhile, laid out as
    before: a whole render, which lays the screen out now, would show what the coming layout does and blame the
    terminal for a frame the app has not drawn yet."""
    if any(widget._layout_required for widget in screen.walk_children(with_self=False)):
        return True
    return any(isinstance(message, messages.Layout) for message in screen._message_queue.values)


def _scroll_state(widget: Widget) -> dict[str, Any]:
    bar = widget._vertical_scrollbar
    state = {"scroll_y": widget.scroll_y, "scroll_target_y": widget.scroll_target_y}
    state["position"] = bar.position if bar is not None else 0
    state.update({name: getattr(widget, name) for name in _FOLLOWING_STATE if hasattr(widget, name)})
    return state


class Oracle:
    """Plays the live app's updates into an emulator and checks each (see the module)."""

    def __init__(self, app: ChatApp, checks_per_update: bool = True) -> None:
        self.app = app
        self.terminal = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.terminal)
        self.problems: list[Problem] = []
        self.updates = 0
        self.settled = 0
        """Updates drawn with the layout settled: those the terminal is compared with a whole render at."""
        self.pending = 0
        """Updates drawn while a layout was asked for and not yet made (see `_layout_pending`)."""
        self.followed = 0
        """Updates at which the end of the text being followed was checked to be on screen."""
        self.scrolling = 0
        """Settled updates drawn while a scroll was asked for and not yet made: where the text's end is shown is
        judged at the next one (see `_scroll_pending`)."""
        self.checking = checks_per_update
        self._differing: dict[int, tuple[Any, Any]] = {}
        display = app._display

        def played(screen: Any, renderable: RenderableType | None) -> None:
            display(screen, renderable)
            if isinstance(renderable, CompositorUpdate) and screen is app.screen:
                self._play(renderable)

        app._display = played  # type: ignore[method-assign]

    def _problem(self, what: str) -> None:
        if len(self.problems) < MAX_REPORTED:
            self.problems.append(Problem(self.updates, what))

    def _play(self, update: CompositorUpdate) -> None:
        width, height = self.app.size
        if (self.terminal.columns, self.terminal.lines) != (width, height):
            self.terminal.resize(height, width)
        self.stream.feed(update.render_segments(self.app.console))
        self.updates += 1
        if self.checking and len(self.app.screen_stack) > 1 and self.app.screen is self.app.chat_screen:
            self._check_views()
            if _layout_pending(self.app.screen):
                self.pending += 1
            elif self._laid_out():
                self.settled += 1
                self._check_terminal()
                if _scroll_pending(self.app.screen):
                    self.scrolling += 1
                else:
                    self._check_following()

    def _laid_out(self) -> bool:
        """Every widget has the size the screen's layout gives it. A frame drawn while a resize is being laid out
        (the screen's new size known, its widgets' not yet) has no whole render to compare with, nor a settled
        place for the text's end: the next frame does, and a difference that stays is reported then."""
        compositor = _laid_out_afresh(self.app.screen)
        return all(widget.outer_size == region.size for widget, (region, _) in compositor.visible_widgets.items())

    def whole_render(self) -> pyte.Screen:
        """The screen as it is now, drawn whole by Textual's own compositor."""
        compositor = _laid_out_afresh(self.app.screen)
        whole = pyte.Screen(self.terminal.columns, self.terminal.lines)
        pyte.Stream(whole).feed(compositor.render_full_update().render_segments(self.app.console))
        return whole

    def stale_rows(self) -> list[str]:
        """The rows the terminal shows otherwise than a whole render draws them (empty once the app has settled)."""
        whole = self.whole_render()
        return [
            f"row {y}: {self.terminal.display[y]!r} != {whole.display[y]!r}"
            for y in range(whole.lines)
            if _row(self.terminal, y) != _row(whole, y)
        ]

    def _check_terminal(self) -> None:
        """The terminal shows what Textual's compositor draws of the screen. A widget changed while a frame was
        drawn is repainted by the next update, so a row counts as wrong when the same difference is still there
        after the next update."""
        whole = self.whole_render()
        differing = {
            y: (_row(self.terminal, y), _row(whole, y))
            for y in range(whole.lines)
            if _row(self.terminal, y) != _row(whole, y)
        }
        left = [y for y, pair in differing.items() if self._differing.get(y) == pair]
        if left:
            shown = [f"row {y}: {self.terminal.display[y]!r} != {whole.display[y]!r}" for y in left[:3]]
            rows = "; ".join(row + _cells(*differing[y]) for row, y in zip(shown, left, strict=False))
            self._problem(f"the terminal differs from a whole render: {rows}")
        self._differing = differing

    def _check_views(self) -> None:
        """Every text view draws a one-shot render of what was received for it."""
        for message in self.app.chat_screen.messages():
            answer, reasoning = received(message)
            views: list[tuple[MarkdownView, str]] = [(message.markdown, answer)]
            if message.reasoning_pane.parent is not None:
                views.append((message.reasoning_pane.body, reasoning))
            views += [(block.arguments_view, arguments_received(block)) for block in message.tools.blocks]
            for view, text in views:
                if not view._width or not view.display:
                    continue
                if view.source != text:
                    self._problem(f"{type(view).__name__} holds {view.source[-60:]!r}, received {text[-60:]!r}")
                    continue
                expected = one_render(view, text)
                if _drawn(view.lines) != expected:
                    got = _drawn(view.lines)
                    at = next((n for n, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), None)
                    at = min(len(got), len(expected)) if at is None else at
                    shown = got[at].text if at < len(got) else "(no line)"
                    wanted = expected[at].text if at < len(expected) else "(no line)"
                    if shown == wanted:  # (the same text in other colours: say which)
                        shown, wanted = repr(list(got[at]))[:300], repr(list(expected[at]))[:300]
                    self._problem(f"{type(view).__name__} line {at}: {shown!r} != {wanted!r}")

    def _check_following(self) -> None:
        """While the view follows an answer, the end of the text being written is on screen."""
        view = self.app.chat_screen.conversation_view
        messages = self.app.chat_screen.messages()
        if not view.following or not messages or messages[-1].finished:
            return
        message = messages[-1]
        writing: MarkdownView = message.markdown
        if not message.markdown.source and message.reasoning_pane.parent is not None:
            writing = message.reasoning_pane.body
        calls = [block.arguments_view for block in message.tools.blocks if block.arguments_view.source]
        if calls and message.tools.parent is not None:
            writing = calls[-1]
        if not writing.source.strip() or not writing.region:
            return
        self.followed += 1
        last = writing.region.y + writing.line_count - 1
        if not view.region.y <= last < view.region.bottom:
            self._problem(
                f"following, but the end of the text (row {last}) is off the view {view.region}"
                f" ({type(writing).__name__} at {writing.region}, {writing.line_count} lines in {writing.laid_out};"
                f" scroll {view.scroll_y}, text bottom {view._text_bottom}, virtual {view.virtual_size.height})"
            )


@dataclass(frozen=True)
class Call:
    """A tool call as it ended: what was received of it, and the results shown under it (open or closed)."""

    call_id: str
    tool: str
    arguments: str
    results: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class Calls:
    """A group of tool calls (an answer's, or on its own in the conversation)."""

    calls: tuple[Call, ...]
    spaced: bool


def calls_of(group: ToolCalls) -> Calls:
    calls = tuple(
        Call(block.call_id, block.tool, block.arguments, tuple((r.text, r.collapsed) for r in block.results))
        for block in group.blocks
    )
    return Calls(calls, group.has_class("-spaced"))


def _built(item: Calls, group: ToolCalls) -> ToolCalls:
    """`group` holding the calls of `item`, drawn from what was received alone."""
    group.set_class(item.spaced, "-spaced")
    for call in item.calls:
        block = ToolCallBlock(call.call_id, call.tool, call.arguments)
        for text, collapsed in call.results:
            block.add_result(text).collapsed = collapsed
        block.finish()
        group.add_block(block)
    return group


@dataclass(frozen=True)
class Answer:
    """An answer as it ended, from what was received."""

    answer: str
    reasoning: str | None
    """The reasoning, when its pane is mounted."""
    collapsed: bool
    title: str
    pane_shown: bool
    answer_shown: bool
    notice: str | None
    stopped: bool
    tools: Calls | None
    """The answer's tool calls, when they are mounted."""
    branch: tuple[int, int] | None = None
    """Which of its alternatives it says it is (`‹ 2/3 ›`), when it says so."""


@dataclass(frozen=True)
class Prompt:
    """A prompt as it ended: its text, and which of its alternatives it says it is."""

    text: str
    branch: tuple[int, int] | None = None


@dataclass(frozen=True)
class Ending:
    """The conversation as it ended: what a fresh app draws it from."""

    size: tuple[int, int]
    rows: tuple[int, int]
    at_end: bool
    scroll: int
    items: tuple[tuple[str, str] | Prompt | Answer | Calls, ...]
    shown: tuple[tuple[Any, ...], ...]
    """The live terminal's rows of the conversation."""
    text: tuple[str, ...]
    selected: int | None
    """The item the conversation's cursor selects (drawn so while the conversation has the focus)."""
    stale: tuple[str, ...]
    """Rows the live terminal showed otherwise than a whole render of the live screen, once settled."""
    system: str | None = None
    """The chat's system prompt (shown above the conversation, which it leaves a row less)."""


def ending(oracle: Oracle) -> Ending:
    """The live app's conversation as it ends (call while the app still runs, once it has settled)."""
    app = oracle.app
    view = app.chat_screen.conversation_view
    items: list[tuple[str, str] | Prompt | Answer | Calls] = []
    selected = None
    for child in view.children:
        if child is view.selected:
            selected = len(items)
        if isinstance(child, ToolCalls):
            items.append(calls_of(child))
        elif isinstance(child, UserMessage):
            items.append(Prompt(child.text, child.branch))
        elif isinstance(child, InfoMessage):
            items.append(("info", child.text))
        elif isinstance(child, (LoadEarlier, LoadLater)):
            items.append((type(child).__name__, str(child.label)))
        elif isinstance(child, AssistantMessage):
            answer, reasoning = received(child)
            pane = child.reasoning_pane
            notice = str(child.notice.render()) if child.has_notice else None
            items.append(
                Answer(
                    answer=answer,
                    reasoning=reasoning if pane.parent is not None else None,
                    collapsed=pane.collapsed,
                    title=str(pane.title),
                    pane_shown=pane.display,
                    answer_shown=child.markdown.display,
                    notice=notice,
                    stopped=child.notice.has_class("-stopped"),
                    tools=calls_of(child.tools) if child.tools.parent is not None else None,
                    branch=child.branch,
                )
            )
    rows = (view.region.y, view.region.bottom)
    return Ending(
        selected=selected,
        size=(app.size.width, app.size.height),
        rows=rows,
        at_end=view._keeps_end,
        scroll=round(view.scroll_y),
        items=tuple(items),
        shown=tuple(_row(oracle.terminal, y) for y in range(*rows)),
        stale=tuple(oracle.stale_rows()),
        text=tuple(oracle.terminal.display[y] for y in range(*rows)),
        system=app.session.system if app.session is not None else None,
    )


CONTROLS: dict[str, Callable[[], Button]] = {"LoadEarlier": LoadEarlier, "LoadLater": lambda: LoadLater([])}
"""The controls a conversation may hold, by name: drawn with the label they ended with."""


async def _draw(pilot: Any, app: ChatApp, end: Ending) -> pyte.Screen:
    view = app.chat_screen.conversation_view
    widgets: list[Any] = []
    answers: list[tuple[AssistantMessage, Answer]] = []
    for item in end.items:
        if isinstance(item, Calls):
            widgets.append(_built(item, ToolCalls()))
        elif isinstance(item, Answer):
            message = AssistantMessage(timed=False)
            message.markdown = WholeMarkdown()
            message.reasoning_pane = WholePane(item.title, item.collapsed)
            message.show_branch(item.branch)
            widgets.append(message)
            answers.append((message, item))
        elif isinstance(item, Prompt):
            prompt = UserMessage(item.text)
            prompt.show_branch(item.branch)
            widgets.append(prompt)
        elif item[0] in CONTROLS:
            control = CONTROLS[item[0]]()
            control.label = item[1]
            widgets.append(control)
        else:
            widgets.append(InfoMessage(item[1]))
    await view.mount_all(widgets)
    if end.selected is not None:
        view.focus()
        view.select(widgets[end.selected])
    for message, item in answers:
        message._timer.stop()
        message.finished = True
        if item.reasoning is not None:
            await message.mount(message.reasoning_pane, before=message.markdown)
            message.reasoning_pane.body.append(item.reasoning)
            message.reasoning_pane.display = item.pane_shown
        message.markdown.append(item.answer)
        message.markdown.display = item.answer_shown
        message.markdown.fit_height()  # (finished: no room to grow into)
        message.reasoning_pane.body.fit_height()
        if item.tools is not None:
            await message.mount(_built(item.tools, message.tools), after=message.markdown)
        if item.notice is not None:
            message.notice.update(item.notice)
            message.notice.set_class(item.stopped, "-stopped")
            await message.mount(message.notice)
    await pilot.pause()
    if end.at_end:
        view.anchor()
        view.refresh(layout=True)
    else:
        view.anchor(False)
        view.scroll_to(y=end.scroll, animate=False, immediate=True)
    await quiet(pilot)
    screen = app.chat_screen
    compositor = Compositor()
    compositor.reflow(screen, screen.size)
    drawn = pyte.Screen(*end.size)
    pyte.Stream(drawn).feed(compositor.render_full_update().render_segments(app.console))
    return drawn


async def final(end: Ending) -> list[str]:
    """The conversation as it ended, drawn afresh from the text received alone (see the module): the live
    terminal's rows that differ from it, as reports (empty: none)."""
    app = app_for(save_sessions=False)
    async with app.run_test(size=end.size) as pilot:
        session = await app.chat_screen.ready()
        session.system = end.system
        app.show_options()
        await app.chat_screen.conversation_view.remove_children()
        drawn = await _draw(pilot, app, end)
    wrong = [f"left on the terminal: {row}" for row in end.stale]
    wrong += [
        f"row {y}: {end.text[n]!r} != {drawn.display[y]!r}{_cells(end.shown[n], _row(drawn, y))}"
        for n, y in enumerate(range(*end.rows))
        if end.shown[n] != _row(drawn, y)
    ]
    return wrong[:MAX_REPORTED]


def _cells(shown: tuple[Any, ...], drawn: tuple[Any, ...]) -> str:
    """Where two rows with the same text differ (their colours or attributes), for a report."""
    if "".join(c.data for c in shown) != "".join(c.data for c in drawn):
        return ""
    at = next(x for x, (a, b) in enumerate(zip(shown, drawn, strict=True)) if a != b)
    return f" (column {at}: {shown[at]} != {drawn[at]})"


def screen_text(app: ChatApp) -> str:
    """The text of the screen as a whole render by Textual's compositor draws it, through the app's own console. (Not
    through `export_screenshot`, which draws in truecolor: Rich keeps a style's escape codes from the first console
    that draws it, so a screenshot taken after an answer streamed leaves truecolour codes for the styles later apps
    share, and their frames no longer match a fresh render.)"""
    screen = app.screen
    compositor = Compositor()
    compositor.reflow(screen, screen.size)
    drawn = pyte.Screen(*app.size)
    pyte.Stream(drawn).feed(compositor.render_full_update().render_segments(app.console))
    return "\n".join(drawn.display)


async def quiet(pilot: Any, timeout: float = 10.0) -> None:
    """Wait until the app has drawn no frame for QUIET seconds. (Not by comparing screenshots: `export_screenshot`
    renders with a console of its own, and Textual caches a line's rendering whatever the console, so the
    terminal's own frames would then be drawn in the screenshot's colours.)"""
    import time

    app = pilot.app
    frames = [0]
    display = app._display

    def counted(screen: Any, renderable: Any) -> None:
        frames[0] += 1
        display(screen, renderable)

    app._display = counted
    try:
        deadline = time.monotonic() + timeout
        seen, since = -1, time.monotonic()
        while time.monotonic() - since < QUIET:
            if time.monotonic() > deadline:
                raise AssertionError("the app never stopped drawing")
            await pilot.pause(0.03)
            if frames[0] != seen:
                seen, since = frames[0], time.monotonic()
    finally:
        app._display = display
