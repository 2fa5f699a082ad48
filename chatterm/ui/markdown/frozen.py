"""The lines of a streaming text's frozen chunks, at one width, joined as one render of the whole text joins them.

A Markdown chunk's lines (`Drawn`) are Rich's, blank lines between its blocks and at its end included: they follow
the lines before with nothing between, and the blank lines at the end of the text are not drawn. Plain text's
chunks (`TextView`) are joined by one blank line.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.strip import Strip

from chatterm.ui.markdown.blocks import Drawn


class FrozenLines:
    def __init__(self) -> None:
        self.blank = Strip.blank(0)
        """The blank line that joins plain text's chunks (in the widget's style, at its width)."""
        self.parts: list[list[Strip]] = []
        """Each chunk's lines, as drawn."""
        self.lines: list[Strip] = []
        self.after = False
        """Whether the chunks so far ask for a blank line before the next block (`Drawn.after`)."""
        self.shown_alone = 0
        """How many of the lines are shown when nothing follows: all but the blank ones at their end."""

    def clear(self) -> None:
        self.parts, self.lines, self.after, self.shown_alone = [], [], False, 0

    def add(self, part: list[Strip]) -> None:
        if isinstance(part, Drawn):
            self.lines.extend(part)
            self.after = part.after
            if len(part) > part.blank_end():  # (else the blank lines before it stay at the end)
                self.shown_alone = len(self.lines) - part.blank_end()
        elif part:
            if self.lines:
                self.lines.append(self.blank)
            self.lines.extend(part)
            self.shown_alone = len(self.lines)
        self.parts.append(part)

    def redraw(self, chunks: list[str], again: Callable[[str], bool], draw: Callable[[str], list[Strip]]) -> int:
        """Draw the chunks `again` picks once more (`draw` is called with the chunks before added, so it can tell
        what they leave: `after`), keeping the others' lines. Returns the first line drawn again (the line count
        when none is)."""
        parts, first = self.parts, len(self.lines)
        self.clear()
        for chunk, part in zip(chunks, parts, strict=True):
            if again(chunk):
                first = min(first, len(self.lines))
                part = draw(chunk)
            self.add(part)
        return first
