"""Markdown that grows while it streams, drawn as one widget through the Line API.

Textual's Markdown widget mounts a widget per block, and every height change reflows all of them: the cost of a
frame grows with the answer. Here the source is split at block boundaries (blank lines outside code fences):

- frozen chunks: settled blocks, rendered once per width and kept as strips;
- the open chunk: settled blocks that the next block may still continue (a list, a quote), rendered together;
- the tail: the block being written, re-rendered when it grows; in a list, only its last item is (the items before
  it are drawn once, as the list's head), and so it is once more when the list is complete (open, then frozen).

So a frame costs the tail, whatever the length of the answer, and only the lines that changed are repainted.

Growing the widget is what costs most: a taller answer relayouts the whole screen and every line on it is
repainted. So while an answer streams, the widget grows a screen's height at a time and the new lines are
written into that room as they come; the conversation follows the end of the text, not the end of the widget
(`ConversationView`), told as soon as the text has more lines (`Follower`). `fit_height()` gives the widget
its exact height when the answer ends.

The contract, for whoever writes into a view (`AssistantMessage`, `ReasoningPane`):

- `append(text)` and `update(text)` are called on the event loop, from the app's thread only; `append` is meant
  to be called a frame at a time with what arrived since (the caller buffers), not per token.
- Text is shown as given: the caller neutralises escape sequences first (`chatterm.terminal_text`).
- `source` is always exactly the text appended so far; what is drawn is Rich's rendering of `source` at the
  widget's width, the same whatever pieces it arrived in (tests/ui/test_markdown_view.py holds this).
- `fit_height()` once the text is complete; until then the widget may be taller than its lines.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rich.console import RenderableType
from rich.segment import Segment
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from chatterm.ui.markdown.blocks import (
    FENCE,
    ITEM,
    last_item,
    markdown,
    same_drawing,
    starts_item,
    without_blank_end,
)
from chatterm.ui.render.widgets import relayout

GROWTH_ROOM = 16
"""Lines of room, at least, added below a streaming text each time it outgrows its height (a screen's height
when the screen is taller): one relayout per screenful of text."""

@runtime_checkable
class Follower(Protocol):
    """What scrolls with a streaming text (the conversation): told each time the number of lines of a text view
    inside it changes, at once, so that a scroll joins the frame that draws the new lines; and asked, when the width
    changes, whether a finished view may keep its height and be measured later (`MarkdownView.measure`), or told to
    measure it later (its lines are in old colours)."""

    def text_appended(self, view: MarkdownView) -> None: ...

    def can_wait(self, view: MarkdownView) -> bool: ...

    def measure_later(self, view: MarkdownView) -> None: ...


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
        self._width = 0
        self._frozen_lines: list[Strip] = []
        self._frozen_count = 0
        """How many frozen chunks `_frozen_lines` holds (at the current width)."""
        self._open_strips: list[Strip] | None = None
        self._tail_strips: list[Strip] | None = None
        self._rest: list[Strip] = []
        """The lines after the frozen ones: the open chunk and the tail."""
        self._tail_start = 0
        self._split: tuple[tuple[int, int], tuple[list[Strip], int] | None] = ((-1, -1), None)
        """Where the last list item of the tail starts (where the tail starts in the source, the offset in the
        tail), and if the tail is drawn as the lines before it and its own: the lines before it and how many
        of the item's first lines to leave out (`_render_tail`)."""
        self._blank = Strip.blank(0)
        self._laid_out = 0
        """The height the widget has on screen (its last layout)."""
        self._room = 0
        """The height asked for while streaming: the lines so far and room to grow into."""
        self._drawn = 0
        """How many lines were drawn at the last append (a tail can get shorter: its old lines are repainted)."""
        self._follower: Follower | None = None
        self._later = 0
        """A width the widget is laid out at with its old height, its lines not yet drawn for it (`measure`)."""
        self._restyled = False
        """The lines are drawn in colours the theme no longer has (`measure`)."""
        if source:
            self.append(source)

    @property
    def source(self) -> str:
        return self._source

    def update(self, source: str) -> None:
        """Replace the whole text."""
        self._source, self._frozen, self._open, self._tail = "", [], "", ""
        self._frozen_lines, self._frozen_count = [], 0
        self._open_strips, self._tail_strips, self._split = None, None, ((-1, -1), None)
        self._room = 0
        self.append(source)
        self._relayout()

    def append(self, text: str) -> None:
        """Add text at the end; re-renders only what it changed."""
        if not text:
            return
        self._source += text
        self._tail += text
        frozen, tail_start = len(self._frozen_lines), self._tail_start
        self._settle()
        self._tail_strips = None
        if not self._width:
            self._relayout()
            self._tell_appended()
            return
        redrawn = self._open_strips is None  # (the open chunk is drawn again: its lines may all change)
        self._assemble()
        lines = self.line_count
        if lines > self._laid_out:  # outgrown: grow, with room for the next lines
            self._room = lines + max(GROWTH_ROOM, self.screen.size.height)
            self._relayout()
        else:  # repaint only the lines that changed: from where the open chunk or the tail started before
            start = frozen if redrawn else min(tail_start, self._tail_start)
            end = min(max(lines, self._drawn), self._laid_out)
            if start < end:
                self.refresh(Region(0, start, self._width, end - start))
        if lines != self._drawn:
            self._drawn = lines
            self._tell_appended()

    def on_mount(self) -> None:
        self._follower = next((node for node in self.ancestors if isinstance(node, Follower)), None)

    def _tell_appended(self) -> None:
        if self._follower is not None:
            self._follower.text_appended(self)

    def _relayout(self) -> None:
        """Ask for a layout that measures the view again (the height changed), even with a request pending
        (`chatterm.ui.render.widgets.relayout`)."""
        relayout(self)

    def fit_height(self) -> None:
        """The answer is complete: give the widget exactly the height of its lines."""
        self._room = 0
        self._relayout()

    # -- splitting ------------------------------------------------------------------------------------------

    def _settle(self) -> None:
        """Move complete blocks from the tail to the open chunk, and freeze what no later block can continue.

        Whether a block can be frozen depends on the block after it, so each boundary is judged on its own (an
        append can hold many blocks); what is frozen in one append is rendered in one piece."""
        boundaries = []
        in_fence = False  # (the tail starts outside a code fence: settled text never ends inside one)
        position = 0
        for line in self._tail.splitlines(keepends=True):
            end = position + len(line)
            if FENCE.match(line):
                in_fence = not in_fence
            elif not in_fence and not line.strip() and line.endswith("\n"):
                boundaries.append(end)
            position = end
        if not boundaries:
            following = self._tail.lstrip("\n")
            if self._open and following and not self._continues(following, self._open):
                self._freeze(len(self._open))  # the open chunk waited for the start of the next block
            return
        settled, self._tail = self._tail[: boundaries[-1]], self._tail[boundaries[-1] :]
        self._open_strips = None
        offset, cut = len(self._open), 0
        self._open += settled
        for end in boundaries:
            following = settled[end : end + 200].lstrip("\n") or self._tail.lstrip("\n")
            if following and not self._continues(following, self._open[cut : offset + end]):
                cut = offset + end
        if cut:
            self._freeze(cut)

    @staticmethod
    def _continues(following: str, before: str) -> bool:
        """Whether a block starting with `following` may belong to the blocks `before` it (a list, a quote)."""
        if ITEM.match(following):
            return True
        return following[0] in " \t" and ITEM.search(before) is not None

    def _freeze(self, end: int) -> None:
        """The open chunk up to `end` is final: render it once and add it to the frozen lines."""
        start = len(self._source) - len(self._tail) - len(self._open)
        chunk, self._open = self._open[:end], self._open[end:]
        strips = self._open_strips if not self._open else None  # the whole open chunk, drawn already
        self._open_strips = None
        if not chunk.strip():
            return
        self._frozen.append(chunk)
        if self._width:
            self._add_frozen(strips if strips is not None else self._render_block(chunk, start))

    def _add_frozen(self, strips: list[Strip]) -> None:
        if strips:
            if self._frozen_lines:
                self._frozen_lines.append(self._blank)
            self._frozen_lines.extend(strips)
        self._frozen_count += 1

    # -- rendering --------------------------------------------------------------------------------------------

    def renderable(self, text: str) -> RenderableType:
        """What one chunk of the text is drawn as."""
        return markdown(text, "monokai" if self.app.current_theme.dark else "default")

    def _render_text(self, text: str) -> list[Strip]:
        if not text.strip():
            return []
        return self._strips(without_blank_end(self._render_lines(text.strip("\n"))))

    def _render_lines(self, text: str) -> list[list[Segment]]:
        console = self.app.console
        options = console.options.update(width=max(self._width, 1), height=None)
        return console.render_lines(self.renderable(text), options, pad=True)

    def _strips(self, lines: list[list[Segment]]) -> list[Strip]:
        style, width = self.rich_style, self._width  # (once: a widget's style is worked out from its ancestors')
        return [Strip(Segment.apply_style(line, style), width) for line in lines]

    def _render_tail(self) -> list[Strip]:
        """The tail's lines. In a list, only the item being written is rendered again: text after the start of an
        item cannot change the blocks before it, and Rich draws each item of a list from its own text alone, so the
        lines before the item's are kept. That the item alone is drawn as in the whole tail (Rich has quirks: a
        blank line before a list, numbers padded to the widest, an item that is not one) is checked once, when the
        item starts; if it is not, the tail is rendered whole."""
        tail = self._tail
        start = len(self._source) - len(tail)
        offset = last_item(tail)
        if offset and self._split[0] != (start, offset):  # a new item: does the whole tail end with its lines?
            whole = self._render_text(tail)
            item = self._render_text(tail[offset:])
            drop = 1 if item and not item[0].text.strip() else 0  # (the blank line Rich draws before a list)
            own = len(item) - drop
            alike = 0 < own <= len(whole) and same_drawing(item[drop:], whole[len(whole) - own :])
            alike = alike and starts_item(tail, tail.count("\n", 0, offset))
            self._split = ((start, offset), (whole[: len(whole) - own], drop) if alike else None)
            return whole
        return self._render_block(tail, start, offset)

    def _render_block(self, block: str, start: int, offset: int | None = None) -> list[Strip]:
        """The lines of `block`, which starts at `start` in the source. If the tail was last split at its last list
        item (`offset` in it; see `_render_tail`), the block being the tail, or the tail become the open chunk or
        frozen, with more text: only that item is rendered and the lines before it are kept; else all of it."""
        key, split = self._split
        if split is not None and key[0] == start and key[1] == (last_item(block) if offset is None else offset):
            head, drop = split
            item = self._render_text(block[key[1] :])
            if len(item) > drop and not (drop and item[0].text.strip()):
                return [*head, *item[drop:]]
            self._split = (key, None)  # (drawn as nothing now: a link definition, an HTML comment)
        return self._render_text(block)

    def _assemble(self) -> None:
        """The lines of every part at the current width; frozen lines are kept, the rest re-rendered if stale."""
        if self._frozen_count != len(self._frozen):
            self._frozen_lines, self._frozen_count = [], 0
            for chunk in self._frozen:
                self._add_frozen(self._render_text(chunk))
        if self._open_strips is None:
            self._open_strips = self._render_block(self._open, len(self._source) - len(self._tail) - len(self._open))
        if self._tail_strips is None:
            self._tail_strips = self._render_tail()
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
            self._width, self._restyled = width, False  # (every line drawn again, in the colours of now)
            self._blank = Strip.blank(width, self.rich_style)
            self._frozen_lines, self._frozen_count = [], 0
            self._open_strips, self._tail_strips, self._split = None, None, ((-1, -1), None)
            self._assemble()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width and self._width and not self._room and self._can_wait():
            self._later = width
            return self._laid_out
        self._later = 0
        self._set_width(width)
        self._laid_out = max(self.line_count, self._room)
        return self._laid_out

    def _can_wait(self) -> bool:
        return self._follower is not None and self._follower.can_wait(self)

    @property
    def laid_out(self) -> int:
        """The height the view asked for at its last layout (its lines, and room while it streams)."""
        return self._laid_out

    @property
    def height_pending(self) -> bool:
        """Laid out at a width with its old height, its lines not drawn for it yet."""
        return bool(self._later)

    @property
    def waiting(self) -> bool:
        """Its lines are not drawn yet for the width it is laid out at, or in the colours of the theme."""
        return self.height_pending or self._restyled

    def measure(self) -> None:
        """Draw the lines put off while the widget was out of sight: for the width it was laid out at (its height
        follows at the next layout), or in a new theme's colours. A new width or theme would otherwise draw every
        message of a long conversation in one frame (bench: resize after 20 long answers)."""
        width, self._later = self._later, 0
        restyled, self._restyled = self._restyled, False
        if width and width != self._width:
            self._set_width(width)
            self._relayout()
        elif restyled and self._width:
            width, self._width = self._width, 0
            self._set_width(width)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        if self.waiting:
            self.measure()  # (in sight before its turn)
        if not self._width:
            self._set_width(self.size.width)
        frozen = self._frozen_lines
        if y < len(frozen):
            return frozen[y]
        y -= len(frozen)
        return self._rest[y] if 0 <= y < len(self._rest) else self._blank

    def on_resize(self) -> None:
        if not self._later:
            self._set_width(self.size.width)

    def notify_style_update(self) -> None:
        """A theme change: the cached strips hold the old colours. Drawn again when next drawn, or by the follower
        a slice at a time (most of a long conversation is out of sight)."""
        super().notify_style_update()
        if self._width:
            self._restyled = True
            if self._follower is not None:
                self._follower.measure_later(self)
            else:
                self.measure()
