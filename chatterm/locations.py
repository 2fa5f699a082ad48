"""Where chatterm keeps its files (platformdirs' user dirs)."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_config_path, user_data_path

APP = "chatterm"


def config_dir() -> Path:
    return user_config_path(APP)


def config_file() -> Path:
    return config_dir() / "config.toml"


def data_dir() -> Path:
    return user_data_path(APP)


def sessions_dir() -> Path:
    return data_dir() / "sessions"


def user_themes_dir() -> Path:
    return config_dir() / "themes"
