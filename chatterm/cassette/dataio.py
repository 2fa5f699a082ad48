"""Parsing files as data only, and writing them atomically.

YAML goes through the safe loader (the C one when present): no tag constructs an object or runs code.
Sizes are bounded before and after parsing, so an alias bomb or absurd nesting is refused, not expanded.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from chatterm.cassette.model import RecordingError

MAX_FILE = 256 * 1024 * 1024
MAX_NODES = 20_000_000
MAX_DEPTH = 500
"""Deeper nesting is refused before parsing: libyaml recurses per level and can overflow the C stack."""

_BRACKETS = re.compile(r"[\[\]{}]")
_DEEP_BLOCK = re.compile(rf"^ {{{2 * MAX_DEPTH}}}|(?:- ){{{MAX_DEPTH}}}", re.MULTILINE)

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
    """Refuse text nested deeper than MAX_DEPTH (flow brackets, block indentation or `- - -` chains)."""
    too_deep = RecordingError(f"{name}: nested too deeply to be a recording")
    if _DEEP_BLOCK.search(text):
        raise too_deep
    if text.count("[") + text.count("{") < MAX_DEPTH:
        return
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_DEPTH:
            raise too_deep


def load_yaml(text: str, name: str) -> Any:
    check_depth(text, name)
    try:
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


def private_dirs(directory: Path) -> None:
    """Create a directory and any missing parents, each new one with mode 0700."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for new in reversed(missing):
        new.mkdir(mode=0o700, exist_ok=True)
        os.chmod(new, 0o700)


def claim(path: Path) -> bool:
    """Create `path` empty (mode 0600) only if nothing is there yet; False if it already exists."""
    private_dirs(path.parent)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def write_private(path: Path, data: bytes) -> None:
    """Write a file atomically (temporary file + rename) with mode 0600; new folders get 0700."""
    private_dirs(path.parent)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
