"""The widths of the sessions list's columns, from the screen's width: every column shown at any width from 80
columns up, the title given what the others leave."""

from __future__ import annotations

Columns = tuple[int, int, int, int, int]
"""Title, date, profile, model, turns: the text widths of the columns."""

DATE, TURNS = 16, 5
AROUND = 2 + 2 + 2 + 10
"""Columns of the screen the cells do not get: the dialog's border and padding, the list's scrollbar, the cells'
padding (one each side of each of five)."""


def dialog_width(screen: int) -> int:
    """The dialog's width on a screen `screen` columns wide (as its CSS makes it: 90%, 78 to 120)."""
    return max(78, min(120, screen * 9 // 10))


def columns_for(screen: int) -> Columns:
    room = dialog_width(screen) - AROUND - DATE - TURNS
    profile = max(7, min(12, room * 15 // 100))
    model = max(10, min(28, room * 30 // 100))
    title = max(10, room - profile - model)
    return title, DATE, profile, model, TURNS
