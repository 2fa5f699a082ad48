"""Settings: everything chatterm can be told, and `load_settings`, which gathers it from four sources.

Highest priority first: keyword arguments; `CHATTERM_*` variables, where `__` reaches into a table
(`CHATTERM_PROFILES__GROQ__MODEL=x` changes one field of the groq preset); `config.toml` in the user config dir;
the built-in presets. Tables merge key by key, so a `[profiles.groq]` table changes only the fields it sets. Unknown
keys are errors at every level. API keys are not settings: they live in the environment or the system keyring
(`settings.keys`), never in the config file.
"""

from __future__ import annotations

import tomllib
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from chatterm import locations
from chatterm.settings.environment import EnvironmentSource
from chatterm.settings.errors import ConfigError, beyond_limits, describe, first_to_tell
from chatterm.settings.presets import PresetsSource
from chatterm.settings.profile import ProfileSettings, check_profile_name
from chatterm.settings.roles import RoleSettings
from chatterm.settings.toml_types import wrong_type

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails


@dataclass
class _Loading:
    """One call of `load_settings`: the file it reads, and the environment source, which can name the variable
    behind a bad value (anything else at fault is in the file; the presets are always valid)."""

    path: Path
    environment: EnvironmentSource | None = None

    def describe(self, error: ErrorDetails) -> str:
        loc = error["loc"]
        held = loc[:-1] if error["type"] == "missing" else loc  # a missing key: who made the table
        variable = self.environment.variable_for(held) if self.environment else None
        return f"{variable or self.path}: {describe(error, variable is not None, _keys_of_table(loc[:-1]))}"


def _keys_of_table(table: tuple[str | int, ...]) -> list[str]:
    """The keys a table may hold: the top level's, a profile's or a role's (other tables take any key)."""
    return list(_fields_of_table(table))


def _fields_of_table(table: tuple[str | int, ...]) -> dict[str, FieldInfo]:
    if not table:
        return Settings.model_fields
    if len(table) == 2 and table[0] == "profiles":
        return ProfileSettings.model_fields
    if len(table) == 2 and table[0] == "roles":
        return RoleSettings.model_fields
    return {}


_LOADING: ContextVar[_Loading | None] = ContextVar("chatterm_settings_loading", default=None)
"""Set while `load_settings` builds `Settings`: the sources are made inside pydantic-settings, and this is how
they learn the file to read and hand back what an error message needs."""


class Settings(BaseSettings):
    """Everything chatterm can be told, in `config.toml` or `CHATTERM_*` variables."""

    model_config = SettingsConfigDict(env_prefix="CHATTERM_", env_nested_delimiter="__", extra="forbid")

    default_profile: str | None = None
    """The profile the app and `ask` use when none is named."""
    profiles: dict[str, ProfileSettings] = Field(default_factory=dict)
    """Profiles by name; these are added to (and may override) the built-in presets."""
    roles: dict[str, RoleSettings] = Field(default_factory=dict)
    """Named roles (`[roles.NAME]`): a system prompt, optionally a profile, a model and parameters."""
    show_reasoning: bool = True
    """Show the reasoning pane; when off, reasoning is still kept in the session, just not shown."""
    theme: str = "chatterm-dark"
    """The name of the app's theme."""
    reading_width: int = Field(default=100, ge=20)
    """The widest an answer's text is drawn, in columns: prose across a wide terminal is hard to read."""

    @field_validator("profiles")
    @classmethod
    def _profile_names(cls, profiles: dict[str, ProfileSettings]) -> dict[str, ProfileSettings]:
        for name in profiles:
            check_profile_name(name)
        return profiles

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments, then the environment, then the config file, then the presets (no dotenv, no secrets
        dir). The file is the one `load_settings` was given, else where `locations` puts it at this moment."""
        loading = _LOADING.get()
        path = loading.path if loading else locations.config_file()
        environment = EnvironmentSource(settings_cls)
        if loading:
            loading.environment = environment
        try:
            config_file = TomlConfigSettingsSource(settings_cls, toml_file=path)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            raise  # said by load_settings
        except (ValueError, RecursionError) as exc:  # the TOML reader's own limits: nesting, digits of a number
            raise ConfigError(f"{path}: not valid TOML: {beyond_limits(exc)}") from None
        wrong = wrong_type(config_file.toml_data, _fields_of_table)
        if wrong is not None:
            raise ConfigError(f"{path}: {wrong}")
        return (init_settings, environment, config_file, PresetsSource(settings_cls))


def load_settings(path: Path | None = None) -> Settings:
    """The settings, with `path` (default: the user's `config.toml`) as the file; a `ConfigError` of one line,
    naming the file or the variable, the table and the key, when they cannot be used."""
    loading = _Loading(path or locations.config_file())
    if loading.path.exists() and not loading.path.is_file():
        raise ConfigError(f"{loading.path}: not a file")
    token = _LOADING.set(loading)
    try:
        return Settings()
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{loading.path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{loading.path}: not valid TOML: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{loading.path}: cannot be read ({exc.strerror or exc})") from None
    except ValidationError as exc:
        raise ConfigError(loading.describe(first_to_tell(exc.errors()))) from None
    except SettingsError as exc:
        raise ConfigError(f"the CHATTERM_* variables cannot be used ({exc})") from None
    finally:
        _LOADING.reset(token)
