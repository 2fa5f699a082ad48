"""Markdown that grows while it streams, drawn as one widget through the Line API.

Textual's Markdown widget mounts a widget per block, and every height change reflows all of them: the cost of a
frame grows with the answer. Here the source is split at block boundaries (blank lines outside code fences):

- frozen chunks: settled blocks, rendered once per width and kept as strips;
- the open chunk: settled blocks that the next block may still continue (a list, a quote), rendered together;
- the tail: the block being written, re-rendered when it grows.

So a frame costs the tail, whatever the length of the answer, and only the lines that changed are repainted.
"""

from __future__ import annotations

import re
import time

from rich.segment import Segment
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

LAYOUT_INTERVAL = 0.1
"""Seconds between height changes while streaming. Growing the answer reflows and scrolls the whole view (every
line on screen is repainted), so growth is applied at most this often; lines already shown update every frame."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CONTINUES = re.compile(r"^(\s+|[-*+] |\d+[.)] |>)")
"""A next block starting like this may belong to the block before (a list, a quote): not a place to freeze."""


class MarkdownView(Widget):
    DEFAULT_CSS = """
    MarkdownView { height: auto; width: 1fr; }
    """

    def __init__(self, source: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._source = ""
        self._frozen: list[str] = []
        self._open = ""
        self._tail = ""
        self._in_fence = False
        """Whether the tail starts inside a code fence (settled text never ends inside one)."""
        self._width = 0
        self._frozen_lines: list[Strip] = []
        self._frozen_count = 0
        """How many frozen chunks `_frozen_lines` holds (at the current width)."""
        self._open_strips: list[Strip] | None = None
        self._tail_strips: list[Strip] | None = None
        self._rest: list[Strip] = []
        """The lines after the frozen ones: the open chunk and the tail."""
        self._tail_start = 0
        self._blank = Strip.blank(0)
        self._laid_out = 0
        """The line count of the last layout (the height the widget has on screen)."""
        self._last_layout = 0.0
        self._layout_timer: Timer | None = None
        if source:
            self.append(source)

    @property
    def source(self) -> str:
        return self._source

    def update(self, source: str) -> None:
        """Replace the whole text."""
        self._source, self._frozen, self._open, self._tail, self._in_fence = "", [], "", "", False
        self._frozen_lines, self._frozen_count = [], 0
        self._open_strips, self._tail_strips = None, None
        self.append(source)
        self.refresh(layout=True)

    def append(self, text: str) -> None:
        """Add text at the end; re-renders only what it changed."""
        if not text:
            return
        self._source += text
        self._tail += text
        before = self.line_count
        self._settle()
        self._tail_strips = None
        if self._width:
            self._assemble()
        if not self._width:
            self.layout_now()
            return
        start = self._tail_start
        if start < self._laid_out:  # repaint the lines on screen that changed
            self.refresh(Region(0, start, self._width, self._laid_out - start))
        if self.line_count != before and self.line_count != self._laid_out:
            wait = self._last_layout + LAYOUT_INTERVAL - time.monotonic()
            if wait <= 0:
                self.layout_now()
            elif self._layout_timer is None:
                self._layout_timer = self.set_timer(wait, self.layout_now)

    def layout_now(self) -> None:
        """Give the widget its full height now (the end of an answer does not wait)."""
        if self._layout_timer is not None:
            self._layout_timer.stop()
            self._layout_timer = None
        self._last_layout = time.monotonic()
        self.refresh(layout=True)

    # -- splitting ------------------------------------------------------------------------------------------

    def _settle(self) -> None:
        """Move complete blocks from the tail to the open chunk, and freeze the open chunk when it is safe."""
        boundary = -1
        in_fence = self._in_fence
        position = 0
        for line in self._tail.splitlines(keepends=True):
            end = position + len(line)
            if _FENCE.match(line):
                in_fence = not in_fence
            elif not in_fence and not line.strip() and line.endswith("\n"):
                boundary = end
            position = end
        if boundary <= 0:
            return
        settled, self._tail = self._tail[:boundary], self._tail[boundary:]
        self._in_fence = False
        self._open += settled
        self._open_strips = None
        next_line = self._tail.lstrip("\n")
        if next_line and not _CONTINUES.match(next_line):
            self._freeze()

    def _freeze(self) -> None:
        """The open chunk is final: render it once and add it to the frozen lines."""
        if not self._open.strip():
            self._open = ""
            return
        self._frozen.append(self._open)
        if self._width:
            self._add_frozen(self._render_text(self._open))
        self._open, self._open_strips = "", None

    def _add_frozen(self, strips: list[Strip]) -> None:
        if strips:
            if self._frozen_lines:
                self._frozen_lines.append(self._blank)
            self._frozen_lines.extend(strips)
        self._frozen_count += 1

    # -- rendering --------------------------------------------------------------------------------------------

    def _render_text(self, text: str) -> list[Strip]:
        if not text.strip():
            return []
        from rich.markdown import Markdown as RichMarkdown  # imported after the first frame (see ui.app)

        console = self.app.console
        options = console.options.update(width=max(self._width, 1), height=None)
        theme = "monokai" if self.app.current_theme.dark else "default"
        markdown = RichMarkdown(text.strip("\n"), code_theme=theme)
        lines = console.render_lines(markdown, options, pad=True)
        while lines and all(not seg.text.strip() and not (seg.style and seg.style.bgcolor) for seg in lines[-1]):
            lines.pop()  # trailing blank lines (not a code block's padding, which has a background)
        base = self.rich_style
        return [Strip(Segment.apply_style(line, base), self._width) for line in lines]

    def _assemble(self) -> None:
        """The lines of every part at the current width; frozen lines are kept, the rest re-rendered if stale."""
        if self._frozen_count != len(self._frozen):
            self._frozen_lines, self._frozen_count = [], 0
            for chunk in self._frozen:
                self._add_frozen(self._render_text(chunk))
        if self._open_strips is None:
            self._open_strips = self._render_text(self._open)
        if self._tail_strips is None:
            self._tail_strips = self._render_text(self._tail)
        rest: list[Strip] = []
        for part in (self._open_strips, self._tail_strips):
            if part and (rest or self._frozen_lines):
                rest.append(self._blank)
            if part is self._tail_strips:
                self._tail_start = len(self._frozen_lines) + len(rest)
            rest.extend(part)
        self._rest = rest

    @property
    def line_count(self) -> int:
        return len(self._frozen_lines) + len(self._rest)

    @property
    def lines(self) -> list[Strip]:
        """Every rendered line (for tests and tools; drawing goes through `render_line`)."""
        return [*self._frozen_lines, *self._rest]

    def _set_width(self, width: int) -> None:
        if width != self._width:
            self._width = width
            self._blank = Strip.blank(width, self.rich_style)
            self._frozen_lines, self._frozen_count = [], 0
            self._open_strips, self._tail_strips = None, None
            self._assemble()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._set_width(width)
        self._laid_out = self.line_count
        return self._laid_out

    def render_line(self, y: int) -> Strip:
        if not self._width:
            self._set_width(self.size.width)
        frozen = self._frozen_lines
        if y < len(frozen):
            return frozen[y]
        y -= len(frozen)
        return self._rest[y] if 0 <= y < len(self._rest) else self._blank

    def on_resize(self) -> None:
        self._set_width(self.size.width)

    def notify_style_update(self) -> None:
        """A theme change: the cached strips hold the old colours."""
        super().notify_style_update()
        if self._width:
            width, self._width = self._width, 0
            self._set_width(width)
            self.refresh()
