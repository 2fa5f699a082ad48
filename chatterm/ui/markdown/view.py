"""Markdown that grows while it streams, drawn as one widget through the Line API.

Textual's Markdown widget mounts a widget per block, and every height change reflows all of them: the cost of a
frame grows with the answer. Here the source is cut between top-level blocks where no text written later can change
the blocks before the cut (`cuts.settled`):

- frozen chunks: settled blocks, rendered once per width and kept as strips (`frozen.FrozenLines`; again when a
  link definition they use appears or changes);
- the tail: the blocks after them, re-rendered when it grows; in a list, only its last item is (the items before
  it are drawn once: `items.LastItem`), and so it is once more when the list is frozen.

So a frame costs the tail, whatever the length of the answer, and only the lines that changed are repainted. Each
chunk is drawn as one render of the whole text draws it: told the link definitions of the whole text and whether a
blank line goes before its first block (`blocks.markdown`, `blocks.follow_blocks`), with the blank lines at its end
kept but for those at the end of the text.

Growing the widget is what costs most: a taller answer relayouts the whole screen and every line on it is
repainted. So while an answer streams, the widget grows two screens' height at a time and the new lines are
written into that room as they come; the conversation follows the end of the text, not the end of the widget
(`ConversationView`), told as soon as the text has more lines (`Follower`). `fit_height()` gives the widget
its exact height when the answer ends.

The contract, for whoever writes into a view (`AssistantMessage`, `ReasoningPane`):

- `append(text)` and `update(text)` are called on the event loop, from the app's thread only; `append` is meant
  to be called a frame at a time with what arrived since (the caller buffers), not per token.
- Text is shown as given: the caller neutralises escape sequences first (`chatterm.terminal_text`).
- `source` is always exactly the text appended so far; what is drawn is Rich's rendering of `source` at the
  widget's width, the same whatever pieces it arrived in (tests/ui/test_markdown_stream.py holds this, comparing
  the lines with one render of the whole text at every append).
- `fit_height()` once the text is complete; until then the widget may be taller than its lines.

What is drawn over the lines when a line is shown, and so is no part of them: the number of a code block
(`codes`), and the highlight of a mouse selection, whose text the view gives as drawn (`selecting`).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from rich.console import RenderableType
from rich.segment import Segment
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from chatterm.ui.markdown.blocks import (
    Drawn,
    References,
    after_blocks,
    changed_labels,
    definitions,
    follow_blocks,
    is_blank,
    is_markdown,
    markdown,
    uses_labels,
    without_blank_end,
)
from chatterm.ui.markdown.codes import code_blocks, is_code_top, labelled
from chatterm.ui.markdown.cuts import blank_cut, may_settle, settled
from chatterm.ui.markdown.frozen import FrozenLines
from chatterm.ui.markdown.items import LastItem
from chatterm.ui.markdown.selecting import highlighted, selected_text
from chatterm.ui.markdown.style import code_label_style, code_theme, render_lines
from chatterm.ui.render.widgets import relayout

if TYPE_CHECKING:
    from rich.markdown import Markdown

GROWTH_ROOM = 16
"""Lines of room, at least, added below a streaming text each time it outgrows its height (GROWTH_SCREENS screens'
height when the screen is taller)."""
GROWTH_SCREENS = 2
"""Screens' height of room: one relayout (two frames that lay out and repaint the whole screen) per two screenfuls
of text. The room is never drawn (the conversation follows the text); only the scrollbar's thumb is shorter for it
while the answer streams."""


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
        """The frozen chunks' texts."""
        self._frozen_definitions: References = {}
        """The link definitions of the frozen chunks (the first of a label wins)."""
        self._references: References = {}
        """The link definitions of the whole text, which every chunk is drawn with."""
        self._tail = ""
        self._floor = 0
        """A line of the tail no cut can come before (`cuts.settled`)."""
        self._width = 0
        self._frozen_lines = FrozenLines()
        """The frozen chunks' lines at the current width (of as many chunks as it has parts)."""
        self._shown = 0
        """How many of the frozen lines are shown."""
        self._tail_strips: list[Strip] | None = None
        self._rest: list[Strip] = []
        """The lines after the frozen ones shown: the tail's."""
        self._tail_start = 0
        self._items = LastItem(lambda text: cast("Markdown", self.renderable(text)), self._draw_markdown)
        """The last item of a list at the end of the tail, drawn alone after the lines of the items before it."""
        self._blank = Strip.blank(0)
        self._markdown: bool | None = None
        """Whether the text is drawn as Markdown (None: not known before the first render; `_draws_markdown`)."""
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
        self._code_tops: list[int] | None = None
        """The lines that are code blocks' top lines, where their numbers are shown (`code_number`)."""
        self._code_base: int | None = None
        if source:
            self.append(source)

    @property
    def source(self) -> str:
        return self._source

    def update(self, source: str) -> None:
        """Replace the whole text."""
        self._source, self._frozen, self._tail, self._floor = "", [], "", 0
        self._frozen_definitions, self._references = {}, {}
        self._forget_lines()
        self._room = 0
        self.append(source)
        self._relayout()

    def append(self, text: str) -> None:
        """Add text at the end; re-renders only what it changed."""
        if not text:
            return
        self._source += text
        before, self._tail = self._tail, self._tail + text
        if not self._width:  # (settled and drawn once the width is known)
            self._relayout()
            self._tell_appended()
            return
        tail_start, shown, rest = self._tail_start, self._shown, self._rest
        if not self._draws_markdown() or may_settle(self._tail, len(before)):
            self._settle()
        redrawn = self._update_references()
        self._tail_strips = None
        self._assemble()
        lines = self.line_count
        if lines > self._laid_out:  # outgrown: grow, with room for the next lines
            self._room = lines + max(GROWTH_ROOM, GROWTH_SCREENS * self.screen.size.height)
            self._relayout()
        else:  # repaint only the lines that changed: from where the tail started before, or a chunk drawn again
            end = min(max(lines, self._drawn), self._laid_out)
            start = self._first_change(min(tail_start, self._tail_start, redrawn), end, shown, rest)
            if start < end:
                self.refresh(Region(0, start, self._width, end - start))
        if lines != self._drawn:
            self._drawn = lines
            self._tell_appended()

    def _first_change(self, start: int, end: int, shown: int, rest: list[Strip]) -> int:
        """The first line from `start` that differs from what was shown before the append: `shown` frozen lines,
        then `rest`. Only lines of `rest` are compared (a frozen line drawn again is repainted): text added to a
        paragraph changes its last line and adds more, and the lines above it are not repainted."""
        last = min(end, self.line_count, shown + len(rest))
        while shown <= start < last and self._line(start) == rest[start - shown]:
            start += 1
        return start

    def _line(self, y: int) -> Strip | None:
        """Line `y` of the text as drawn (a frozen line or the tail's; None past the last)."""
        if y < self._shown:
            return self._frozen_lines.lines[y]
        return self._rest[y - self._shown] if y - self._shown < len(self._rest) else None

    def on_mount(self) -> None:
        self._follower = next((node for node in self.ancestors if isinstance(node, Follower)), None)
        width = getattr(getattr(self.app, "settings", None), "reading_width", None)
        if isinstance(width, int):  # (the app's setting: prose across a wide terminal is hard to read)
            self.styles.max_width = width + self.styles.gutter.width

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

    # -- splitting ---------------------------------------------------------------------------------------------

    def _draws_markdown(self) -> bool:
        """Whether the text is drawn as Markdown, whose blocks Rich draws with the blank lines between them (and whose
        cuts fall between blocks: `cuts.settled`); plain text (`TextView`) is cut at blank lines and its pieces are
        joined by one."""
        if self._markdown is None:
            self._markdown = is_markdown(self.renderable(""))
        return self._markdown

    def _settle(self) -> None:
        """Freeze the start of the tail that no text written after it can change (what one append settles is
        frozen in one piece)."""
        if not self._draws_markdown():
            cut = blank_cut(self._tail)
        else:
            cut, self._floor = settled(self._tail, self._floor)
        if cut:
            self._freeze(cut)

    def _freeze(self, end: int) -> None:
        """The tail up to `end` is final: render it once and add it to the frozen lines."""
        start = len(self._source) - len(self._tail)
        chunk, self._tail, self._floor = self._tail[:end], self._tail[end:], 0
        if not chunk.strip(" \t\r\n" if self._draws_markdown() else None):
            return
        self._frozen.append(chunk)
        self._frozen_definitions = {**definitions(chunk), **self._frozen_definitions}  # (the first one wins)
        if self._width:
            self._frozen_lines.add(self._render_block(chunk, start))

    def _update_references(self) -> int:
        """Take in the link definitions of the whole text; where they changed, draw the frozen chunks that use them
        again. Returns the first line drawn again (the line count when none)."""
        if not self._draws_markdown():
            return self.line_count
        references = {**definitions(self._tail), **self._frozen_definitions}  # (the first one wins)
        changed = changed_labels(self._references, references)
        self._references = references
        if not changed:
            return self.line_count
        self._items.forget()  # (the lines kept for a list may hold links)
        if len(self._frozen_lines.parts) != len(self._frozen):  # (all drawn anew: `_assemble`)
            return 0
        return self._frozen_lines.redraw(self._frozen, lambda chunk: uses_labels(chunk, changed), self._render_text)

    # -- rendering --------------------------------------------------------------------------------------------

    def renderable(self, text: str) -> RenderableType:
        """What one chunk of the text is drawn as."""
        return markdown(text, code_theme(self.app.current_theme), self._references)

    def _render_text(self, text: str) -> list[Strip]:
        """The lines of a piece of the text that starts after the frozen chunks (`Drawn`); plain text: its lines,
        less the blank ones at its end."""
        return self._drawn_text(text, self._frozen_lines.after)

    def _drawn_text(self, text: str, after: bool) -> list[Strip]:
        """The lines of a piece of the text drawn after blocks that ask for a blank line before the next, or not."""
        if not self._draws_markdown():
            return self._strips(without_blank_end(self._render_lines(text.strip("\n")))) if text.strip() else []
        if not text.strip(" \t\r\n"):
            return Drawn([], [], after)
        return self._draw_markdown(cast("Markdown", self.renderable(text)), after)

    def _draw_markdown(self, markdown: Markdown, after: bool) -> Drawn:
        after_it = after_blocks(markdown.parsed, after)
        if after:
            follow_blocks(markdown)
        lines = self._render_renderable(markdown)
        return Drawn(self._strips(lines), [is_blank(line) for line in lines], after_it)

    def _render_lines(self, text: str) -> list[list[Segment]]:
        return self._render_renderable(self.renderable(text))

    def _render_renderable(self, renderable: RenderableType) -> list[list[Segment]]:
        return render_lines(self.app.console, self.app.current_theme, renderable, self._width)

    def _strips(self, lines: list[list[Segment]]) -> list[Strip]:
        style, width = self.rich_style, self._width  # (once: a widget's style is worked out from its ancestors')
        return [Strip(Segment.apply_style(line, style), width) for line in lines]

    def _render_tail(self) -> list[Strip]:
        """The tail's lines; in a list, only its last item is drawn again (`items.LastItem`)."""
        tail = self._tail
        if self._draws_markdown():
            lines = self._items.tail(tail, len(self._source) - len(tail), self._frozen_lines.after)
            if lines is not None:
                return lines
        return self._render_text(tail)

    def _render_block(self, block: str, start: int) -> list[Strip]:
        """The lines of `block`, the tail or its start frozen, which starts at `start` in the source."""
        lines = self._items.block(block, start) if self._draws_markdown() else None
        return lines if lines is not None else self._render_text(block)

    def _forget_lines(self) -> None:
        """Forget every line drawn (a new width, a new text)."""
        self._frozen_lines.clear()
        self._tail_strips, self._rest, self._tail_start, self._shown = None, [], 0, 0
        self._code_tops = None
        self._items.forget()

    def _assemble(self) -> None:
        """The lines of every part at the current width; frozen lines are kept, the tail re-rendered if stale."""
        self._code_tops = None
        frozen = self._frozen_lines
        if len(frozen.parts) != len(self._frozen):
            frozen.clear()
            for chunk in self._frozen:
                frozen.add(self._render_text(chunk))
        if self._tail_strips is None:
            self._tail_strips = self._render_tail()
        tail = self._tail_strips
        if isinstance(tail, Drawn):  # (the blank lines at the end of the text are not drawn)
            rest = tail[: len(tail) - tail.blank_end()]
            shown = len(frozen.lines) if rest else frozen.shown_alone
            self._tail_start = shown
        else:
            rest = [frozen.blank, *tail] if tail and frozen.lines else list(tail)
            shown = len(frozen.lines)
            self._tail_start = shown + len(rest) - len(tail)
        self._shown = shown
        self._rest = rest

    @property
    def line_count(self) -> int:
        return self._shown + len(self._rest)

    @property
    def lines(self) -> list[Strip]:
        """Every rendered line (for tests and tools; drawing goes through `render_line`)."""
        return [*self._frozen_lines.lines[: self._shown], *self._rest]

    def _set_width(self, width: int) -> None:
        if width != self._width:
            self._width, self._restyled = width, False  # (every line drawn again, in the colours of now)
            self._blank = self._frozen_lines.blank = Strip.blank(width, self.rich_style)
            self._forget_lines()
            self._settle()  # (text appended before a width was known)
            self._update_references()
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
        line = self._line(y)
        if line is None:
            return self._blank
        if is_code_top(line):
            line = labelled(line, f"[{self.code_number(y)}]", code_label_style(self.app.current_theme))
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            line = highlighted(line, span, self.screen.get_component_rich_style("screen--selection"))
        return line.apply_offsets(0, y)  # (where the mouse is in the text, for selecting: `selecting`)

    def code_number(self, y: int) -> int:
        """The number shown on the code block whose top line is line `y` (`codes`)."""
        if self._code_tops is None:
            self._code_tops = [at for at, line in enumerate(self.lines) if is_code_top(line)]
        return self.code_base + bisect.bisect_left(self._code_tops, y) + 1

    @property
    def code_base(self) -> int:
        """How many code blocks the answers above this one hold: this one's are numbered on from there. Counted
        once, so numbers do not change when earlier turns leave the view."""
        if self._code_base is not None:
            return self._code_base
        if not self.is_attached:
            return 0
        base = 0
        for view in self.screen.query(MarkdownView):
            if view is self:
                break
            if view._draws_markdown():
                base += len(code_blocks(view.source))
        self._code_base = base
        return base

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text drawn where `selection` falls (Textual's selection API: copied by Ctrl+C)."""
        return selected_text([line.text for line in self.lines], selection), "\n"

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
