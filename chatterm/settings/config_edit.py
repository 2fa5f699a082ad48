"""Edits of `config.toml` made by `chatterm profiles`: through tomlkit, so the user's comments and layout stay."""

from __future__ import annotations

from pathlib import Path

import tomlkit
import tomlkit.exceptions

from chatterm import locations
from chatterm.private_files import write_private
from chatterm.settings.errors import ConfigError, beyond_limits
from chatterm.settings.profile import ProfileSettings


def _document(path: Path) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {beyond_limits(exc)}") from None


def _write(path: Path, document: tomlkit.TOMLDocument) -> None:
    write_private(path, tomlkit.dumps(document).encode())


def save_profile(name: str, profile: ProfileSettings, path: Path | None = None) -> Path:
    """Add or replace a profile in config.toml, keeping the rest of the file (comments included)."""
    path = path or locations.config_file()
    document = _document(path)
    profiles = document.setdefault("profiles", tomlkit.table(is_super_table=True))
    fields = profile.model_dump(exclude_defaults=True)
    fields.setdefault("base_url", profile.base_url)
    fields.setdefault("model", profile.model)
    profiles[name] = fields
    _write(path, document)
    return path


def remove_profile(name: str, path: Path | None = None) -> bool:
    """Remove a profile from config.toml; False if the file does not define it."""
    path = path or locations.config_file()
    document = _document(path)
    profiles = document.get("profiles")
    if not isinstance(profiles, dict) or name not in profiles:
        return False
    del profiles[name]
    if document.get("default_profile") == name:
        del document["default_profile"]
    _write(path, document)
    return True


def set_default(name: str, path: Path | None = None) -> Path:
    """Make `name` the default profile in config.toml, keeping the rest of the file."""
    path = path or locations.config_file()
    document = _document(path)
    document["default_profile"] = name
    _write(path, document)
    return path
