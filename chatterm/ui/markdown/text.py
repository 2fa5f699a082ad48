"""Plain text that grows while it streams (the reasoning), word-wrapped a line at a time."""

from __future__ import annotations

import re

from rich.console import RenderableType
from rich.text import Text
from textual.strip import Strip

from chatterm.ui.markdown.blocks import without_blank_end
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.render.wrap import line_breaks

SPACE_AT_LINE_END = re.compile(r"[ \t]+(?=\n)")
BLANK_LINES = re.compile(r"\n{3,}")


class TextView(MarkdownView):
    """Plain text that grows while it streams (the reasoning), drawn the same incremental way, word-wrapped.

    Reasoning often comes as one paragraph thousands of words long, which the Markdown view would re-wrap whole at
    every frame. Word wrapping is greedy, so appending text changes only the last line of a paragraph: the lines
    before it are kept, with the text they hold (`_kept`), and only the last line is wrapped again."""

    DEFAULT_CSS = """
    TextView { height: auto; width: 1fr; }
    """

    def __init__(self, source: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        self._kept: list[Strip] = []
        """The lines of the tail that more text cannot change."""
        self._kept_text = ""
        """The start of the tail (without its leading newlines) that `_kept` draws."""
        self._kept_start = (0, 0)
        """Where in the source the tail those lines belong to starts, and the width they were drawn at."""
        super().__init__(source, id=id, classes=classes)

    def _forget_kept(self) -> None:
        self._kept, self._kept_text, self._kept_start = [], "", (0, 0)

    def update(self, source: str) -> None:
        self._forget_kept()
        super().update(source)

    def notify_style_update(self) -> None:
        self._forget_kept()  # (drawn in the old colours)
        super().notify_style_update()

    def renderable(self, text: str) -> RenderableType:
        return Text(text)

    @staticmethod
    def _plain(text: str) -> str:
        """The text as drawn, the same however it arrived, in one piece or split into blocks at blank lines: spaces
        that end a line are dropped (Rich can fold them onto a line of their own), blank lines in a row are one."""
        return BLANK_LINES.sub("\n\n", SPACE_AT_LINE_END.sub("", text))

    def _render_text(self, text: str) -> list[Strip]:
        return super()._render_text(self._plain(text))

    def _render_tail(self) -> list[Strip]:
        text = self._tail.strip("\n")  # (as `_render_text` draws it)
        kept = self._kept_text
        rest = text[len(kept) :]
        # (tabs are expanded from the start of a line of the source: a line with tabs is cut only at its start)
        tab_after_cut = "\t" in rest.partition("\n")[0] and not kept.endswith("\n")
        start = (len(self._source) - len(self._tail), self._width)  # (a tail that starts anew: kept lines are not)
        if self._kept_start != start or not text.startswith(kept) or tab_after_cut:
            self._forget_kept()
            self._kept_start, rest = start, text
        last = rest.rpartition("\n")[2]
        breaks = (line_breaks(last, self._width) if last and "\t" not in last else None) or []
        # (a line that starts with a word, not one inside a word folded across lines, which more text can refold)
        starts = [at for at in breaks if last[at - 1].isspace() and not last[at].isspace()]
        settled = rest[: len(rest) - len(last) + (starts[-1] if starts else 0)]
        if settled:  # whole lines of the source, then the wrapped lines of the last but its last one
            lines = self._render_lines(self._plain(settled))
            if settled.endswith("\n"):
                lines.pop()  # (the empty line after a final newline)
            self._kept.extend(self._strips(lines))
            self._kept_text += settled
        writing = rest[len(settled) :]
        if not writing.strip():  # ends in a blank line, which a whole text does not draw (rare: draw it whole)
            return self._render_text(self._tail)
        lines = without_blank_end(self._render_lines(self._plain(writing)))  # (spaces folded onto a line)
        return [*self._kept, *self._strips(lines)]
