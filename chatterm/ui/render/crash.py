"""The report of a crash of the app: its traceback without local variables, and with every key the app knows masked.

Textual reports an exception nothing handled with Rich's traceback and the local variables of every frame
(`App._fatal_error`, private); a frame of the network stack holds the request's headers, the key among them, and an
exception's words may quote what it was given. `GuardedApp` reports the same traceback without the locals and with
its words masked in every form a key takes (`chatterm.cassette.secrets`), from the keys the app names
(`known_secrets`). Rich's `Traceback.extract` and its trace dataclasses are public; the override rests on Textual's
private `_fatal_error`, `_exit_renderables` and `_close_messages_no_wait`, so it is used only where `support` finds
them (on another Textual, Textual's own report stands).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import rich
from rich.segment import Segments
from rich.text import Text
from rich.traceback import Trace, Traceback
from textual.app import App

from chatterm.cassette.secrets import mask_text
from chatterm.ui.render.support import supported

CRASHED = "chatterm stopped on an error it did not expect"


def masked(value: Any, secrets: tuple[str, ...]) -> Any:
    """A part of a trace (a dataclass, a list, a string) with every key masked and no local variables."""
    if isinstance(value, str):
        return mask_text(value, secrets)
    if isinstance(value, list):
        return [masked(item, secrets) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            field.name: None if field.name == "locals" else masked(getattr(value, field.name), secrets)
            for field in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    return value


def crash_report(secrets: tuple[str, ...]) -> Traceback | Text:
    """The traceback of the exception being handled, without locals and with the keys masked."""
    exc_type, exc_value, traceback = sys.exc_info()
    if exc_type is None or exc_value is None:
        return Text(CRASHED)
    trace = Traceback.extract(exc_type, exc_value, traceback, show_locals=False)
    safe: Trace = masked(trace, secrets)
    return Traceback(safe, width=None, show_locals=False, suppress=[rich])


class GuardedApp(App[None]):
    """An app whose crash report shows no local variables and no key (see the module's docstring)."""

    def known_secrets(self) -> tuple[str, ...]:
        """The keys to mask in a crash report; the app names those it holds."""
        return ()

    def _fatal_error(self) -> None:
        if not supported():
            super()._fatal_error()
            return
        self.bell()
        report = crash_report(self.known_secrets())
        self._exit_renderables.append(Segments(self.console.render(report, self.console.options)))
        self._close_messages_no_wait()
