"""Masking known secrets in a response body, also where no single piece of the body holds the whole key.

Every form of a key (`chatterm.cassette.secrets`) is masked wherever it is in the body. A provider that echoes a
key may also stream it in pieces: `"content":"sk-te"` in one event, `"content":"st-..."` in the next. Read `deep`,
the body is also taken as the JSON strings it holds, grouped by the name they are the value of, in order: a group
is the text a decoder puts together (the answer, the reasoning, a tool call's arguments), and a form of a key found
in it (the forms the screen masks in that text) is masked in every string it spans (the first piece says MASK, the
others lose their part). Reading every string
costs about what decoding the body does, so the recorder asks for it once the client has seen a key in what the
body decodes to.

`BodyMask` follows a body as it grows (the recorder's copy of a streaming answer): each update reads only what
was added since the last one (the strings of the lines completed since), and `position` moves an offset of the
body onto the masked body, so the timing of each event stays on its event.
"""

from __future__ import annotations

import bisect
import json
import re
from collections import deque
from dataclasses import dataclass, field

from chatterm.cassette.secrets import MASK, byte_forms, known, mask_text, text_forms

_STRING = re.compile(rb'"((?:[^"\\\n]|\\.)*+)(?:(")([ \t]*:)?)?')
"""A JSON string on one line, and the colon after it that makes it a name. Possessive: a string left open ends at
its line's end as a match without its closing quote, so no input makes the search backtrack."""


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
    """The recent text of the strings with one name: enough of it to find a key that ends in the next one.

    Offsets are in the whole text of the group: `text` starts at `base`."""

    text: str = ""
    base: int = 0
    pieces: deque[tuple[int, int, int, str]] = field(default_factory=deque)
    """(offset of the string's text, the string's start and end in the body, its text)"""
    searched: int = 0
    """Where the next search may start (the end of the last key found: keys found do not overlap)."""


class BodyMask:
    """Masks a body that grows by appending (see the module's docstring)."""

    def __init__(self, secrets: tuple[str, ...], deep: bool = False) -> None:
        self.keys = known(secrets)
        self.forms = byte_forms(self.keys)
        self.text_forms = text_forms(self.keys)
        self.longest = max((len(form) for form in self.text_forms), default=0)
        self.deep = deep
        self._start()

    def _start(self) -> None:
        self.read = 0  # how far the strings of the body have been read (the end of a complete line)
        self.formed = 0  # how far the body has been searched for whole forms
        self.name = b""  # the name the strings read next are the values of
        self.groups: dict[bytes, _Group] = {}
        self.cut: dict[int, _Literal] = {}  # the strings that hold part of a key, by where they start
        self.formed_at: dict[int, int] = {}  # whole forms found in the body: start -> end
        self._edits: list[tuple[int, int, bytes]] = []
        self._ends: list[int] = []
        self._shift: list[int] = []

    @property
    def changed(self) -> bool:
        return bool(self.cut or self.formed_at)

    def update(self, body: bytes, final: bool = False) -> bytes:
        """The body masked; `final` when no more bytes will come (the last, unfinished line is read too)."""
        if not self.keys:
            return body
        if len(body) < max(self.read, self.formed):
            self._start()  # not the body it followed: start again
        if self.deep:
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
        for match in _STRING.finditer(body, start, end):
            raw, closed, name = match.groups()
            if closed is None:
                continue  # left open: not JSON
            if name is not None:
                self.name = raw
                continue
            try:
                text = raw.decode("utf-8") if b"\\" not in raw else json.loads(b'"' + raw + b'"', strict=False)
            except ValueError:
                continue
            group = self.groups.get(self.name)
            if group is None:
                group = self.groups[self.name] = _Group()
            self._add(group, match.start(), match.end(), text)

    def _add(self, group: _Group, start: int, end: int, text: str) -> None:
        begin = group.base + len(group.text)
        group.pieces.append((begin, start, end, text))
        group.text += text
        self._find(group, max(group.searched, begin - self.longest + 1))
        keep = group.base + len(group.text) - self.longest + 1  # text before cannot be part of a key still to come
        pieces = group.pieces
        while len(pieces) > 1 and pieces[1][0] <= keep:
            pieces.popleft()
        if pieces[0][0] > group.base:
            group.text = group.text[pieces[0][0] - group.base :]
            group.base = pieces[0][0]

    def _find(self, group: _Group, start: int) -> None:
        """Cut the forms of the keys the group's text holds from `start` on: the first to start wins, the longest of
        those that start together (the forms are listed longest first)."""
        found: list[tuple[int, int]] = []
        for form in self.text_forms:
            at = group.text.find(form, start - group.base)
            while at >= 0:
                found.append((group.base + at, group.base + at + len(form)))
                at = group.text.find(form, at + 1)
        for low, high in sorted(found, key=lambda span: (span[0], -span[1])):
            if low >= group.searched:
                self._cut(group, low, high)
                group.searched = high

    def _cut(self, group: _Group, low: int, high: int) -> None:
        for begin, start, end, text in group.pieces:
            stop = begin + len(text)
            if stop <= low or begin >= high:
                continue
            literal = self.cut.get(start)
            if literal is None:
                literal = self.cut[start] = _Literal(start, end, text)
            literal.cuts.append((max(low, begin) - begin, min(high, stop) - begin, MASK if begin <= low else ""))

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
        for start, end in self.formed_at.items():  # a form inside a string cut already is masked with it
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
    """A whole body masked at once, deep, and the mask that moves its offsets."""
    mask = BodyMask(secrets, deep=True)
    return mask.update(body, final=True), mask
