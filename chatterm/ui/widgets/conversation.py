"""The scrolling conversation, which follows the end of the text being written.

While an answer streams, its view is given room to grow into ahead of its text (see `MarkdownView`): growing a
widget relayouts and repaints the whole screen, and it is the costliest thing a frame can do. So the view cannot
simply stay scrolled to its end, which would be that blank room: it follows the end of the *text* instead,
FOLLOW_STEP lines at a time, and a scroll is a repaint of what is already rendered, not a relayout.

It follows while the end of the text is on screen: scrolling up to read stops it, scrolling back down to the end
of the text resumes it. Between answers it keeps to its end as any chat view does (Textual's anchor).

A new width (a resize) draws every message again. While the view keeps to its end, the messages far above what
shows keep their old height for that frame and are measured after it, a slice at a time (`can_wait`); after a
theme change, all but those drawn in the frame are (`measure_later`).
"""

from __future__ import annotations

import time

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.render.scrollbar import RowScrollBar
from chatterm.ui.render.widgets import anchor_held, vertical_scrollbar

FOLLOW_STEP = 8
"""Lines the view moves at a time while it follows: a scroll repaints the whole screen, so it comes once per few
new lines, not per line (a few blank lines under the text at most; 8 rather than 4 halved the scrolls of an
answer)."""
OUT_OF_SIGHT = 2
"""Screen heights above what shows beyond which a finished message is measured after a change of width, not in it."""
MEASURE_SLICE = 0.02
"""Seconds of measuring between frames (and keys) while messages out of sight are measured."""


class ConversationView(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming = False
        self._following = False
        self._text_bottom: int | None = None
        """Where the end of the text was at the last step (a line of the view's virtual space)."""
        self._pending: MarkdownView | None = None
        self._floor = 0.0
        """The lowest scroll offset allowed: negative while a conversation shorter than the view streams (below)."""
        self._waiting: dict[MarkdownView, None] = {}
        """Text views to be measured (`MarkdownView.measure`), in the order they were laid out or restyled: the last
        is the nearest to what shows."""
        self._below: tuple[tuple[int, Size, int], dict[Widget, int]] = ((0, Size(0, 0), 0), {})
        """The height of the messages after each message, and when it was worked out."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """A bar that repaints only the rows a scroll changes (Textual's own on the stock render path)."""
        bar = vertical_scrollbar(self, lambda: RowScrollBar(name="vertical", thickness=self.scrollbar_size_vertical))
        return bar if bar is not None else super().vertical_scrollbar

    @property
    def following(self) -> bool:
        return self._streaming and self._following

    def follow(self) -> None:
        """An answer starts: follow it from where the view is (at its end)."""
        self._streaming = self._following = True
        self._text_bottom = None
        self._floor = min(self.scroll_y, 0)
        self.anchor(False)

    def stop_following(self) -> None:
        """The answer ended: keep to the end if the reader was there, once the views have their exact heights."""
        if self._streaming and self._text_on_screen():
            self.call_after_refresh(self._anchor_at_end)
        self._streaming = self._following = False
        self._pending = None

    def _anchor_at_end(self) -> None:
        """Keep to the end from now on. The anchor puts the view at its end when the view is next laid out (against
        the bottom edge when the conversation is shorter than the view), so a layout is asked for: the frame that
        laid out the last message may already have passed."""
        if not self._streaming:  # (not if the next answer already started)
            self.anchor()
            self.refresh(layout=True)

    def text_appended(self, view: MarkdownView) -> None:
        """A text view in the conversation has more (or fewer) lines: scroll with it (`Follower`)."""
        if not self._streaming:
            return
        if self._pending is None and view.size.height and view.line_count <= view.size.height:
            # no growth pending: where the text ends is known now, and the scroll joins the frame that draws it
            self._pending = view
            self._step()
            return
        if self._pending is None:
            self.call_after_refresh(self._step)
        self._pending = view

    @property
    def _keeps_end(self) -> bool:
        """Following an answer, or anchored at the end and not scrolled away from it."""
        return self.following or anchor_held(self)

    def can_wait(self, view: MarkdownView) -> bool:
        """Whether a finished text view may keep its old height at a new width and be measured after the frame, so
        that a resize does not draw every message of a long conversation in one frame. Only while the conversation
        keeps to its end, and only the views of messages more than OUT_OF_SIGHT screens above it; what shows, and
        near it, is laid out exactly."""
        if not self._keeps_end:
            return False
        message = next((node for node in view.ancestors_with_self if node.parent is self), None)
        below = self._heights_below().get(message) if isinstance(message, Widget) else None
        # (`outer_size`, not `size`: asked inside a layout, `size` asks where the view is, which arranges the whole
        # screen again there and then)
        if below is None or below <= (1 + OUT_OF_SIGHT) * self.outer_size.height:
            return False
        self.measure_later(view)
        return True

    def measure_later(self, view: MarkdownView) -> None:
        """Draw a view's lines again after the frame (`_measure_waiting`), unless it is drawn before."""
        if not self._waiting:
            self.set_timer(0.01, self._measure_waiting)
        self._waiting.pop(view, None)
        self._waiting[view] = None

    def _heights_below(self) -> dict[Widget, int]:
        """How tall the messages after each message are (as last laid out), worked out once per layout."""
        key = (len(self.children), self.outer_size, self.virtual_size.height)
        if self._below[0] != key:
            below, total = {}, 0
            for child in reversed(self.children):
                below[child] = total
                total += child.outer_size.height
            self._below = (key, below)
        return self._below[1]

    def _measure_waiting(self) -> None:
        """Measure the waiting views, nearest to what shows first, a slice at a time, so that frames and keys come in
        between. If the reader left the end meanwhile, those whose height is still the old one are measured at once
        (the content moves once, as when every view was measured in the resize)."""
        if not self._keeps_end:
            for view in [view for view in self._waiting if view.height_pending]:
                del self._waiting[view]
                if view.is_attached:
                    view.measure()
        started = time.perf_counter()
        while self._waiting and time.perf_counter() - started < MEASURE_SLICE:
            view, _ = self._waiting.popitem()
            if view.is_attached:
                view.measure()
        if self._waiting:
            self.set_timer(0.01, self._measure_waiting)

    def _text_on_screen(self) -> bool:
        bottom = round(self.scroll_y) + self.scrollable_content_region.height
        return self._text_bottom is None or bottom >= self._text_bottom

    def _step(self) -> None:
        """New text has its place (at once, or after the frame that grew its view): if the end of the text as it was
        is on screen (the reader has not scrolled up to read), bring the new end of the text on screen.

        The streaming view ends its message, which ends the conversation, so the end of its text is the end of the
        conversation less the room the view has not filled yet."""
        view, self._pending = self._pending, None
        if view is None or not self._streaming or not view.region:
            return
        self._following = self._text_on_screen()
        unfilled = max(view.size.height - view.line_count, 0)
        self._text_bottom = text_bottom = self.virtual_size.height - unfilled
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        if not self._following:
            return
        if text_bottom > top + height:
            # (a conversation shorter than the view is drawn against the bottom edge, as Textual's anchor draws it,
            # with a negative offset: it moves up the same way, FOLLOW_STEP lines at a time, not a repaint per line)
            self._scroll_to_line(text_bottom + FOLLOW_STEP - 1 - height)

    def _scroll_to_line(self, y: int) -> None:
        self._floor = min(y, 0)
        self.scroll_target_y = self.scroll_y = y

    def validate_scroll_y(self, value: float) -> float:
        return max(value, self._floor) if value < 0 else super().validate_scroll_y(value)

    def validate_scroll_target_y(self, value: float) -> float:
        return max(value, self._floor) if value < 0 else super().validate_scroll_target_y(value)
