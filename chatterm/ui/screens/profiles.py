"""The profile switcher: every profile with where its key comes from; Enter switches (mid-conversation).

A local profile's server is asked whether it answers while the switcher shows (all of them at once, each within a
short time: `chatterm.net.models.answering`), and its row says so as the answer comes. The asking belongs to the
screen and ends with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from chatterm.ui.plain import notify, plain
from chatterm.ui.screens.dialog import Dialog

CHECKING = "local server: checking…"
ANSWERS = "local server"
SILENT = "local server: not answering"


@dataclass
class ProfileRow:
    name: str
    model: str
    key: str
    """Where the key comes from, or why the profile cannot be used yet."""
    usable: bool
    base_url: str | None = None
    """A local profile's server, to be asked whether it answers."""


@dataclass
class Switch:
    profile: str
    model: str | None


class ProfileScreen(Dialog[Switch | None]):
    DEFAULT_CSS = """
    ProfileScreen { align: center middle; }
    ProfileScreen > Vertical {
        width: 84; height: auto; max-height: 85%; border: thick $primary; background: $surface; padding: 0 1;
    }
    ProfileScreen OptionList { height: auto; max-height: 20; }
    ProfileScreen .hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(
        self, rows: list[ProfileRow], current: str, model_only: bool = False, models: list[str] | None = None
    ) -> None:
        super().__init__()
        self.rows = rows
        self.current = current
        self.model_only = model_only
        self.models = models or []
        self.probed = not any(row.base_url for row in rows)
        """Every local server has answered or had its time."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Switch model" if self.model_only else "Switch profile", classes="title")
            if not self.model_only:
                options = [Option(plain(self._row_text(r)), id=r.name) for r in self.rows]
                yield OptionList(*options, id="profiles")
            elif self.models:
                yield OptionList(*[Option(plain(m), id=f"model:{m}") for m in self.models], id="models")
            yield Input(placeholder="model (empty: the profile's default)", id="model")
            yield Label("Enter switches · Escape closes", classes="hint")

    def _row_text(self, row: ProfileRow) -> str:
        mark = "●" if row.name == self.current else " "
        model = row.model if len(row.model) <= 30 else row.model[:29] + "…"
        return f"{mark} {row.name:<11} {model:<30} {row.key}"

    def on_mount(self) -> None:
        if self.model_only:
            self.query_one(OptionList if self.models else Input).focus()
            return
        options = self.query_one(OptionList)
        names = [r.name for r in self.rows]
        if self.current in names:
            options.highlighted = names.index(self.current)
        options.focus()
        if not self.probed:
            self.run_worker(self._probe(), name="probe local servers", exit_on_error=False)

    async def _probe(self) -> None:
        from chatterm.net.models import answering

        local = [row for row in self.rows if row.base_url]
        try:
            async for base_url, up in answering(row.base_url for row in local if row.base_url):
                for row in local:
                    if row.base_url == base_url:
                        self._answered(row, up)
        finally:
            self.probed = True

    def _answered(self, row: ProfileRow, up: bool) -> None:
        row.key, row.usable = (ANSWERS, True) if up else (SILENT, False)
        if self.is_attached:
            self.query_one("#profiles", OptionList).replace_option_prompt(row.name, plain(self._row_text(row)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        option_id = str(event.option.id)
        if option_id.startswith("model:"):
            self.dismiss(Switch(self.current, option_id.removeprefix("model:")))
            return
        self._choose(option_id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.model_only:
            self.dismiss(Switch(self.current, event.value.strip() or None))
            return
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self._choose(self.rows[options.highlighted].name)

    def _choose(self, name: str) -> None:
        row = next(r for r in self.rows if r.name == name)
        if row.key == SILENT:
            notify(self, f"{name}: no local server answers at {row.base_url}; start it and press Ctrl+L again")
            return
        if not row.usable:
            from chatterm.settings.keys import keyring_available

            how = f"or run 'chatterm key set {row.name}'" if keyring_available() else "(no system keyring here)"
            notify(self, f"{row.name} has {row.key}: export the variable {how}", severity="error")
            return
        model = self.query_one(Input).value.strip() or None
        self.dismiss(Switch(name, model))
