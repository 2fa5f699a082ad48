"""Where Rich's word wrap breaks a line, for the reasoning view's incremental wrap.

Rich's `divide_line` (private) gives the offsets where a line of text is broken to fit a width, exactly as
`Text.wrap` breaks it. Without it (the stock path) the reasoning view keeps only whole source lines and wraps the
last one whole.
"""

from __future__ import annotations

from chatterm.ui.render.support import custom_rendering


def line_breaks(text: str, width: int) -> list[int] | None:
    """The offsets in `text` (one line, no tabs) where Rich's word wrap starts a new line at `width`; None when
    that is not known here (the stock path)."""
    if not custom_rendering():
        return None
    from rich._wrap import divide_line

    return list(divide_line(text, max(width, 1)))
