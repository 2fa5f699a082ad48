"""NO_COLOR (https://no-color.org): set to anything but the empty string, the app draws no colour at all.

Textual reads NO_COLOR too, but as "present", empty or not, and then draws every colour as a grey of the same
lightness (its `Monochrome` filter), so the screen is still painted. Here every colour becomes the terminal's own
default and dim (a fainter colour) is dropped, as the last of the app's line filters; what colour alone told apart
(a cursor, a highlighted row, a thumb, an error) is told by bold, reverse or underline instead (`NO_COLOR_CSS`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter, Monochrome, NoColor

NO_COLOR_CSS = """
TextArea:nocolor > .text-area--cursor, Input:nocolor > .input--cursor { text-style: reverse; }
TextArea:nocolor > .text-area--selection, Input:nocolor > .input--selection { text-style: reverse; }
OptionList:nocolor > .option-list--option-highlighted { text-style: bold underline; }
DataTable:nocolor > .datatable--cursor { text-style: reverse bold; }
DataTable:nocolor > .datatable--header { text-style: bold underline; }
FooterKey:nocolor .footer-key--key { text-style: bold; }
AssistantMessage:nocolor > .notice { text-style: bold; }
ReasoningPane:nocolor CollapsibleTitle { text-style: underline; }
UserMessage.-selected:nocolor { text-style: bold; }
Screen:nocolor > .screen--selection { text-style: reverse; }
"""
"""What colour alone told apart, told through emphasis when NO_COLOR is set (`:nocolor` is Textual's
pseudo-class for it). An option list's highlighted row is underlined, not reversed: Textual draws an option with
its widget's visual style, which keeps no reverse (so its own command list's `:nocolor` reverse shows nothing)."""
_DEFAULTS = Style(color="default", bgcolor="default", dim=False)


def no_color_wanted(environ: Mapping[str, str] = os.environ) -> bool:
    return bool(environ.get("NO_COLOR"))


@lru_cache(1024)
def colourless_style(style: Style) -> Style:
    """`style` in the terminal's default colours and without dim; bold, reverse, underline, links and the meta
    Textual reads clicks from are kept."""
    return style + _DEFAULTS


class Colourless(LineFilter):
    """Draws every segment in the terminal's default colours."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text, style and colourless_style(style), control) for text, style, control in segments]


COLOURLESS = Colourless()


def line_filters(filters: Sequence[LineFilter], no_color: bool) -> list[LineFilter]:
    """Textual's line filters less its own NO_COLOR ones, and `Colourless` last when `no_color`."""
    kept = [line_filter for line_filter in filters if not isinstance(line_filter, (Monochrome, NoColor))]
    return [*kept, COLOURLESS] if no_color else kept
