"""Reads and writes of widget state that Textual keeps private, each with its stock equivalent.

- `relayout`: Textual caches a widget's box model until the widget's layout counter moves, and a layout request
  made while an earlier one is still pending does not move it; if the screen lays out in between (another widget
  asked), the height it cached then is kept. A text view that changes height several times between frames (a whole
  answer arriving at once: grown, then fitted) needs every request to count.
- `anchor_held`: Textual's anchor keeps a view at its end until the reader scrolls away ("released"), and only the
  public half (`is_anchored`) is exposed.
- `install_compositor`, `vertical_scrollbar`: the screen's compositor and a view's scrollbar are made by Textual
  itself; chatterm's are put in their place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual.scrollbar import ScrollBar
from textual.widget import Widget

from chatterm.ui.render.support import custom_rendering

if TYPE_CHECKING:
    from textual.screen import Screen

    from chatterm.ui.render.compositor import MendedCompositor


def relayout(widget: Widget) -> None:
    """Ask for a layout of `widget` that measures it again, even if a request is already pending. (The stock path
    asks twice: now, and again once the pending request is handled, which moves the counter at the cost of a
    second layout.)"""
    if custom_rendering():
        widget._layout_required = False  # (so that the layout counter moves)
        widget.refresh(layout=True)
        return
    widget.refresh(layout=True)
    widget.call_after_refresh(widget.refresh, layout=True)


def anchor_held(widget: Widget) -> bool:
    """The view is anchored to its end and the reader has not scrolled away from it."""
    if not widget.is_anchored:
        return False
    if custom_rendering():
        return not widget._anchor_released
    return widget.scroll_y >= widget.max_scroll_y


def moved_by_anchor(widget: Widget) -> bool:
    """Textual's compositor will move the widget to its end as it lays it out (anchored, anchor not let go)."""
    return widget.is_anchored and not getattr(widget, "_anchor_released", True)


CompositorType = TypeVar("CompositorType", bound="MendedCompositor")


def let_go_of_anchor(widget: Widget) -> None:
    """Release the widget's anchor (the reader scrolled away from its end) without touching its scroll target, so a
    scroll under way keeps its course. (The stock path releases it as Textual does, target and all.)"""
    if custom_rendering():
        widget._anchor_released = True
    else:
        Widget.release_anchor(widget)


def install_compositor(screen: Screen[Any], compositor: Callable[[], CompositorType]) -> CompositorType | None:
    """Draw `screen` with a compositor made by `compositor`; None (Textual's own kept) on the stock path."""
    if not custom_rendering():
        return None
    made = compositor()
    screen._compositor = made
    return made


def vertical_scrollbar(widget: Widget, make: Callable[[], ScrollBar]) -> ScrollBar | None:
    """The widget's vertical scrollbar made by `make`, created and started as Textual starts its own; None on the
    stock path (the caller then asks Textual for its own)."""
    if not custom_rendering():
        return None
    if widget._vertical_scrollbar is None:
        bar = make()
        bar.display = False
        widget._vertical_scrollbar = bar
        widget.app._start_widget(widget, bar)
    return widget._vertical_scrollbar
