"""The scrolling conversation, which follows the end of the text being written.

While an answer streams, its view is given room to grow into ahead of its text (see `MarkdownView`): growing a
widget relayouts and repaints the whole screen, and it is the costliest thing a frame can do. So the view cannot
simply stay scrolled to its end, which would be that blank room: it follows the end of the *text* instead. Where
the text ends is known in two ways:

- when the text grows within its room, at once (`text_appended`): the view scrolls, FOLLOW_STEP lines at a time, in
  the frame that draws the new lines (a scroll is a repaint of what is already rendered, not a relayout);
- when anything changes the layout (the text outgrows its room, the reasoning pane closes, the terminal is
  resized), in the layout itself (`arrange`): the scroll offset is set where the layout places the text, so no
  frame shows the text anywhere else.

Before the first token, the end of the conversation (the prompt just sent, the answer's place) is followed instead.

A conversation shorter than the view is drawn against the bottom edge (as Textual's anchor draws it), with a
negative scroll offset (`_floor`).

It follows until the reader scrolls away from the end of the text (up, to read) or selects a message above it;
scrolling back down to it, or selecting the answer, resumes following. A change of layout never stops it. Between
answers it keeps to its end as any chat view does (Textual's anchor).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.render.scrollbar import RowScrollBar
from chatterm.ui.render.widgets import anchor_held, let_go_of_anchor, moved_by_anchor, vertical_scrollbar
from chatterm.ui.widgets.cursor import MessageCursor, Selectable

FOLLOW_STEP = 8
"""Lines the view moves at a time while it follows: a scroll repaints the whole conversation, so it comes once per
few new lines, not per line (a few blank lines under the text at most; fewer in a short view, a quarter of it)."""


class ConversationView(MessageCursor):
    """The conversation: its messages, followed as they are written, and a cursor that selects one of them."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming = False
        self._following = False
        self._writing: MarkdownView | None = None
        """The text view being written to (the reasoning, then the answer)."""
        self._text_bottom: int | None = None
        """Where the end of the text is (a line of the view's virtual space), as last placed."""
        self._floor = 0.0
        """The lowest scroll offset allowed: negative while a conversation shorter than the view streams."""
        self._reader_scrolled = False
        """The last scroll was asked for by the reader (or by code on their behalf), not by the following."""
        self._release_asked = False
        """A scroll was asked for: the anchor is let go if it moves the view up (`release_anchor`)."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """A bar that repaints only the rows a scroll changes (Textual's own on the stock render path)."""
        bar = vertical_scrollbar(self, lambda: RowScrollBar(name="vertical", thickness=self.scrollbar_size_vertical))
        return bar if bar is not None else super().vertical_scrollbar

    @property
    def following(self) -> bool:
        return self._streaming and self._following

    @property
    def _keeps_end(self) -> bool:
        """Following an answer, or anchored at the end and not scrolled away from it."""
        return self.following or anchor_held(self)

    def follow(self) -> None:
        """An answer starts: follow it from where the view is (at its end)."""
        self._streaming = self._following = True
        self._writing = None
        self._text_bottom = None
        self._reader_scrolled = False
        self._floor = min(self.scroll_y, 0)
        self.anchor(False)

    def select(self, message: Selectable | None) -> None:
        """Select `message`: the answer being written, selected while it streams, is followed again; another message
        is being read, and the view stays on it."""
        super().select(message)
        if self._streaming and message is not None:
            self._following = message is self.selectable()[-1]

    def _bring_into_view(self, message: Selectable) -> None:
        """The answer being written comes into view as it is followed, the end of its text in sight (not its top)."""
        if self._streaming and self._text_bottom is not None and message is self.selectable()[-1]:
            self._keep_in_sight(self._text_bottom, self.scrollable_content_region.height)
        else:
            super()._bring_into_view(message)

    def stop_following(self) -> None:
        """The answer ended: keep to the end from now on if the reader was there, or if the conversation is shorter
        than the view (no negative offset outlives the answer: a view opened on it has none). The anchor puts the
        view at its end when it is next laid out (with the views' exact heights; against the bottom edge when the
        conversation is shorter than the view), and a layout is asked for."""
        following = self.following
        self._streaming = self._following = False
        self._writing = None
        self._floor = 0
        if following or self.scroll_y < 0:
            # (a view below its top edge shows the whole conversation: there is nothing to have scrolled away to)
            self.anchor()
            self.refresh(layout=True)

    def text_appended(self, view: MarkdownView) -> None:
        """A text view in the conversation has more (or fewer) lines (`Follower`): within its room, the view scrolls
        with it now; a view that outgrew its room is placed by the layout that grows it (`arrange`)."""
        if not self._streaming or not _shown(view):
            return  # (the text of a closed reasoning pane: the answer below it is what is followed)
        self._writing = view
        if self._following and view.region and view.line_count <= view.size.height:
            # (from where the last layout put the view, which is what the screen shows: not the virtual size, which
            # a layout may have changed since)
            content = self.scrollable_content_region
            text_bottom = view.region.y - content.y + round(self.scroll_y) + view.line_count
            self._keep_in_sight(text_bottom, content.height)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Textual's arrangement of the messages; while following, the scroll offset is set to where this
        arrangement places the end of the text, before anything is drawn with it."""
        arrangement = super().arrange(size, optimal)
        writing = self._text_view() if self.following else None
        if writing is not None:
            # The text view being written ends the conversation: the end of its text is the end of the conversation
            # less the room it has not filled yet.
            unfilled = max(writing.laid_out - writing.line_count, 0)
            self._keep_in_sight(arrangement.total_region.bottom - unfilled, size.height, in_layout=True)
        elif self.following:
            # No text yet (the model has not answered): the prompt just sent and the answer's place end it.
            self._keep_in_sight(arrangement.total_region.bottom, size.height, in_layout=True)
        elif moved_by_anchor(self):
            # Textual's compositor moves an anchored view to the end of this arrangement without telling the
            # scrollbar, which would go on showing the old position: it is told here (and repaints if it moved).
            self.vertical_scrollbar.position = arrangement.total_region.bottom - (
                self.container_size.height - self.scrollbar_size_horizontal
            )
        return arrangement

    def _text_view(self) -> MarkdownView | None:
        """The text view being written to: the one last appended to, else the last with text in the last message
        (a view filled before it was mounted, as the reasoning pane's is, tells nobody)."""
        if self._writing is not None and self._writing.is_attached and _shown(self._writing):
            return self._writing
        last = self.children[-1] if self.children else None
        views = [view for view in last.query(MarkdownView) if view.source and _shown(view)] if last else []
        return views[-1] if views else None

    def _keep_in_sight(self, text_bottom: int, height: int, in_layout: bool = False) -> None:
        """Scroll so that the end of the text is on screen with fewer than FOLLOW_STEP blank lines under it: when it
        is not, the view moves to leave FOLLOW_STEP - 1 lines under it for the text to come."""
        self._text_bottom = text_bottom
        if height <= 0:
            return
        top = round(self.scroll_y)
        step = min(FOLLOW_STEP, height // 4 + 1)  # (a short view keeps three quarters of itself for the text)
        lowest = text_bottom - height
        highest = min(text_bottom + step - 1 - height, text_bottom - 1)
        if lowest <= top <= highest:
            return
        target = max(highest, lowest)
        self._floor = min(target, 0)
        if in_layout:  # (the layout's own virtual size is not set yet: no validation against the old one)
            self.set_reactive(Widget.scroll_y, target)
            self.set_reactive(Widget.scroll_target_y, target)
            self.vertical_scrollbar.position = target
            # Textual repaints the widgets this layout moved, not the rows they leave behind: the whole view is.
            self.call_later(self.refresh)
        else:
            self._scroll_to_line(target)

    def release_anchor(self) -> None:
        """Textual calls this for a scroll asked for (a key, the mouse wheel, code), before it scrolls. The anchor is
        let go only if the view then moves up, away from its end: a scroll that leaves it at its end (End, or the
        wheel, at the end already) keeps it, and a later resize or answer still keeps the end in sight."""
        self._reader_scrolled = True
        self._release_asked = True

    def watch_scroll_y(self, old: float, new: float) -> None:
        if self._release_asked and new < old:
            self._release_asked = False
            let_go_of_anchor(self)
        super().watch_scroll_y(old, new)
        if not self._streaming or self._text_bottom is None:
            return
        in_sight = round(new) + self.scrollable_content_region.height >= self._text_bottom
        if in_sight:
            self._following = True  # (back down at the end of the text: follow again)
        elif self._reader_scrolled:
            self._following = False  # (up, to read)

    def _scroll_to_line(self, y: int) -> None:
        self._floor = min(y, 0)
        self._reader_scrolled = self._release_asked = False
        self.scroll_target_y = self.scroll_y = y

    def validate_scroll_y(self, value: float) -> float:
        return max(value, self._floor) if value < 0 else super().validate_scroll_y(value)

    def validate_scroll_target_y(self, value: float) -> float:
        return max(value, self._floor) if value < 0 else super().validate_scroll_target_y(value)


def _shown(widget: Widget) -> bool:
    """Drawn: neither the widget nor any of its containers is hidden (a closed reasoning pane hides its text)."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
