"""The types of the values in `config.toml`, checked before they become settings.

TOML says what type each value is, so a value of the wrong type is a mistake to name, not one to convert: the
validation library would take `read_timeout = true` as 1 second and `read_timeout = "10"` as 10. A number, a whole
number or a boolean setting must be written as one. (The `CHATTERM_*` variables hold text, so their numbers are
read from it, by the settings themselves.)
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Mapping
from typing import Any, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from chatterm.settings.errors import where

Fields = Callable[[tuple[str, ...]], Mapping[str, FieldInfo]]
"""The fields a table may hold, by the table's place (none for a table that takes any key)."""

WANTED = {float: "a number", int: "a whole number", bool: "true or false"}


def scalar_type(annotation: Any) -> type | None:
    """float, int or bool for a field of that type (or of that type or None); None for any other field."""
    options = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    kinds = [option for option in options if option in WANTED]
    others = [option for option in options if option not in WANTED and option is not type(None)]
    return kinds[0] if len(kinds) == 1 and not others else None


def fits(value: Any, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, int | float) and not isinstance(value, bool)


def written(value: Any) -> str:
    """A value as it stands in the file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value[:60], ensure_ascii=False)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


def _quoted_number(value: Any, kind: type) -> bool:
    if not isinstance(value, str) or kind is bool:
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


def wrong_type(data: Mapping[str, Any], fields_of: Fields, table: tuple[str, ...] = ()) -> str | None:
    """The first value of `data` (a TOML document, or a table of it at `table`) whose type its setting cannot take,
    said as `[table] key: should be ..., not ...`; None when every one fits."""
    fields = fields_of(table)
    for key, value in data.items():
        if isinstance(value, dict):
            found = wrong_type(value, fields_of, (*table, key))
            if found is not None:
                return found
            continue
        field = fields.get(key)
        kind = scalar_type(field.annotation) if field is not None else None
        if kind is None or fits(value, kind):
            continue
        hint = " (write it without the quotes)" if _quoted_number(value, kind) else ""
        return f"{where((*table, key))}: should be {WANTED[kind]}, not {written(value)}{hint}"
    return None
