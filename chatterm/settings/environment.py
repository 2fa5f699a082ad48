"""`CHATTERM_*` variables as pydantic-settings reads them, with what an error needs: the name of the variable.

`__` reaches into a table (`CHATTERM_PROFILES__GROQ__MODEL=x`), and a variable for a whole table holds JSON
(`CHATTERM_PROFILES='{"box": {...}}'`). A value that is not JSON where JSON is needed is a `ConfigError` naming the
variable, and after a validation error `variable_for` says which variable set the value at fault.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource

from chatterm.settings.errors import ConfigError, beyond_limits


class EnvironmentSource(EnvSettingsSource):
    """The environment as a settings source that remembers what it gave and names the variable behind a value."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)
        self.data: dict[str, Any] = {}
        """What the variables set, as nested tables (what the last call returned)."""

    def __call__(self) -> dict[str, Any]:
        self.data = super().__call__()
        return self.data

    def prepare_field_value(self, field_name: str, field: FieldInfo, value: Any, value_is_complex: bool) -> Any:
        try:
            return super().prepare_field_value(field_name, field, value, value_is_complex)
        except (ValueError, RecursionError) as exc:
            raise _not_json(self.spelt(f"{self.env_prefix}{field_name}"), exc) from None

    def explode_env_vars(self, field_name: str, field: FieldInfo, env_vars: Mapping[str, str | None]) -> dict[str, Any]:
        try:
            return super().explode_env_vars(field_name, field, env_vars)
        except (ValueError, RecursionError):
            for name, value in env_vars.items():  # only on failure: find the variable at fault
                try:
                    super().explode_env_vars(field_name, field, {name: value})
                except (ValueError, RecursionError) as exc:
                    raise _not_json(self.spelt(name), exc) from None
            raise

    def spelt(self, name: str) -> str:
        """A variable's name as the user spelt it (the source folds names to lower case)."""
        return next((real for real in os.environ if real.lower() == name.lower()), name.upper())

    def variable_for(self, loc: Sequence[str | int]) -> str | None:
        """The variable that set the value (or the table) at `loc`, or None when no variable did."""
        if not _holds(self.data, loc):
            return None
        path = [str(part).lower() for part in loc]
        prefix = self.env_prefix.lower()
        found: list[tuple[bool, int, str]] = []
        for name in os.environ:
            lowered = name.lower()
            if not lowered.startswith(prefix):
                continue
            parts = lowered[len(prefix) :].split(self.env_nested_delimiter or "__")
            holds_it = path[: len(parts)] == parts  # the variable sets `loc` or a table around it
            inside_it = parts[: len(path)] == path  # the variable sets a key inside the table at `loc`
            if holds_it or inside_it:
                found.append((holds_it, len(parts) if holds_it else -len(parts), name))
        return max(found)[2] if found else None


def _holds(data: Mapping[str, Any], loc: Sequence[str | int]) -> bool:
    node: Any = data
    for part in loc:
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def _not_json(variable: str, exc: ValueError | RecursionError) -> ConfigError:
    if isinstance(exc, RecursionError):
        return ConfigError(f"{variable}: nested too deeply")
    return ConfigError(f"{variable}: not valid JSON ({beyond_limits(exc)})")
