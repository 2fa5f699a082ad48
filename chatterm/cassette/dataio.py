"""Reading and parsing files as data only, within bounds.

Only regular files are read (a FIFO would block and a device never ends), and at most MAX_FILE bytes of them.
YAML goes through the safe loader (the C one when present): no tag constructs an object or runs code, timestamps
stay the text they are, and a number is at most MAX_NUMBER characters long. Nesting is bounded before anything is
built, and so is what aliases expand to (merge keys included), counted on the parsed nodes before they are turned
into data: a small file cannot become a large one.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from chatterm.cassette.model import RecordingError
from chatterm.regular_files import kind

MAX_FILE = 256 * 1024 * 1024
MAX_DEPTH = 500
"""Deeper nesting is refused before the data is built: the loader recurses per level and can overflow the C stack."""
MAX_EXPANSION = 64 * 1024 * 1024
"""What aliases may add to a file, in characters and values: plenty for shared headers, far too little for a bomb."""
MAX_DECODED = 256 * 1024 * 1024
"""The bytes a recording's gzip and deflate bodies may decode to, all together."""
MAX_NUMBER = 64
"""The longest number, in characters, read from a file: longer ones cannot be printed or made a float."""
MAX_SECONDS = 3600.0
"""The longest time a recording may say an answer took: its pace is replayed, and a pace of forever never ends."""

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

class _Refused(Exception):
    """Raised while parsing; becomes a RecordingError once the file's name is known."""


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_FILE bytes. The file is opened without blocking and checked
    again once open, so nothing put in its place meanwhile is waited on or read without end."""
    try:
        _check_kind(path, os.stat(path).st_mode)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            _check_kind(path, info.st_mode)
            _check_size(path, info.st_size)
            data = handle.read(info.st_size + 1)
            while len(data) <= MAX_FILE and (more := handle.read(1 << 20)):  # a file that grows while it is read
                data += more
            _check_size(path, len(data))
            return data
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except OSError as exc:
        raise RecordingError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _check_kind(path: Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise RecordingError(
            f"{path}: is {kind(mode)}, not a regular file; chatterm reads recordings only from regular files"
        )


def _check_size(path: Path, size: int) -> None:
    if size > MAX_FILE:
        raise RecordingError(f"{path}: larger than the {MAX_FILE // 2**20} MiB chatterm reads")


def scan(text: str, name: str) -> bool:
    """Refuse text nested deeper than MAX_DEPTH, counted on the parser's events before anything is built (the parser
    keeps its own stack, the loader that builds the data recurses per level); True when the text uses an alias."""
    depth = 0
    aliased = False
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise RecordingError(f"{name}: nested too deeply to be a recording")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliased = True
    return aliased


class _Loader(SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader with numbers bounded in length and timestamps kept as text."""


def _bounded_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(node.value)
    if len(text) > MAX_NUMBER:
        raise _Refused(f"a number {len(text)} characters long (line {node.start_mark.line + 1}); refused")
    return int(yaml.SafeLoader.construct_yaml_int(loader, node))


_Loader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)


def load_yaml(text: str, name: str) -> Any:
    try:
        aliased = scan(text, name)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            if aliased:
                check_expansion(node, len(text) + MAX_EXPANSION)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except _Refused as exc:
        raise RecordingError(f"{name}: {exc}") from None
    except yaml.constructor.ConstructorError as exc:
        tag = getattr(exc, "problem", "") or ""
        raise RecordingError(f"{name}: refused a YAML tag that is not plain data ({_one_line(tag)})") from None
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(exc):  # (PyYAML 6.0.4 on: its own bound, met before Python's)
            raise RecordingError(f"{name}: nested too deeply to be a recording") from None
        raise RecordingError(f"{name}: not valid YAML ({_one_line(str(exc))})") from None
    except RecursionError:
        raise RecordingError(f"{name}: nested too deeply to be a recording") from None
    except ValueError as exc:
        raise RecordingError(f"{name}: a value that cannot be read ({_one_clause(exc)})") from None


def check_expansion(root: yaml.Node, limit: int) -> None:
    """Refuse a node graph that, with every alias (and merge key) expanded, holds more than `limit` characters and
    values, or refers to itself. Each node is measured once, so a bomb is measured in the time its file is read."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = _children(node)
        if finished:
            open_nodes.discard(key)
            size = 1 + (len(node.value) if isinstance(node, yaml.ScalarNode) else 0)
            sizes[key] = size + sum(sizes[id(child)] for child in children)
            if sizes[key] > limit:
                raise _Refused(f"its aliases expand to more than {limit // 2**20} MiB; refused")
        elif key not in sizes:
            if key in open_nodes:
                raise _Refused("an alias refers to the value that holds it; refused")
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def seconds(value: object) -> float | None:
    """A recorded time in seconds, or None when it is not one chatterm can wait for (negative, not finite, or
    beyond MAX_SECONDS)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= MAX_SECONDS else None


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER:
        raise ValueError(f"a number {len(text)} characters long; refused")
    return int(text)


def load_json(text: str, name: str) -> Any:
    try:
        data = json.loads(text, parse_int=_json_int)
    except RecursionError:
        raise RecordingError(f"{name}: nested too deeply to be a recording") from None
    except ValueError as exc:
        raise RecordingError(f"{name}: not valid JSON ({_one_clause(exc)})") from None
    return data


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def _one_clause(exc: Exception) -> str:
    """An error's message up to its first `;`: Python's own advice after it (a setting to raise a limit) is not the
    user's to follow."""
    return _one_line(str(exc).split(";")[0])
