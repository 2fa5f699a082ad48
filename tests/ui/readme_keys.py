"""The README's key table, read from README.md, for the tests that hold the app to it."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
_TOKEN = re.compile(r"\s*(?:/|,)\s*")


def key_rows() -> list[tuple[list[str], str]]:
    """Each row of the table under "## The app": its keys as Textual names them (`ctrl+e`, `f1`, `up`) and what
    the README says they do."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## The app", 1)[1].split("\n## ", 1)[0]
    rows: list[tuple[list[str], str]] = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("key", "---"):
            continue
        keys = re.sub(r"\(.*?\)", "", cells[0])
        rows.append(([textual_key(token) for token in _TOKEN.split(keys.strip()) if token], cells[1]))
    return rows


def readme_keys() -> list[str]:
    return [key for keys, _ in key_rows() for key in keys]


def textual_key(shown: str) -> str:
    """`Ctrl+E` as Textual names it: `ctrl+e`."""
    return shown.strip().lower()
