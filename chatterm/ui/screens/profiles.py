"""The profile switcher: every profile with where its key comes from; Enter switches (mid-conversation)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from chatterm.ui.plain import notify, plain
from chatterm.ui.screens.dialog import Dialog


@dataclass
class ProfileRow:
    name: str
    model: str
    key: str
    """Where the key comes from, or why the profile cannot be used yet."""
    usable: bool


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
        if not row.usable:
            from chatterm.settings.keys import keyring_available

            how = f"or run 'chatterm key set {row.name}'" if keyring_available() else "(no system keyring here)"
            notify(self, f"{row.name} has {row.key}: export the variable {how}", severity="error")
            return
        model = self.query_one(Input).value.strip() or None
        self.dismiss(Switch(name, model))
