"""The role chooser: the roles of `config.toml`, each with what it sets; Enter chooses one for this chat."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from chatterm.settings.roles import RoleSettings
from chatterm.terminal_text import neutralize
from chatterm.ui.plain import plain
from chatterm.ui.screens.dialog import Dialog

NAME = 14
GIST = 40


def role_line(name: str, role: RoleSettings) -> str:
    """A role's row: its name, its prompt's first words, and the profile and model it answers from, if any."""
    first = neutralize(role.system.strip().splitlines()[0] if role.system.strip() else "")
    gist = first if len(first) <= GIST else first[: GIST - 1] + "…"
    where = " · ".join(part for part in (role.profile, role.model) if part)
    return f"{name:<{NAME}} {gist}" + (f"  ({where})" if where else "")


class RoleDialog(Dialog[str | None]):
    DEFAULT_CSS = """
    RoleDialog > Vertical { width: 84; }
    RoleDialog OptionList { height: auto; max-height: 16; text-wrap: nowrap; text-overflow: ellipsis; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, roles: dict[str, RoleSettings], current: str | None) -> None:
        super().__init__()
        self.roles = roles
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Role", classes="title")
            yield OptionList(*[Option(plain(self._row(n, r)), id=n) for n, r in sorted(self.roles.items())])
            yield Label("Enter chooses it, for this chat and new ones · Escape closes", classes="hint")

    def _row(self, name: str, role: RoleSettings) -> str:
        """A role's line, marked when it is the chat's (as the profile chooser marks the profile in use)."""
        return ("● " if name == self.current else "  ") + role_line(name, role)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = sorted(self.roles)
        if self.current in names:
            options.highlighted = names.index(self.current)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(str(event.option.id))
