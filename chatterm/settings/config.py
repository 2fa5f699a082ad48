"""Settings: `config.toml` in the user config dir, overridden by `CHATTERM_*` environment variables.

`CHATTERM_PROFILES__GROQ__MODEL=...` sets one field of one profile. Keys never live here unless the user
opts in explicitly with `api_key_in_config`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from chatterm import locations
from chatterm.settings.profile import ProfileSettings


class ConfigError(Exception):
    """The config cannot be used; the message names the file and what is wrong."""


class Settings(BaseSettings):
    """Everything chatterm can be told, in `config.toml` or `CHATTERM_*` variables."""

    model_config = SettingsConfigDict(env_prefix="CHATTERM_", env_nested_delimiter="__", extra="forbid")

    default_profile: str | None = None
    """The profile the app and `ask` use when none is named."""
    profiles: dict[str, ProfileSettings] = Field(default_factory=dict)
    """Profiles by name; these are added to (and may override) the built-in presets."""
    show_reasoning: bool = True
    """Show the reasoning pane; when off, reasoning is still kept in the session, just not shown."""
    theme: str = "chatterm-dark"
    """The name of the app's theme."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (env_settings, init_settings)  # the environment wins over the file


def load_settings(path: Path | None = None) -> Settings:
    """The settings from `config.toml` (if any) with the environment on top; a clear error if invalid."""
    path = path or locations.config_file()
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot be read ({exc})") from None
    from chatterm.settings.presets import PRESETS

    profiles: dict[str, Any] = data["profiles"] if isinstance(data.get("profiles"), dict) else {}
    merged = {name: preset.model_dump() for name, preset in PRESETS.items()}
    for name, fields in profiles.items():
        base = merged.get(name, {})
        merged[name] = {**base, **fields} if isinstance(fields, dict) else fields
    data = {**data, "profiles": merged}
    try:
        return Settings(**data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"{path}: {where}: {first['msg']}") from None
