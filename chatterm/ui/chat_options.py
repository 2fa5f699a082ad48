"""What a chat asks with, set in the app: its system prompt (shown at the top of the conversation), its parameters
(temperature, top_p, max tokens, reasoning effort: the status line shows those that differ from the profile's), the
effort key, and roles from `config.toml`.

They belong to the chat's session (`ChatSession.system`, `ChatSession.params`), which sends them with every request
from the next on and records them with each turn. A role chosen (`--role`, or "Role…") is the app's until another is:
each new chat starts with its system prompt and parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual.binding import Binding

from chatterm import locations
from chatterm.net.apis import EFFORTS
from chatterm.net.sampling import ChatParams, profile_sampling
from chatterm.settings.roles import RoleError, RoleSettings, find_role
from chatterm.ui.plain import notify
from chatterm.ui.render.crash import GuardedApp
from chatterm.ui.screens.parameters import ParametersDialog
from chatterm.ui.screens.roles import RoleDialog
from chatterm.ui.screens.system_prompt import SystemPromptDialog
from chatterm.ui.widgets.system_prompt import SystemPromptBar
from chatterm.ui.widgets.welcome import key_name

if TYPE_CHECKING:
    from chatterm.chat.session import ChatSession
    from chatterm.settings.config import Settings
    from chatterm.ui.screens.chat import ChatScreen
    from chatterm.ui.screens.profiles import Switch

EFFORT_KEY = "ctrl+g"
EFFORT_TOOLTIP = "Reasoning effort of the next answers: off, low, medium, high, the profile's or provider's default"
EFFORT_BINDINGS = [
    Binding(EFFORT_KEY, "cycle_effort", "Effort", show=False, tooltip=EFFORT_TOOLTIP)
]
SHORT = {"temperature": "temp", "top_p": "top_p", "max_tokens": "max"}
"""How the status line names each parameter."""


EFFORT_CYCLE: tuple[str | None, ...] = (*EFFORTS, None)
"""The key's cycle of the chat's own effort: off, low, medium, high, then none (the profile's effort, else the
provider's default), then off again."""


def next_effort(effort: str | None) -> str | None:
    """The effort after `effort` in the key's cycle."""
    return EFFORT_CYCLE[(EFFORT_CYCLE.index(effort) + 1) % len(EFFORT_CYCLE)] if effort in EFFORT_CYCLE else None


def effort_name(session: ChatSession) -> str:
    """The effort of the next answers as the status line and the palette name it: the chat's own, else the
    profile's marked as such (the key cycles the chat's own, and comes back to the profile's), else the default."""
    if session.params.effort is not None:
        return session.params.effort
    return f"{session.effort} (profile)" if session.effort else "default"


def status_forms(session: ChatSession) -> list[str]:
    """The status line's item for the chat's parameters, fullest first: the effort (when one is asked) and the
    parameters that differ from the profile's; then the effort alone; then none."""
    profile = profile_sampling(session.client.endpoint.api, session.choice.endpoint.params)
    effort = [f"effort {effort_name(session)}"] if session.effort else []
    differ = [
        f"{SHORT[name]} {value:g}" for name, value in session.params.sampling().items() if profile.get(name) != value
    ]
    return [" · ".join(effort + differ), " · ".join(effort), ""]


class ChatOptions(GuardedApp):
    """The app's actions on what a chat asks with (ChatApp is one)."""

    settings: Settings
    session: ChatSession | None
    role: str | None = None
    """The role chosen (`--role`, "Role…"): each new chat starts with it."""
    _system_bar: SystemPromptBar | None = None
    _warned: ChatSession | None = None
    """The chat last told that its profile sends no effort."""

    if TYPE_CHECKING:

        @property
        def chat_screen(self) -> ChatScreen: ...

        async def _switch(self, switch: Switch | None) -> None: ...

    def session_started(self, screen: ChatScreen, session: ChatSession) -> None:
        """A chat's session is attached to `screen`: the system prompt's bar goes above its conversation, and the
        chat takes the role chosen."""
        self._system_bar = SystemPromptBar()
        screen.mount(self._system_bar, before=screen.conversation_view)
        session.on_settings = self.show_options
        role = self.settings.roles.get(self.role) if self.role else None
        if role is not None:
            _take(session, role)
        self.show_options()

    def show_options(self) -> None:
        """Show the chat's system prompt and parameters as they are now."""
        if self.session is None:
            return
        if self._system_bar is not None:
            self._system_bar.show(self.session.system)
        self.chat_screen.status.set_options(status_forms(self.session))

    def option_commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """The palette's entries for them (the effort's names the effort now, and the next)."""
        effort = effort_name(self.session) if self.session is not None else "default"
        after = (next_effort(self.session.params.effort) if self.session is not None else None) or "default"
        cycle = f"Cycle off, low, medium, high, default: next {after} ({key_name(EFFORT_KEY)})"
        return [
            ("System prompt…", "Write this chat's system prompt (shown at its top)", self.action_edit_system_prompt),
            ("Parameters…", "Temperature, top_p, max tokens and reasoning effort of this chat", self.action_parameters),
            ("Role…", "A role from config.toml: its system prompt, profile and parameters", self.action_choose_role),
            (f"Reasoning effort: {effort}", cycle, self.action_cycle_effort),
        ]

    def action_edit_system_prompt(self) -> None:
        if self.session is not None:
            self.push_screen(SystemPromptDialog(self.session.system), self._system_prompt)

    def _system_prompt(self, text: str | None) -> None:
        if text is None or self.session is None:
            return
        self.session.system = text
        self.show_options()
        notify(self, "System prompt set, from the next answer on." if text else "No system prompt from now on.")

    def action_parameters(self) -> None:
        if self.session is None:
            return
        profile = profile_sampling(self.session.client.endpoint.api, self.session.choice.endpoint.params)
        profile["effort"] = self.session.choice.endpoint.effort
        self.push_screen(ParametersDialog(self.session.params, profile), self._parameters)

    def _parameters(self, params: ChatParams | None) -> None:
        if params is None or self.session is None:
            return
        self.session.set_params(params)
        self.show_options()
        notify(self, "Parameters set, from the next answer on.")

    def action_cycle_effort(self) -> None:
        if self.session is None:
            return
        effort = next_effort(self.session.params.effort)
        self.session.set_params(replace(self.session.params, effort=effort))
        self.show_options()
        endpoint = self.session.client.endpoint  # (the status line shows the effort: a warning only, once a chat)
        if endpoint.api == "openai" and not endpoint.reasoning_effort and self._warned is not self.session:
            self._warned = self.session
            notify(
                self,
                f"{self.session.choice.profile} sends no reasoning effort: set reasoning_effort = true in its table",
                severity="warning",
            )

    def action_choose_role(self) -> None:
        if not self.settings.roles:
            notify(self, f"No roles yet: add a [roles.NAME] table to {locations.config_file()}", severity="warning")
            return
        self.push_screen(RoleDialog(self.settings.roles, self.role), self.choose_role)

    async def choose_role(self, name: str | None) -> None:
        """Take the role named `name` for this chat and the next: its profile and model (if it names them), then its
        system prompt and parameters."""
        if name is None or self.session is None:
            return
        try:
            role = find_role(self.settings.roles, name)
        except RoleError as exc:
            notify(self, str(exc), severity="error")
            return
        if role.profile or role.model:
            from chatterm.ui.screens.profiles import Switch

            await self._switch(Switch(role.profile or self.session.choice.profile, role.model))
            if role.profile and self.session.choice.profile != role.profile:
                return  # (the switch said why not)
        self.role = name
        _take(self.session, role)
        self.show_options()
        notify(self, f"Role: {name}")


def _take(session: ChatSession, role: RoleSettings) -> None:
    session.system = role.system
    session.set_params(role.params())
