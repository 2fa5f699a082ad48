"""Text from outside as the app shows it: never read as markup, its control characters made visible.

A provider's model ids and error messages, a recording's prompts, a profile's name, a file name may hold `[/]`,
`[bold]` or `[@click=app.quit]`. Textual and Rich read a `str` given to most widgets (and to a notification) as
markup: a closing tag with nothing to close raises, a link or an action changes what the app does. So any text
the app shows that is not a literal of chatterm's own goes through one of these, and a test reads the UI's code
for calls that bypass them (tests/ui/test_outside_text.py).
"""

from __future__ import annotations

from rich.console import JustifyMethod
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.dom import DOMNode
from textual.fuzzy import Matcher
from textual.markup import escape
from textual.notifications import SeverityLevel

from chatterm.terminal_text import MESSAGE, neutralize, shortened


def plain(text: str, style: str | Style = "", justify: JustifyMethod | None = None) -> Text:
    """For a widget that takes a renderable (Label, Static, a DataTable cell, an Option's prompt)."""
    return Text(neutralize(text), style=style, justify=justify)


def escaped(text: str) -> str:
    """For what takes only a markup string (a Collapsible's title, a command's help): the same text, escaped."""
    return escape(neutralize(text))


def highlight(matcher: Matcher, text: str) -> Content:
    """`text` with the characters the command palette's query matched styled, as `Matcher.highlight` does, but
    read as plain text (`Matcher.highlight` reads it as markup)."""
    content = Content(text)
    for offset in matcher.fuzzy_search.match(matcher.query, text)[1]:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def notify(
    node: DOMNode, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
) -> None:
    """A notification (a toast) of any text, at most MESSAGE characters (a value from a file is not shown whole).
    Safe from any thread, as `App.notify` is, when `node` is the app."""
    app = node if isinstance(node, App) else node.app
    app.notify(neutralize(shortened(message, MESSAGE)), severity=severity, timeout=timeout, markup=False)
