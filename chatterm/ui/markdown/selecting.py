"""Mouse selection in a text view: the selected span drawn in the screen's selection style, and the selected text.

Textual's selection API works in content offsets: a line's segments carry their line and character index
(`Strip.apply_offsets`), the screen turns the mouse position into such offsets (`Selection`), and asks the widget
for the text between them (`get_selection`) and to draw the span it covers (`Selection.get_span`). A view's lines
are Rich's, padded to the view's width: the padding at the end of a line is neither highlighted nor copied.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.selection import Selection
from textual.strip import Strip


def selected_text(lines: list[str], selection: Selection) -> str:
    """The text of `lines` (as drawn, one string per line) that `selection` covers, without the padding at the end
    of each line."""
    if not lines:
        return ""
    start_y, start_x = (0, 0) if selection.start is None else (selection.start.y, selection.start.x)
    end_y, end_x = (len(lines) - 1, -1) if selection.end is None else (selection.end.y, selection.end.x)
    if end_y >= len(lines):
        end_y, end_x = len(lines) - 1, -1
    picked = []
    for y in range(max(start_y, 0), end_y + 1):
        line = lines[y]
        start = start_x if y == start_y else 0
        end = end_x if y == end_y and end_x >= 0 else len(line)
        picked.append(line[start:end].rstrip())
    return "\n".join(picked)


def highlighted(line: Strip, span: tuple[int, int], style: Style) -> Strip:
    """`line` with the characters from `span[0]` to `span[1]` (-1: to the end of its text) drawn in `style` on top
    of their own."""
    text = line.text
    start, end = span
    end = len(text.rstrip()) if end < 0 else min(end, len(text.rstrip()))
    if start >= end:
        return line
    segments: list[Segment] = []
    at = 0
    for segment in line:
        piece, piece_style, control = segment
        after = at + len(piece)
        if control or after <= start or at >= end:
            segments.append(segment)
        else:
            cut_from, cut_to = max(start - at, 0), min(end - at, len(piece))
            if cut_from:
                segments.append(Segment(piece[:cut_from], piece_style))
            chosen = piece_style + style if piece_style else style
            segments.append(Segment(piece[cut_from:cut_to], chosen))
            if cut_to < len(piece):
                segments.append(Segment(piece[cut_to:], piece_style))
        at = after
    return Strip(segments, line.cell_length)
