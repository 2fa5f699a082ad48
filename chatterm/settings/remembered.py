"""Small things chatterm remembers between runs (the theme), kept apart from the user's config file."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from chatterm import locations
from chatterm.private_files import write_private
from chatterm.regular_files import read_regular

MOST = 1024 * 1024
"""The most of the file read: it holds a few names."""


def load_state() -> dict[str, Any]:
    try:
        data = json.loads(read_regular(locations.data_dir() / "state.json", MOST))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_state(**changes: Any) -> None:
    state = {**load_state(), **changes}
    with contextlib.suppress(OSError):  # remembering a preference is never worth an error
        write_private(locations.data_dir() / "state.json", json.dumps(state, indent=1).encode())
