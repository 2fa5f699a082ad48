"""The main screen: the conversation, the composer and the status line."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from chatterm.conversation.export import ExportTurn
from chatterm.conversation.reply import Reply
from chatterm.conversation.steps import answer_calls
from chatterm.events import Content, Event, ModelName, Reasoning, StreamWarning, ToolCallDelta
from chatterm.ui.memory import collect_when_idle
from chatterm.ui.plain import notify
from chatterm.ui.render.compositor import RowCompositor
from chatterm.ui.render.footer import footer
from chatterm.ui.render.widgets import install_compositor
from chatterm.ui.screens import below, branches, copying, earlier_turns, message_keys, tree_keys
from chatterm.ui.screens.earlier_turns import MAX_MOUNTED_TURNS as MAX_MOUNTED_TURNS  # (where tests read it)
from chatterm.ui.screens.earlier_turns import OPENED_TURNS as OPENED_TURNS  # (where the app and tests read it)
from chatterm.ui.screens.recorded import export_turns, opening
from chatterm.ui.screens.replaying import pace, show_at_once
from chatterm.ui.widgets.composer import Composer
from chatterm.ui.widgets.conversation import ConversationView
from chatterm.ui.widgets.cursor import MessageCursor
from chatterm.ui.widgets.earlier import LoadEarlier
from chatterm.ui.widgets.later import LoadLater
from chatterm.ui.widgets.messages import AssistantMessage, InfoMessage, UserMessage
from chatterm.ui.widgets.queued import QueuedPrompt
from chatterm.ui.widgets.status import StatusLine
from chatterm.ui.widgets.tools import ToolCallBlock
from chatterm.ui.widgets.welcome import WelcomeCard

if TYPE_CHECKING:
    from chatterm.cassette.model import Interaction, Recording
    from chatterm.chat.session import ChatSession
    from chatterm.settings.choice import Choice
    from chatterm.ui.app import ChatApp


PRUNE_SLACK = 10
"""Turns allowed above MAX_MOUNTED_TURNS until a quiet moment: removing turns relayouts the whole view, so it is
done when nobody waits for the screen, or at once past this many."""
TIDY_DELAY = 1.0
"""Seconds after an answer ends before old turns are removed and garbage collected, if nothing streams."""


class ChatScreen(Screen[None]):
    DEFAULT_CSS = """
    ChatScreen { layout: vertical; }
    #conversation { height: 1fr; padding: 0; scrollbar-size-vertical: 1; scrollbar-gutter: stable; }
    #input { height: auto; }
    """
    AUTO_FOCUS = "#composer"  # (not the first focusable widget, the conversation: its keys would flash in the footer)

    BINDINGS = [
        Binding("escape", "cancel_edit", "Cancel edit", tooltip="Cancel the edit of a message"),
        Binding("escape", "stop", "Stop", show=True, tooltip="Stop the answer (the partial answer stays)"),
        Binding("ctrl+r", "retry", "Retry", show=False, tooltip="Ask again after an error or a stop, else regenerate"),
        Binding("ctrl+t", "toggle_reasoning", "Reasoning", show=False, tooltip="Open or close the last reasoning pane"),
        Binding("ctrl+n", "app.new_chat", "New chat", tooltip="Start a new conversation"),
        Binding(  # (a priority: run as it comes, so the keys typed right after it go to the sessions' filter)
            "ctrl+o", "app.open_sessions", "Sessions", priority=True, tooltip="Saved sessions: filter, Enter replays"
        ),
        Binding("ctrl+l", "app.switch_profile", "Profile", tooltip="Switch profile (and model) mid-conversation"),
        # Ctrl+E and Ctrl+Y come before the composer's line end and redo (End and Ctrl+Shift+Z do those there)
        Binding("ctrl+e", "app.export", "Export", show=False, priority=True, tooltip="Export as Markdown"),
        Binding("ctrl+y", "copy_answer", "Copy answer", show=False, priority=True, tooltip="Copy the last answer"),
        Binding("f1", "app.show_help", "Help", tooltip="Keys, commands and where files live"),
        Binding("tab,shift+tab", "select_messages", "Messages", show=False, tooltip="Select a message (or click one)"),
    ]

    app: ChatApp

    def __init__(self, choice: Choice, show_reasoning: bool = True, welcome: bool = True) -> None:
        super().__init__()
        self.session: ChatSession | None = None
        """Attached by the app once its HTTP stack is imported, after the first frame (see `ready`)."""
        self._attached = asyncio.Event()
        self.show_reasoning = show_reasoning
        self.conversation_view = ConversationView(id="conversation")
        self._rows = install_compositor(self, RowCompositor)
        """Partial repaints render only the rows they change; the conversation's scrolls are the terminal's to make."""
        if self._rows is not None:
            self._rows.scroller = self.conversation_view
        self.composer = Composer()
        self.conversation_view.returns_to = self.composer
        self.status = StatusLine()
        self.status.set_endpoint(choice.profile, choice.endpoint.model)
        self._worker: Worker[None] | None = None
        self.queued = QueuedPrompt()
        self._sending = False
        """A prompt on its way from the composer to the session (set until its answer's worker exists)."""
        self._pacing: asyncio.Task[None] | None = None
        """The paced part of a replay, while it runs: Escape cancels it and the rest is shown at once."""
        self.turns: list[ExportTurn] = []
        """Every turn of this conversation as shown, including those no longer mounted."""
        self.hidden_turns = 0
        self._earlier = InfoMessage("", id="earlier")
        self._load_earlier = LoadEarlier()
        self._history: asyncio.Future[None] | None = None
        self.welcome = WelcomeCard(choice.profile, choice.endpoint.model, choice.is_demo) if welcome else None
        """Shown while the chat is empty (`welcome`: a chat that opens on a recording has no need of it)."""

    def compose(self) -> ComposeResult:
        yield self.conversation_view
        with Vertical(id="input"):  # (its own clip: a frame that draws the conversation does not redraw these)
            yield self.queued
            yield self.composer
            yield self.status
        yield footer()

    def on_screen_suspend(self) -> None:
        if self._rows is not None:
            self._rows.forget_painted()  # (another screen is drawn over this one)

    def on_mount(self) -> None:
        self.conversation_view.anchor()
        self.composer.focus()
        if self.welcome is not None:
            self.conversation_view.mount(self.welcome)

    async def put_away_welcome(self) -> None:
        """The chat is no longer empty: the welcome card goes."""
        if self.welcome is not None:
            welcome, self.welcome = self.welcome, None
            await welcome.remove()

    def welcome_for(self, choice: Choice) -> None:
        """The profile or model changed: the card (if still shown) names the new ones."""
        if self.welcome is not None and self.welcome.is_mounted:
            self.welcome.show(choice.profile, choice.endpoint.model, choice.is_demo)

    def on_key(self, event: events.Key) -> None:
        if self.focused is not self.composer:
            self.composer.take(event)

    def attach(self, session: ChatSession) -> None:
        self.session = session
        session.on_loaded = lambda: branches.mark(self)
        self._attached.set()

    async def ready(self) -> ChatSession:
        """The session, once attached: a prompt sent in the first instants after start-up waits for it."""
        await self._attached.wait()
        assert self.session is not None
        return self.session

    @property
    def streaming(self) -> bool:
        return self._worker is not None and self._worker.is_running

    @property
    def busy(self) -> bool:
        """An answer streaming, a recording being opened or replayed, or a prompt being sent: a prompt sent now
        waits for it (`queued`)."""
        return self._sending or any(
            worker.node is self and worker.group == "answer" and not worker.is_finished for worker in self.app.workers
        )

    def messages(self) -> list[AssistantMessage]:
        return list(self.query(AssistantMessage))

    async def info(self, text: str) -> None:
        await self.conversation_view.mount(InfoMessage(text))

    def on_composer_submitted(self, event: Composer.Submitted) -> None:
        if not tree_keys.submit_edit(self, event.text):
            self._submit(event.text)

    @work(group="submit")
    async def _submit(self, text: str) -> None:
        """Send a prompt. In a worker, not the message handler: right after start-up it waits for the session,
        which is attached after the first frame, and the screen must go on drawing meanwhile."""
        session = await self.ready()
        if self._history is not None:  # a long session still loading: the history must be whole first
            await self._history
            self._history = None
        await below.to_end(self)  # (a branch switched to high up: the prompt goes under its last turn)
        if self.busy or self.queued.text is not None:
            self._hold(text)
            return
        self._sending = True
        try:
            session.add_prompt(text)
            await self._add_prompt(text)
            await self._start_answer()
        finally:
            self._sending = False

    def _hold(self, text: str) -> None:
        """Keep a prompt sent while busy until the answer or replay ends; a second one stays in the composer."""
        if self.queued.text is None:
            self.queued.hold(text, "this answer" if self.streaming or self._sending else "the replay")
            return
        self.composer.give_back(text)
        notify(self, "A prompt is queued already: Escape takes it back to edit.", severity="warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is offered (in the footer) only while there is something for it to cancel, stop or take back."""
        if action == "cancel_edit":
            return tree_keys.editing(self) is not None
        return self.busy or self.queued.text is not None if action == "stop" else True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """An answer or a replay started or ended: the footer says so; at its end, send the prompt held meanwhile."""
        if event.worker.group == "answer":
            self.refresh_bindings()
        ended = event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)
        if ended and event.worker.group == "answer" and self.is_attached and not self.busy:
            text = self.queued.take()
            if text is not None:
                self._submit(text)

    async def _add_prompt(self, text: str) -> None:
        await self.put_away_welcome()
        self.turns.append(ExportTurn(prompt=text))
        await self.conversation_view.mount(UserMessage(text))

    async def _open_turn(self, interaction: Interaction, earlier: list[Any], shown: list[ToolCallBlock]) -> None:
        """What a recorded turn's request adds before its answer: the prompt, and tool results under their calls."""
        from chatterm.cassette.transcript import opened_turn

        await self.put_away_welcome()
        turn = opened_turn(interaction, earlier)
        self.turns.append(turn)
        widgets = opening(turn, shown)
        for block in shown:  # (the answer above is on screen: its calls take their results now)
            await block.show_results()
        if widgets:
            await self.conversation_view.mount_all(widgets)

    async def _start_answer(self) -> None:
        self._worker = self._answer(await self._mount_answer())

    async def _mount_answer(self) -> AssistantMessage:
        """The message an answer streams into, at the end of the view, which follows it."""
        message = AssistantMessage(show_reasoning=self.show_reasoning)
        await self.conversation_view.mount(message)
        self.conversation_view.follow()
        return message

    async def _prune(self, slack: int = 0) -> None:
        """Keep the view to the last MAX_MOUNTED_TURNS turns when more than `slack` turns above it are mounted: the
        widget count is what slows a long chat."""
        users = list(self.conversation_view.query(UserMessage))
        if len(users) <= MAX_MOUNTED_TURNS + slack:
            return
        extra = len(users) - MAX_MOUNTED_TURNS
        cut = users[extra]
        doomed = []
        for widget in self.conversation_view.children:
            if widget is cut:
                break
            if widget is not self._earlier and widget is not self._load_earlier:
                doomed.append(widget)
        self.hidden_turns += extra
        await self.conversation_view.remove_children(doomed)
        self._earlier.show(earlier_turns.hidden_line(self.hidden_turns))
        if self._earlier.parent is None:
            await self.conversation_view.mount_all([self._earlier, self._load_earlier], before=0)

    @work(exclusive=True, group="answer")
    async def _answer(self, message: AssistantMessage) -> None:
        self.status.begin()
        session = await self.ready()
        try:
            if (await self._stream_into(message, session.stream())).error is not None:
                self._give_back_held()
        finally:
            branches.answered(self, message)

    def _give_back_held(self) -> None:
        """An answer ended in an error: the prompt held for after it is not sent (it would follow an answer that is
        not there), it goes back to the composer."""
        held = self.queued.take()
        if held is not None:
            self.composer.give_back(held)
            notice = "Queued prompt not sent: the answer ended in an error. It is back in the composer; Ctrl+R retries."
            notify(self, notice, severity="warning", timeout=8)

    async def _stream_into(self, message: AssistantMessage, events: AsyncIterator[Event]) -> Reply:
        """Feed one answer's events into its message; a stop keeps the partial answer."""
        reply = Reply()
        stopped = False
        continued = bool(message.answer)  # (the partial answer a continuation streams on after)
        message.on_flush = self.status.show_speed
        blink, self.composer.cursor_blink = self.composer.cursor_blink, False  # (a blink is a frame of its own)
        try:
            async for event in events:
                reply.add(event)
                if isinstance(event, Content):
                    message.add_answer(event.text)
                    self.status.token()
                elif isinstance(event, Reasoning):
                    message.add_reasoning(event.text)
                    self.status.token()
                elif isinstance(event, ToolCallDelta):
                    message.add_tool_call(event)
                    self.status.token()
                elif isinstance(event, StreamWarning):
                    notify(self, event.message, severity="warning", timeout=4)
                elif isinstance(event, ModelName):
                    self.status.answered_by(event.model)
        except asyncio.CancelledError:
            stopped = True
            raise
        finally:
            self.composer.cursor_blink = blink
            notice = None
            if stopped:
                notice = "Stopped. Ctrl+R asks again."
            elif reply.error is not None:
                notice = f"{reply.error.message} · Ctrl+R retries"
            else:
                notice = reply.finish_notice  # (an answer, but not all of it: told in the warning colour)
                if continued and not reply.content and not reply.tool_calls:
                    notice = "The continuation added nothing" + (f" ({notice})" if notice else ".")
            reasoning_tokens = reply.usage.reasoning_tokens if reply.usage else None
            warn = stopped or (reply.error is None and notice is not None)
            await message.finish(notice=notice, stopped=warn, reasoning_tokens=reasoning_tokens)
            self.conversation_view.stop_following()
            self.status.end("stopped" if stopped else ("error" if reply.error else "ready"), reply.usage)
            if self.turns:
                turn = self.turns[-1]
                turn.answer, turn.reasoning, turn.notice = message.answer, message.reasoning, notice
                turn.calls, turn.reasoning_tokens = answer_calls(reply), reasoning_tokens
                turn.thought = message.reasoning_seconds
            await self._prune(PRUNE_SLACK)
            self.set_timer(TIDY_DELAY, self._tidy)
        return reply

    async def _tidy(self) -> None:
        """A quiet moment after an answer: old turns leave the view and garbage is collected."""
        if self.streaming or not self.is_current:
            return
        await self._prune()
        collect_when_idle()

    async def on_button_pressed(self, event: LoadEarlier.Pressed) -> None:
        if event.button is self._load_earlier:
            await earlier_turns.clicked(self)
        elif isinstance(event.button, LoadLater):
            await below.load_later(self)

    async def on_message_cursor_earlier(self, event: MessageCursor.Earlier) -> None:
        await earlier_turns.walk_up(self)

    async def on_message_cursor_later(self, event: MessageCursor.Later) -> None:
        await below.walk_down(self)

    def stop_answer(self) -> str | None:
        """Stop whatever answers (the chat is being left); returns the prompt that was held for after it."""
        for worker in self.app.workers:
            if worker.node is self and worker.group == "answer":
                worker.cancel()
        return self.queued.take()

    def action_stop(self) -> None:
        """Escape: take back a held prompt, else show the rest of a replay at once, else stop the answer."""
        held = self.queued.take()
        if held is not None:
            self.composer.give_back(held)
        elif self._pacing is not None:
            self._pacing.cancel()
        elif self.streaming and self._worker is not None:
            self._worker.cancel()

    def action_cancel_edit(self) -> None:
        tree_keys.cancel_edit(self)

    async def action_retry(self) -> None:
        await tree_keys.retry(self)

    def action_toggle_reasoning(self) -> None:
        messages = [m for m in self.messages() if m.reasoning]
        if messages:
            messages[-1].toggle_reasoning()

    def action_copy_answer(self) -> None:
        copying.copy_last_answer(self)

    def action_select_messages(self) -> None:
        self.conversation_view.enter()

    async def on_message_cursor_act(self, event: MessageCursor.Act) -> None:
        await message_keys.act(self, event.action, event.message)

    @work(exclusive=True, group="answer")
    async def open_path(self, path: Path, speed: float, instant: bool) -> None:
        """Open a recording from disk; shown at once, a long one is on screen before its history has loaded."""
        from chatterm.cassette.load import load_recording, load_tail
        from chatterm.cassette.model import RecordingError

        session = await self.ready()
        try:  # only the last turn was read before the app started: the rest may still be refused
            if not instant:
                recording = await asyncio.to_thread(load_recording, path)
                self.replay(recording, speed, instant)
                return
            tail, total = await asyncio.to_thread(load_tail, path, OPENED_TURNS)
        except RecordingError as exc:
            notify(self, str(exc), severity="error")
            return
        last = await show_at_once(self, tail, OPENED_TURNS, earlier=total - len(tail.interactions))
        await self.info("Replay finished. Type to continue the conversation live.")
        if total == len(tail.interactions):
            session.load_history(tail, last)
        else:
            self._history = asyncio.ensure_future(self._load_history(path, tail, last))

    async def _load_history(self, path: Path, tail: Recording, last: Reply | None) -> None:
        """The rest of a long recording, for the history, the session file and export (`last`: the reply of its last
        exchange, shown already)."""
        from chatterm.cassette.branches import active_answers
        from chatterm.cassette.load import load_recording
        from chatterm.cassette.model import Recording, RecordingError

        session = await self.ready()
        await asyncio.sleep(0.05)  # let the screen show what is there before the rest is parsed
        try:
            recording = await asyncio.to_thread(load_recording, path)
        except RecordingError as exc:
            notify(self, f"only the last turns could be loaded: {exc}", severity="warning")
            recording = tail
        shown = len(active_answers(tail).interactions)
        earlier = active_answers(recording).interactions[: -shown or None]  # the tail's turns are there already
        turns = await asyncio.to_thread(export_turns, Recording(recording.format, earlier))
        self.hidden_turns -= len(earlier) - len(turns)  # (counted as exchanges: a continuation joins its turn)
        self.turns[:0] = turns
        session.load_history(recording, last)

    @work(exclusive=True, group="answer")
    async def replay(self, recording: Recording, speed: float, instant: bool) -> None:
        """Re-stream every recorded answer at its pace (or show them at once), then let the user go on live."""
        from chatterm.cassette.branches import active_answers
        from chatterm.chat.session import replay_client

        session = await self.ready()
        if instant:
            await self._replay_at_once(session, recording)
            return
        answered = active_answers(recording)  # the active branch, one turn per question however many attempts
        client = replay_client(answered, speed, instant, session.choice)
        pacing = asyncio.ensure_future(pace(self, client, answered))
        self._pacing, skipped = pacing, False
        try:
            await pacing
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not pacing.cancelled() or (task is not None and task.cancelling()):
                raise  # (the replay itself was cancelled, not only its pace)
            skipped = True
        finally:
            self._pacing = None
            await client.aclose()
        if skipped:  # Escape: what was shown at its pace makes way for the whole recording, shown at once
            await self._clear()
            await self._replay_at_once(session, recording)
            return
        session.load_history(recording)
        await self.info("Replay finished. Type to continue the conversation live.")

    async def _replay_at_once(self, session: ChatSession, recording: Recording) -> None:
        last = await show_at_once(self, recording, OPENED_TURNS)
        session.load_history(recording, last)
        await self.info("Replay finished. Type to continue the conversation live.")

    async def _clear(self) -> None:
        """An empty conversation again."""
        self.turns.clear()
        self.hidden_turns = 0
        await self.conversation_view.remove_children()
        self._earlier = InfoMessage("", id="earlier")
        self._load_earlier = LoadEarlier()
        self.status.end("ready", None)
