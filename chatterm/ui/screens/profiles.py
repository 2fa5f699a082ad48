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

DIALOG_WIDTH = 84
AROUND_ROW = 12
"""Columns of the dialog that are not a row's text: borders, paddings, the list's scrollbar."""
NAME_AND_KEY = 42
"""A row's mark and name, and room for the longest of the keys' sources."""
MODEL_MIN, MODEL_MAX = 12, 30
LIST_ROWS = 20
"""The most rows the list shows; fewer when the screen is short (`_fit`)."""
AROUND_LIST = 9
"""Rows of the dialog that are not the list's: its border, the title, the list's border, the model input, the hint."""
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
    ProfileScreen > Vertical { width: 84; }
    ProfileScreen OptionList { height: auto; max-height: 20; text-wrap: nowrap; text-overflow: ellipsis; }
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
        """A row: the model column narrows with the screen (and what still does not fit is cut at the end, not
        wrapped under the row: the list's CSS)."""
        mark = "●" if row.name == self.current else " "
        width = self._model_width()
        model = row.model if len(row.model) <= width else row.model[: width - 1] + "…"
        return f"{mark} {row.name:<11} {model:<{width}} {row.key}"

    def _model_width(self) -> int:
        """The model column's width: what the dialog has left of the screen's width beside the other columns."""
        room = min(DIALOG_WIDTH, self.app.size.width) - AROUND_ROW
        return max(MODEL_MIN, min(MODEL_MAX, room - NAME_AND_KEY))

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Keep the whole dialog on the screen: the list gives up rows (and scrolls) when the screen is short."""
        for options in self.query(OptionList):
            options.styles.max_height = max(3, min(LIST_ROWS, self.size.height - AROUND_LIST))

    def on_mount(self) -> None:
        self._fit()
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
