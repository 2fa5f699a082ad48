"""Masking known secrets in a response body, also where no single piece of the body holds the whole key.

A provider that echoes a key may stream it in pieces: `"content":"sk-te"` in one event, `"content":"st-..."` in the
next. The body is read as the JSON string values it holds, grouped by the name they are the value of, in order: a
group is the text a decoder puts together (the answer, the reasoning, a tool call's arguments), and a key found in
it is masked in every string it spans (the first piece says MASK, the others lose their part). The body's other
text is masked form by form (`chatterm.cassette.secrets`).

`BodyMask` follows a body as it grows (the recorder's copy of a streaming answer): each update reads only the
lines completed since the last one, and `position` moves an offset of the body onto the masked body, so the timing
of each event stays on its event.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field

from chatterm.cassette.secrets import MASK, byte_forms, known, mask_text

_STRING = re.compile(rb'"((?:[^"\\\n]|\\.)*+)"')
"""A JSON string on one line (possessive: a string left open is given up at the line's end, never backtracked)."""
_NAME_AFTER = re.compile(rb"[ \t]*:")


@dataclass
class _Literal:
    """A JSON string of the body that holds part of a key: where it is, its text, and the parts to cut."""

    start: int
    end: int
    text: str
    cuts: list[tuple[int, int, str]] = field(default_factory=list)

    def replacement(self, secrets: tuple[str, ...]) -> bytes:
        out, at = [], 0
        for low, high, put in sorted(self.cuts):
            if low < at:
                continue  # the part is inside one already cut
            out += [self.text[at:low], put]
            at = high
        out.append(self.text[at:])
        return json.dumps(mask_text("".join(out), secrets), ensure_ascii=False).encode("utf-8")


@dataclass
class _Group:
    """The recent text of the strings with one name: enough of it to find a key that ends in the next one."""

    text: str = ""
    pieces: list[tuple[int, _Literal]] = field(default_factory=list)
    """(where the literal's text starts in `text`, the literal)"""
    searched: int = 0
    """Where the next search may start (the end of the last key found: keys found do not overlap)."""


class BodyMask:
    """Masks a body that grows by appending (see the module's docstring)."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self.keys = known(secrets)
        self.forms = byte_forms(self.keys)
        self.longest = max((len(key) for key in self.keys), default=0)
        self._start()

    def _start(self) -> None:
        self.read = 0  # how far the strings of the body have been read (the end of a complete line)
        self.formed = 0  # how far the body has been searched for whole forms
        self.name = ""  # the name the strings read next are the values of
        self.groups: dict[str, _Group] = {}
        self.cut: dict[int, _Literal] = {}  # the strings that hold part of a key, by where they start
        self.formed_at: dict[int, int] = {}  # whole forms found in the body: start -> end
        self._edits: list[tuple[int, int, bytes]] = []
        self._ends: list[int] = []
        self._shift: list[int] = []

    def update(self, body: bytes, final: bool = False) -> bytes:
        """The body masked; `final` when no more bytes will come (the last, unfinished line is read too)."""
        if not self.keys:
            return body
        if len(body) < self.read:
            self._start()  # not the body it followed: start again
        end = len(body) if final else body.rfind(b"\n", self.read) + 1
        if end > self.read:
            self._read_strings(body, self.read, end)
            self.read = end
        self._find_forms(body)
        return self._apply(body)

    def position(self, offset: int) -> int:
        """Where an offset of the body (as last given to `update`) is in the masked body."""
        if not self._edits:
            return offset
        index = bisect.bisect_right(self._ends, offset)
        shift = self._shift[index - 1] if index else 0
        if index < len(self._edits) and self._edits[index][0] < offset:
            start, _, put = self._edits[index]
            return start + shift + len(put)  # inside a masked part: its end
        return offset + shift

    def _read_strings(self, body: bytes, start: int, end: int) -> None:
        at = body.find(b'"', start, end)
        while at >= 0:
            match = _STRING.match(body, at, end)
            if match is None:  # not closed on its line: the rest of the line is no JSON
                line_end = body.find(b"\n", at, end)
                at = body.find(b'"', line_end, end) if line_end >= 0 else -1
                continue
            at = body.find(b'"', match.end(), end)
            raw = match.group(1)
            try:
                text = raw.decode("utf-8") if b"\\" not in raw else json.loads(b'"' + raw + b'"', strict=False)
            except ValueError:
                continue
            if _NAME_AFTER.match(body, match.end()):
                self.name = text
            else:
                self._add(self.groups.setdefault(self.name, _Group()), _Literal(match.start(), match.end(), text))

    def _add(self, group: _Group, literal: _Literal) -> None:
        begin = len(group.text)
        group.pieces.append((begin, literal))
        group.text += literal.text
        for key in self.keys:
            at = group.text.find(key, max(group.searched, begin - len(key) + 1))
            while at >= 0:
                self._cut(group, at, at + len(key))
                group.searched = at + len(key)
                at = group.text.find(key, group.searched)
        keep = len(group.text) - self.longest + 1  # text before this cannot be part of a key still to come
        while len(group.pieces) > 1 and group.pieces[1][0] <= keep:
            group.pieces.pop(0)
        first = group.pieces[0][0]
        if first:
            group.text = group.text[first:]
            group.searched = max(group.searched - first, 0)
            group.pieces = [(at - first, piece) for at, piece in group.pieces]

    def _cut(self, group: _Group, low: int, high: int) -> None:
        for begin, literal in group.pieces:
            stop = begin + len(literal.text)
            if stop <= low or begin >= high:
                continue
            put = MASK if begin <= low else ""
            literal.cuts.append((max(low, begin) - begin, min(high, stop) - begin, put))
            self.cut[literal.start] = literal

    def _find_forms(self, body: bytes) -> None:
        start = max(self.formed - max(len(form) for form in self.forms) + 1, 0)
        for form in self.forms:
            at = body.find(form, start)
            while at >= 0:
                if not any(s < at + len(form) and at < e for s, e in self.formed_at.items()):
                    self.formed_at[at] = at + len(form)
                at = body.find(form, at + 1)
        self.formed = len(body)

    def _apply(self, body: bytes) -> bytes:
        edits = [(literal.start, literal.end, literal.replacement(self.keys)) for literal in self.cut.values()]
        edits.sort()
        starts = [start for start, _, _ in edits]
        for start, end in self.formed_at.items():
            index = bisect.bisect_right(starts, start)
            before = edits[index - 1] if index else None
            after = edits[index] if index < len(edits) else None
            if (before is None or before[1] <= start) and (after is None or end <= after[0]):
                edits.insert(index, (start, end, MASK.encode()))
                starts.insert(index, start)
        self._edits = edits
        if not edits:
            return body
        out, at, shift = [], 0, 0
        self._ends, self._shift = [], []
        for start, end, put in edits:
            out += [body[at:start], put]
            at = end
            shift += len(put) - (end - start)
            self._ends.append(end)
            self._shift.append(shift)
        out.append(body[at:])
        return b"".join(out)


def mask_body(body: bytes, secrets: tuple[str, ...]) -> tuple[bytes, BodyMask]:
    """A whole body masked at once, and the mask that moves its offsets."""
    mask = BodyMask(secrets)
    return mask.update(body, final=True), mask
