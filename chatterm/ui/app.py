"""The chatterm Textual app.

Start-up is split in two so the first frame comes quickly: the screen is drawn from the settings alone, and what
only a request needs (the HTTP stack, the recording formats, the session file, the demo server) is imported and
built right after it (`_boot`). A prompt typed in between waits for it (`ChatScreen.ready`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import signal
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.screen import Screen

from chatterm import locations
from chatterm.settings.choice import AD_HOC, DEMO, Choice, ResolveError, choose, chosen_again, lacks_its_key
from chatterm.settings.config import Settings
from chatterm.settings.keys import find_key
from chatterm.settings.prompts import PromptHistory, history_file
from chatterm.settings.remembered import load_state, save_state
from chatterm.ui import exporting
from chatterm.ui.chat_options import EFFORT_BINDINGS, ChatOptions
from chatterm.ui.commands import ChatCommands, system_commands
from chatterm.ui.keyorder import in_order
from chatterm.ui.leaving import LAST_RESORT, leave_after, resume_only_with_a_terminal
from chatterm.ui.markdown.blocks import warm_up
from chatterm.ui.markdown.codes import code_blocks
from chatterm.ui.memory import tune_garbage_collector
from chatterm.ui.nocolor import NO_COLOR_CSS, line_filters, no_color_wanted
from chatterm.ui.plain import notify
from chatterm.ui.screens import copying, message_keys
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.help import HelpScreen
from chatterm.ui.screens.profiles import CHECKING, ProfileRow, ProfileScreen, Switch
from chatterm.ui.screens.sessions import SessionsScreen
from chatterm.ui.themes import load_themes

if TYPE_CHECKING:
    from chatterm.cassette.model import Recording
    from chatterm.cassette.serve import ReplayServer
    from chatterm.chat.session import ChatSession

SPEEDS = {"instant": (1.0, True), "1x": (1.0, False), "2x": (2.0, False), "4x": (4.0, False)}
OPEN_SPEED = "instant"
"""The pace of a session opened from the sessions list until the user chooses one in the palette (remembered)."""
DEMO_SPEED = 0.25
"""The demo replays slower than recorded, so a newcomer sees the reasoning pane at work."""
AFTER_FIRST_FRAME = (
    "chatterm.chat.session",
    "httpcore",
    "chatterm.cassette.serve",
    "chatterm.cassette.load",
    "chatterm.net.models",
    "rich.markdown",
)
"""Modules the first frame does not need; imported right after it, off the event loop."""
FIRST_REQUEST = ("anyio._backends._asyncio",)
"""What httpcore's connection pool imports on the event loop when the first request goes out (its locks are anyio's,
whose asyncio half is loaded on first use): about 35 ms before the first byte, imported beforehand with the others.
Not found (another anyio): imported when the request needs it, as before."""
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
"""Signals that end the app as Ctrl+Q does (SIGINT only comes from outside: in the app Ctrl+C is a key)."""


def _remembered_speed() -> str:
    speed = load_state().get("replay_speed")
    return speed if isinstance(speed, str) and speed in SPEEDS else OPEN_SPEED


def _import_ahead() -> None:
    for name in AFTER_FIRST_FRAME:
        importlib.import_module(name)
    for name in FIRST_REQUEST:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


class ChatApp(ChatOptions):
    TITLE = "chatterm"
    COMMANDS = {ChatCommands}  # (Textual's system commands too, after chatterm's)
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True), *EFFORT_BINDINGS]
    CSS = NO_COLOR_CSS

    def __init__(
        self,
        settings: Settings,
        choice: Choice,
        replay: Recording | Path | None = None,
        speed: str = "1x",
        save_sessions: bool = True,
        role: str | None = None,
    ) -> None:
        super().__init__()
        self.role = role
        self.no_color = no_color_wanted()  # (Textual's: NO_COLOR present, even empty)
        self.settings = settings
        self.choice = choice
        self.ad_hoc = chosen_again(choice) if choice.profile == AD_HOC else None
        """The endpoint given on the command line, which the profile switcher offers to go back to."""
        self.replay_recording = replay
        self.given_speed = speed
        """The pace of the recording given to the app (`chatterm replay`)."""
        self.replay_speed = _remembered_speed()
        """The pace of the sessions opened from the sessions list: the palette's choice, remembered."""
        self.save_sessions = save_sessions
        self.show_reasoning = settings.show_reasoning
        self._demo_server: ReplayServer | None = None
        self.session: ChatSession | None = None
        self._secrets: tuple[str, ...] = ()
        """The keys of the profiles used in earlier chats, masked in the next ones too."""
        self._booted = False
        self._ended_by: int | None = None
        """The signal that ended the app, if one did."""
        self._opening: tuple[Path, int] | None = None
        """The session file (and how many exchanges it holds) the next chat started opens."""
        self.prompt_history = PromptHistory(history_file())
        """The prompts sent, for Up and Down in the composer: every chat's, this run's and earlier runs'."""
        self._theme_problems = self._choose_theme()

    # -- start and stop ---------------------------------------------------------------------------------------

    def _choose_theme(self) -> list[str]:
        """Register the themes found and set the remembered or configured one, before anything is styled: set in
        `on_mount`, the first frame would be drawn in Textual's default theme and every style worked out again in
        this one. Returns what the user should be told."""
        themes, problems = load_themes()
        for theme in themes:
            self.register_theme(theme)
        remembered, configured = load_state().get("theme"), self.settings.theme
        if isinstance(remembered, str) and remembered in self.available_themes:
            self.theme = remembered
            return problems
        if remembered:  # (kept: once its file is mended, it is the theme again)
            problems.append(f"the remembered theme {remembered!r} no longer loads; using {configured!r}")
        if configured in self.available_themes:
            self.theme = configured
        elif configured:
            default = type(self.settings).model_fields["theme"].default
            problems.append(f"{locations.config_file()}: unknown or unusable theme {configured!r}; using {default!r}")
            if default in self.available_themes:
                self.theme = default
        return problems

    async def on_mount(self) -> None:
        self._end_on_signals()
        for problem in self._theme_problems:
            notify(self, problem, severity="warning")
        await self.start_chat(welcome=self.replay_recording is None)
        self.call_after_refresh(lambda: self.run_worker(self._boot(), name="boot"))  # a worker: keys go on

    def _end_on_signals(self) -> None:
        """On a signal that ends the app, end it as Ctrl+Q does: the answer streaming is kept and the session saved,
        and the terminal is given back as it was (the normal screen, no mouse reporting). Left to Python, SIGTERM
        and SIGHUP end the process at once, with the terminal still in the app's modes."""
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for number in ENDING_SIGNALS:
            loop.add_signal_handler(number, self._signalled, number)
        resume_only_with_a_terminal()

    def _signalled(self, number: int) -> None:
        if self._ended_by is None:
            leave_after(128 + number, LAST_RESORT)
        self._ended_by = number
        self.exit(None, 128 + number)

    async def _boot(self) -> None:
        """After the first frame: import and build what a request needs, then start the session."""
        await asyncio.to_thread(_import_ahead)
        await self._prepare(self.choice)  # the choice in place: a profile switched meanwhile is kept
        self._booted = True
        if self.chat_screen.session is None:  # (a chat started meanwhile had none: it gets this one)
            self._start_session(self.chat_screen)
        tune_garbage_collector()
        self.run_worker(warm_up, thread=True, name="warm-up", exit_on_error=False)
        if self.replay_recording is not None:
            speed, instant = SPEEDS[self.given_speed]
            if isinstance(self.replay_recording, Path):
                self.chat_screen.open_path(self.replay_recording, speed, instant)
            else:
                self.chat_screen.replay(self.replay_recording, speed, instant)

    def watch_theme(self, theme: str) -> None:
        if self.session is not None:  # a choice made by the user, not the one restored at start
            save_state(theme=theme)

    def known_secrets(self) -> tuple[str, ...]:
        """Every key the app holds (earlier chats', this chat's, the profile's), masked in a crash report."""
        from chatterm.cassette.secrets import known

        return known(self._secrets, self.session.secrets if self.session else (), self.choice.endpoint.secrets)

    async def _prepare(self, choice: Choice) -> Choice:
        """Start the in-process demo server the first time the demo profile is used."""
        if choice.is_demo and not choice.endpoint.base_url:
            if self._demo_server is None:
                from chatterm.cassette.demo import demo_server

                server = await asyncio.to_thread(demo_server, DEMO_SPEED)
                self._demo_base_url = await server.start()
                self._demo_server = server
            choice.endpoint.base_url = self._demo_base_url
        return choice

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.aclose()
        if self._demo_server is not None:
            await self._demo_server.stop()
        if self._ended_by is not None:  # (saved: the process ends for sure, see `leaving`)
            leave_after(128 + self._ended_by)

    # -- the conversation ---------------------------------------------------------------------------------------

    @property
    def chat_screen(self) -> ChatScreen:
        screen = self.screen if isinstance(self.screen, ChatScreen) else self.screen_stack[1]
        assert isinstance(screen, ChatScreen)
        return screen

    def _save_error(self, message: str) -> None:
        notify(self, message, severity="warning", timeout=8)  # (from the saving thread)

    async def start_chat(self, welcome: bool = True) -> None:
        """A new, empty chat (`welcome`: on the welcome card; not for a chat that opens on a recording). What was
        typed in the composer stays there."""
        if self.session is not None:
            self._secrets = self.session.secrets
            await self.session.aclose()
            self.session = None
        screen = ChatScreen(self.choice, show_reasoning=self.show_reasoning, welcome=welcome)
        screen.composer.prompts = self.prompt_history
        draft = self.chat_screen.composer.text if len(self.screen_stack) > 1 else ""
        if len(self.screen_stack) > 1:
            await self.switch_screen(screen)
        else:
            await self.push_screen(screen)
        if draft:
            screen.composer.give_back(draft)
        if self._booted and screen.session is None:  # (else the app became ready meanwhile and started it)
            self._start_session(screen)

    def _start_session(self, screen: ChatScreen) -> None:
        """A new session for the conversation on `screen`."""
        from chatterm.chat.session import ChatSession

        self.session = ChatSession(
            self.choice,
            save=self.save_sessions,
            on_save_error=self._save_error,
            send_reasoning=self._send_reasoning(self.choice.profile),
            secrets=self._secrets,
        )
        if self._opening is not None:  # (a session opened from the list goes on in its own file)
            self.session.go_on_in(*self._opening)
            self._opening = None
        screen.attach(self.session)
        self.session_started(screen, self.session)

    def _send_reasoning(self, profile: str) -> bool:
        chosen = self.settings.profiles.get(profile)
        return bool(chosen and chosen.send_reasoning)

    async def action_new_chat(self) -> None:
        held = self.chat_screen.stop_answer()
        await self.start_chat()
        if held is not None:  # (a prompt waiting for the answer now stopped: the new chat's to send)
            self.chat_screen.composer.give_back(held)
        notify(self, "New chat.")

    # -- sessions -------------------------------------------------------------------------------------------

    def action_open_sessions(self) -> None:
        from chatterm.cassette.store import session_paths

        saver = self.session.saver if self.session is not None else None
        self.push_screen(SessionsScreen(session_paths(), current=saver), self._open_session)

    async def _open_session(self, path: Path | None) -> None:
        from chatterm.cassette.load import load_tail
        from chatterm.cassette.model import RecordingError
        from chatterm.ui.screens.chat import OPENED_TURNS

        if path is None:
            if self.session is not None and self.session.saver is not None and self.session.saver.gone:
                await self.start_chat()  # (the open chat's file was deleted: a new chat, not that one again)
            return
        try:  # said here, before the chat is replaced (and the chat opens what this parsed)
            _, total = await asyncio.to_thread(load_tail, path, OPENED_TURNS)
        except RecordingError as exc:
            notify(self, str(exc), severity="error")
            return
        self._opening = (path, total)
        await self.start_chat(welcome=False)
        speed, instant = SPEEDS[self.replay_speed]
        self.chat_screen.open_path(path, speed, instant)

    def set_replay_speed(self, speed: str) -> None:
        self.replay_speed = speed
        save_state(replay_speed=speed)
        notify(self, f"Replay speed: {speed} (for the sessions opened with Ctrl+O)")

    # -- profiles -------------------------------------------------------------------------------------------

    def profile_rows(self) -> list[ProfileRow]:
        """Every usable-or-not profile, at once: a local one is marked as being checked (the switcher asks its
        server and fills in whether it answers)."""
        rows = [ProfileRow(DEMO, "recorded answers", "offline", True)]
        if self.ad_hoc is not None:
            rows.append(ProfileRow(AD_HOC, self.ad_hoc.endpoint.model, "given with --base-url", True))
        for name, profile in sorted(self.settings.profiles.items()):
            if profile.local:
                rows.append(ProfileRow(name, profile.model, CHECKING, True, base_url=profile.base_url))
                continue
            found = find_key(name, profile.api_key_env)
            if found is not None:
                key, usable = f"key: {found.source}", True
            elif lacks_its_key(profile, found):
                key, usable = f"no key ({profile.api_key_env})", False
            else:  # (it names no variable: it starts with no key, as `--profile NAME` starts it)
                key, usable = "no key", True
            rows.append(ProfileRow(name, profile.model, key, usable))
        return rows

    async def action_switch_profile(self) -> None:
        self.push_screen(ProfileScreen(self.profile_rows(), self.choice.profile), self._switch)

    async def action_switch_model(self) -> None:
        from chatterm.net.models import list_models

        models = await list_models(self.choice.profile, self.choice.endpoint)
        screen = ProfileScreen([], self.choice.profile, model_only=True, models=models)
        self.push_screen(screen, self._switch)

    async def _switch(self, switch: Switch | None) -> None:
        if switch is None:
            return
        try:
            if switch.profile == AD_HOC and self.ad_hoc is not None:
                choice = chosen_again(self.ad_hoc, switch.model or None)
            else:
                choice = choose(self.settings, switch.profile, switch.model or None)
        except ResolveError as exc:
            notify(self, str(exc), severity="error")
            return
        choice = await self._prepare(choice)
        if switch.model and choice.is_demo:
            choice.endpoint.model = switch.model
        self.choice = choice
        if self.session is not None:  # else the session is started with this choice after the first frame
            await self.session.switch(choice)
            self.session.send_reasoning = self._send_reasoning(choice.profile)
            self.show_options()
        self.chat_screen.status.set_endpoint(choice.profile, choice.endpoint.model)
        self.chat_screen.welcome_for(choice)
        notify(self, f"Now answering: {choice.profile} · {choice.endpoint.model}")

    # -- display, export, clipboard --------------------------------------------------------------------------

    async def action_toggle_reasoning_display(self) -> None:
        self.show_reasoning = not self.show_reasoning
        self.chat_screen.show_reasoning = self.show_reasoning
        for message in self.chat_screen.messages():
            message.show_reasoning = self.show_reasoning
            if self.show_reasoning:
                await message.show_reasoning_pane()
            message.reasoning_pane.display = self.show_reasoning
        notify(self, "Reasoning shown." if self.show_reasoning else "Reasoning hidden (still saved).")

    def action_export(self) -> None:
        exporting.export_branch(self)

    def action_export_tree(self) -> None:
        exporting.export_tree(self)

    def action_copy_answer(self) -> None:
        self.chat_screen.action_copy_answer()

    def action_copy_code(self) -> None:
        answers = [m.answer for m in self.chat_screen.messages() if m.answer]
        blocks = code_blocks(answers[-1]) if answers else []
        if not blocks:
            notify(self, "No code block in the last answer.", severity="warning")
            return
        self.copy_to_clipboard(blocks[-1].code)
        notify(self, "Copied the last code block.")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and in_order(self, event):
            return  # (a text field's own key, queued behind the keys typed before it)
        await super().on_event(event)

    def get_line_filters(self) -> list[LineFilter]:
        return line_filters(super().get_line_filters(), self.no_color)

    # -- help and the palette -------------------------------------------------------------------------------

    def action_copy_message(self) -> None:
        copying.pick_message(self.chat_screen)

    async def act_on_message(self, action: str) -> None:
        """A palette command that acts as a key of the conversation does (`message_keys.from_palette`)."""
        await message_keys.from_palette(self, action)

    def action_copy_code_block(self) -> None:
        copying.pick_code(self.chat_screen)

    def code_block_titles(self) -> list[tuple[int, str]]:
        """The number each code block on screen shows, and how it is listed (`copying`)."""
        return [(item.number, item.title) for item in copying.code(self.chat_screen)]

    def copy_code_block(self, number: int) -> None:
        copying.copy_number(self.chat_screen, number)

    def action_show_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
        else:
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        return system_commands(super().get_system_commands(screen))

    async def action_retry(self) -> None:
        await self.chat_screen.action_retry()
