"""A list at the end of the streaming text, drawn an item at a time.

The block being written is drawn again at every append, and a list is one block: drawn whole, a long list would
cost more with every item. But text after the start of an item cannot change the items before it, and Rich draws
each item of a list from its own text alone, so the lines of the items before the last are kept and only the last
is drawn again. That the last item alone is drawn as it is in the whole list is checked when it starts (Rich has
quirks: a blank line before a list, numbers counted from the list's start rather than as written and padded to the
widest, an item that is not one); if it is not, the list is drawn whole until its next item.

The check draws the whole list, once per item: for a long list, the item before is checked instead, drawn with the
new one alone and together (one list, numbered on), and its lines join those kept; numbers that get a digit wider
redraw every item, and then the whole is drawn. An image is drawn before the list it is in, not in its item: a
last item with one is drawn with its whole list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatterm.ui.markdown.blocks import ITEM_START, Drawn, item_starts, last_item, same_drawing, widens_numbers
from chatterm.ui.markdown.cuts import line_offset, lines_before

if TYPE_CHECKING:
    from rich.markdown import Markdown

NONE = (-1, -1)


class LastItem:
    """Where the last item of the text being written starts (where that text starts in the source, the item's
    offset in it), and if it is drawn alone: the lines before it and how many of its first lines to leave out (the
    blank line Rich draws before a list)."""

    def __init__(self, parse: Callable[[str], Markdown], draw: Callable[[Markdown, bool], Drawn]) -> None:
        self.parse = parse
        """Markdown of a piece of the text."""
        self.draw = draw
        """Its lines, drawn after blocks that ask for a blank line before the next or not."""
        self.at = NONE
        self.kept: tuple[Drawn, int] | None = None

    def forget(self) -> None:
        self.at, self.kept = NONE, None

    def tail(self, tail: str, start: int, after: bool) -> Drawn | None:
        """The lines of `tail`, which starts at `start` in the source after blocks that ask for a blank line or not
        (`after`), if it ends in a list item: drawn alone after the kept lines, or drawn whole to check it (None:
        draw the tail whole)."""
        (at, offset), kept = self.at, self.kept
        if kept is not None and at == start:
            item = self.parse(tail[offset:])
            items = item_starts(item.parsed)
            if len(items) == 1 and (lines := self._with_kept(item)) is not None:
                return lines
            if len(items) > 1:  # (the next item has started: drawn alone once it has text)
                following = offset + line_offset(tail[offset:], items[-1])
                later = len(items) - 1
                if ITEM_START.match(tail, following):
                    return self._next(tail, start, following, later) or self._check(tail, start, following, after)
                if not widens_numbers(tail[offset:], later):  # (drawn as nothing yet: with the item before)
                    return self._with_kept(item)
        elif (offset := last_item(tail)) and (start, offset) != self.at:
            return self._check(tail, start, offset, after)
        return None

    def block(self, block: str, start: int) -> Drawn | None:
        """The lines of `block`, the tail or its start, frozen: the last item drawn alone after the kept lines, if
        `block` ends with it and the blocks after its list (None: draw it whole)."""
        (at, offset), kept = self.at, self.kept
        if kept is not None and at == start and offset < len(block):
            item = self.parse(block[offset:])
            if len(item_starts(item.parsed)) == 1:
                return self._with_kept(item)
        return None

    def _with_kept(self, item: Markdown) -> Drawn | None:
        """The kept lines and the item's (None, and nothing kept any more, if it is drawn as nothing or has an
        image)."""
        assert self.kept is not None
        head, drop = self.kept
        lines = self.draw(item, False) if "![" not in item.markup else Drawn([], [], False)
        if len(lines) <= drop or (drop and not lines.blank[0]):
            self.kept = None  # (drawn as nothing now: a link definition, an HTML comment)
            return None
        return Drawn([*head, *lines[drop:]], [*head.blank, *lines.blank[drop:]], lines.after)

    def _check(self, tail: str, start: int, offset: int, after: bool) -> Drawn:
        """The whole tail's lines, an item having started at `offset`: whether the item alone draws the last of
        them decides whether it is drawn alone from now on."""
        self.at, self.kept = (start, offset), None
        markdown = self.parse(tail)
        whole = self.draw(markdown, after)
        if "![" in tail[offset:]:
            return whole
        item = self.draw(self.parse(tail[offset:]), False)
        drop = 1 if item and item.blank[0] else 0
        own = len(item) - drop
        alike = 0 < own <= len(whole) and same_drawing(item[drop:], whole[len(whole) - own :])
        if alike and lines_before(tail, offset) in item_starts(markdown.parsed):
            cut = len(whole) - own
            self.kept = (Drawn(whole[:cut], whole.blank[:cut], whole.after), drop)
        return whole

    def _next(self, tail: str, start: int, offset: int, later: int) -> Drawn | None:
        """The tail's lines when its last item, at `offset`, follows the item drawn alone (`later` items after it),
        drawn alone in turn (None: check the whole)."""
        (_, previous), kept = self.at, self.kept
        if kept is None or widens_numbers(tail[previous:], later) or "![" in tail[previous:]:
            return None
        head, drop = kept
        pair = self.parse(tail[previous:])
        both = self.draw(pair, False)
        before, item = self.draw(self.parse(tail[previous:offset]), False), self.draw(self.parse(tail[offset:]), False)
        if len(before) <= drop or len(item) <= drop:  # (an item drawn as nothing shows no number)
            return None
        starts = [part.blank[0] if part else False for part in (both, before, item)]
        alike = starts == [bool(drop)] * 3 and same_drawing(both[drop:], [*before[drop:], *item[drop:]])
        if not alike or lines_before(tail[previous:], offset - previous) not in item_starts(pair.parsed):
            return None
        head = Drawn([*head, *before[drop:]], [*head.blank, *before.blank[drop:]], head.after)
        self.at, self.kept = (start, offset), (head, drop)
        return Drawn([*head, *item[drop:]], [*head.blank, *item.blank[drop:]], item.after)
