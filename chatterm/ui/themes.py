"""Themes: every `.toml` file in the package's `themes/` folder and the user config dir's `themes/`, read only if it
is a regular file of at most MAX_THEME bytes (a FIFO there would hold the app before its first frame).

A theme is checked the way Textual will use it before it is offered: its colours parsed, and each CSS variable it
sets parsed in a declaration of the kind Textual's CSS uses it in (a colour where Textual's own value for it is one,
a text style where that is). Textual does both only when the theme is chosen, and a bad value then stops the app;
since the choice is remembered, every later start would stop too.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

from textual.color import ColorParseError
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import TokenError
from textual.theme import Theme

from chatterm import locations
from chatterm.regular_files import read_regular
from chatterm.terminal_text import shortened

PACKAGE_THEMES = Path(__file__).resolve().parents[1] / "themes"
SOURCE_THEMES = Path(__file__).resolve().parents[2] / "themes"  # a source checkout
MAX_THEME = 256 * 1024
"""The most of a theme file read: a theme is a few dozen lines."""
_FIELDS = {f.name for f in fields(Theme)}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A theme's name: shown in the command palette, kept in a CSS class; letters, digits, `-`, `_` and `.`."""


def theme_dirs() -> list[Path]:
    return [d for d in (PACKAGE_THEMES, SOURCE_THEMES, locations.user_themes_dir()) if d.is_dir()]


def load_themes() -> tuple[list[Theme], list[str]]:
    """The themes found, and one line per file that could not be used."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in theme_dirs():
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = _theme(tomllib.loads(read_regular(path, MAX_THEME).decode("utf-8")), path.stem)
            except (OSError, ValueError, TypeError, AttributeError, ColorParseError, TokenError) as exc:
                problems.append(f"theme {path}: {_reason(exc)}; skipped")
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems


def _reason(exc: Exception) -> str:
    """Why a theme file cannot be used, in one line."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def _theme(data: dict[str, Any], stem: str) -> Theme:
    """The theme a file describes, checked as Textual uses it when it is chosen."""
    unknown = set(data) - _FIELDS
    if unknown:
        raise ValueError(f"unknown keys {', '.join(sorted(unknown))}")
    name = data.setdefault("name", stem)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"the name {name!r} is not letters, digits, '-', '_' and '.'")
    theme = Theme(**data)
    variables = theme.to_color_system().generate()
    tokenize_values(variables)
    if theme.variables:
        _check_variables(theme, Theme(**{**data, "variables": {}}).to_color_system().generate(), variables)
    return theme


_KINDS = {"color": "a colour", "text-style": "a text style"}
"""The properties Textual's CSS sets from a theme's variables (colours of text, backgrounds, borders, scrollbars;
text styles), and what a value must be for each."""


def _check_variables(theme: Theme, defaults: dict[str, str], variables: dict[str, str]) -> None:
    """Each variable the theme sets, parsed as Textual's CSS will parse it. One Textual does not define is the theme's
    own: Textual's CSS does not use it."""
    for name, value in theme.variables.items():
        if name not in defaults:
            continue
        used_as = next((prop for prop in _KINDS if _parses(prop, name, defaults)), None)
        if used_as is not None and not _parses(used_as, name, variables):
            raise ValueError(f"the variable {name!r} = {shortened(str(value))!r} is not {_KINDS[used_as]}")


def _parses(prop: str, name: str, variables: dict[str, str]) -> bool:
    sheet = Stylesheet(variables=variables)
    sheet.add_source(f"Widget {{ {prop}: ${name}; }}", read_from=("theme", name))
    try:
        sheet.parse()
    except (StylesheetParseError, TokenError):
        return False
    return True
