"""Themes: every `.toml` file in the package's `themes/` folder and the user config dir's `themes/`."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

from textual.theme import Theme

from chatterm import locations

PACKAGE_THEMES = Path(__file__).resolve().parents[1] / "themes"
SOURCE_THEMES = Path(__file__).resolve().parents[2] / "themes"  # a source checkout
_FIELDS = {f.name for f in fields(Theme)}


def theme_dirs() -> list[Path]:
    return [d for d in (PACKAGE_THEMES, SOURCE_THEMES, locations.user_themes_dir()) if d.is_dir()]


def load_themes() -> tuple[list[Theme], list[str]]:
    """The themes found, and one line per file that could not be used."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in theme_dirs():
        for path in sorted(directory.glob("*.toml")):
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                unknown = set(data) - _FIELDS
                if unknown:
                    raise ValueError(f"unknown keys {', '.join(sorted(unknown))}")
                data.setdefault("name", path.stem)
                themes[str(data["name"])] = Theme(**data)
            except (OSError, ValueError, TypeError, tomllib.TOMLDecodeError) as exc:
                problems.append(f"theme {path}: {exc}")
    return list(themes.values()), problems
