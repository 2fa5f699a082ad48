"""Which items of a session file hold its active branch, told without parsing the items.

A long session opens on the last turns of its active branch (`load.load_tail`); in a branched session those are
not the file's last items. chatterm notes each exchange's place first among its notes, at fixed indents
(`    x_chatterm:` then `      id:`, `      parent:` and, for a continuation, `      continues:`), and an attempt
that was retried with `      retried: true`. Bodies are indented deeper and requests are one line, so no other line
of the file starts so: these lines are found by pattern, and the tree is built from them and the branch switches
alone (`branches.recorded_tree` over items that hold only their notes).
"""

from __future__ import annotations

import re

import yaml

from chatterm.cassette.branches import CONTINUES, ID, PARENT, recorded_tree
from chatterm.cassette.dataio import SafeLoader
from chatterm.cassette.model import Interaction, Recording, Response, Switch

_NOTES = b"\n    x_chatterm:\n"
_PLACE = re.compile(rb"      id: ([^\n]*)\n      parent: ([^\n]*)\n(?:      continues: ([^\n]*)\n)?")
_RETRIED = b"\n      retried: true\n"
_NOT_NOTED = object()


def branch_items(data: bytes, starts: list[int], end: int, switches: list[Switch]) -> list[int] | None:
    """The indexes of the items (starting at `starts`, the last ending at `end`) that hold the active branch, the
    attempts of a turn before the one that answered it; None when an item's place is not noted (the file is not
    one chatterm wrote as a tree).

    The notes end an item, so each is looked for from the item's end back: a long session costs what its notes do,
    not what its answers do."""
    notes: list[dict[str, object]] = []
    for start, stop in zip(starts, [*starts[1:], end], strict=True):
        at = data.rfind(_NOTES, start, stop)
        match = _PLACE.match(data, at + len(_NOTES)) if at >= 0 else None
        if match is None:
            return None
        place = [_scalar(value) for value in match.groups(b"null")]
        if any(value is _NOT_NOTED for value in place):
            return None
        noted: dict[str, object] = {ID: place[0], PARENT: place[1]}
        if place[2] is not None:
            noted[CONTINUES] = place[2]
        if data.find(_RETRIED, match.end() - 1, stop) >= 0:
            noted["retried"] = True
        notes.append(noted)
    skeleton = [Interaction(None, Response(200), meta) for meta in notes]
    recorded = recorded_tree(Recording("vcr", skeleton, switches))
    index = {id(interaction): number for number, interaction in enumerate(skeleton)}
    return [index[id(attempt)] for node_id in recorded.tree.branch() for attempt in recorded.attempts[node_id]]


def _scalar(value: bytes) -> object:
    """A noted id as text (None for `null`); _NOT_NOTED for anything else."""
    if value in (b"null", b"~"):
        return None
    if len(value) > 2 and value[:1] == value[-1:] == b"'" and b"'" not in value[1:-1]:
        return value[1:-1].decode("utf-8", "replace")
    try:
        parsed = yaml.load(value, Loader=SafeLoader)
    except yaml.YAMLError:
        return _NOT_NOTED
    return str(parsed) if isinstance(parsed, (str, int)) and not isinstance(parsed, bool) else _NOT_NOTED
