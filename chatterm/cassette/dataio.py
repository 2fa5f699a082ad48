"""Parsing files as data only.

YAML goes through the safe loader (the C one when present): no tag constructs an object or runs code.
Sizes are bounded before and after parsing, so an alias bomb or absurd nesting is refused, not expanded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from chatterm.cassette.model import RecordingError

MAX_FILE = 256 * 1024 * 1024
MAX_NODES = 20_000_000
MAX_DEPTH = 500
"""Deeper nesting is refused before the data is built: the loader recurses per level and can overflow the C stack."""

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            raise RecordingError(f"{path}: {size} bytes is larger than the {MAX_FILE // 2**20} MiB chatterm reads")
        return path.read_bytes()
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{path}: is a directory, not a recording") from None
    except OSError as exc:
        raise RecordingError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def check_depth(text: str, name: str) -> None:
    """Refuse text nested deeper than MAX_DEPTH, counted on the parser's events before anything is built: the parser
    keeps its own stack, the loader that builds the data recurses per level. (A scan of the text for brackets and
    indentation cost four times the load itself: the brackets of every streamed JSON chunk counted.)"""
    depth = 0
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise RecordingError(f"{name}: nested too deeply to be a recording")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_yaml(text: str, name: str) -> Any:
    try:
        check_depth(text, name)
        data = yaml.load(text, Loader=SafeLoader)
    except yaml.constructor.ConstructorError as exc:
        tag = getattr(exc, "problem", "") or ""
        raise RecordingError(f"{name}: refused a YAML tag that is not plain data ({_one_line(tag)})") from None
    except yaml.YAMLError as exc:
        raise RecordingError(f"{name}: not valid YAML ({_one_line(str(exc))})") from None
    except RecursionError:
        raise RecordingError(f"{name}: nested too deeply to be a recording") from None
    if "&" in text:  # only anchors make aliases, and only aliases make a file expand
        check_size(data, name)
    return data


def load_json(text: str, name: str) -> Any:
    try:
        data = json.loads(text)
    except RecursionError:
        raise RecordingError(f"{name}: nested too deeply to be a recording") from None
    except ValueError as exc:
        raise RecordingError(f"{name}: not valid JSON ({exc})") from None
    return data


def check_size(data: Any, name: str, limit: int = MAX_NODES) -> None:
    """Refuse data whose expanded size (aliases counted each time they are used) is absurd."""
    seen = 0
    stack = [data]
    while stack:
        item = stack.pop()
        seen += 1
        if seen > limit:
            raise RecordingError(f"{name}: expands to more than {limit} values; refused")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]
