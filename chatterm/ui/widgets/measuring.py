"""Measuring the messages far out of sight after a change of width or theme, a slice at a time.

A new width draws every message of the conversation again, and a new theme's colours too: in a long conversation,
more than a frame can hold. While the conversation keeps to its end, the messages more than OUT_OF_SIGHT screens
above what shows keep their old height for that frame (`can_wait`) and are measured after it, nearest first, a
slice at a time, so that frames and keys come in between (`measure_later`).
"""

from __future__ import annotations

import time

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget

from chatterm.ui.markdown.view import MarkdownView

OUT_OF_SIGHT = 2
"""Screen heights above what shows beyond which a finished message is measured after a change of width, not in it."""
MEASURE_SLICE = 0.02
"""Seconds of measuring between frames (and keys) while messages out of sight are measured."""


class MeasuredLater(VerticalScroll):
    """A scrolling view of messages whose text views may be measured after the frame (the `Follower` half that
    concerns widths and themes)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._waiting: dict[MarkdownView, None] = {}
        """Text views to be measured (`MarkdownView.measure`), in the order they were laid out or restyled: the last
        is the nearest to what shows."""
        self._below: tuple[tuple[int, Size, int], dict[Widget, int]] = ((0, Size(0, 0), 0), {})
        """The height of the messages after each message, and when it was worked out."""

    @property
    def _keeps_end(self) -> bool:
        """Whether the view keeps to its end (the conversation says: following an answer, or anchored there)."""
        return False

    def can_wait(self, view: MarkdownView) -> bool:
        """Whether a finished text view may keep its old height at a new width and be measured after the frame: only
        while the view keeps to its end, and only the views of messages more than OUT_OF_SIGHT screens above it;
        what shows, and near it, is laid out exactly."""
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
        """Measure the waiting views, nearest to what shows first, a slice at a time. If the reader left the end
        meanwhile, those whose height is still the old one are measured at once (the content moves once, as when
        every view was measured in the resize)."""
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
