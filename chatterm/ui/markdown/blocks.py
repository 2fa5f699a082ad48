"""How streamed Markdown is cut into blocks, and drawn: the block grammar the views need (fences, list items,
quotes), and Rich's Markdown renderer with one shared parser."""

from __future__ import annotations

import copy
import functools
import re
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.segment import Segment
from textual.strip import Strip

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ITEM = re.compile(r"^ {0,3}([-*+] |\d+[.)] |>)", re.MULTILINE)
"""A list item or a quote: a next block starting like this may continue the one before, and so may an indented
block after a list or quote. Anything else starts afresh, so what came before can be frozen."""

ITEM_START = re.compile(r" {0,3}([-*+]|\d{1,9}[.)])[ \t]+(\S)")
"""A line that starts a list item with some text, where the tail may be split (see `_render_tail`)."""
RULE_LIKE = re.compile(r"[-*_ \t]*")
"""A line that more text could still turn into a thematic break ("- - -"), not a list item."""


@functools.cache
def markdown_parts(code_theme: str) -> tuple[Markdown, MarkdownIt]:
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown  # imported after the first frame (see ui.app)

    return Markdown("", code_theme=code_theme), MarkdownIt().enable("strikethrough").enable("table")


WARM_LANGUAGES = ("python", "javascript", "typescript", "bash", "json")
"""The languages answers show code in most, whose highlighters `warm_up` prepares."""


def warm_up(languages: tuple[str, ...] = WARM_LANGUAGES) -> None:
    """Prepare the code highlighters of the commonest languages, in a thread after start-up: Pygments compiles a
    language's regular expressions the first time its lexer is made, which would otherwise hold the frame that
    draws an answer's first code block in that language."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    for language in languages:
        try:
            get_lexer_by_name(language)
        except ClassNotFound:  # pragma: no cover - a Pygments without it
            continue


def markdown(text: str, code_theme: str) -> RenderableType:
    """Rich's Markdown of `text` with one shared markdown-it parser, configured as Rich configures its own: Rich
    builds a parser per instance, two thirds of the cost of making one, and the block being written is drawn 20
    times a second."""
    template, parser = markdown_parts(code_theme)
    markdown = copy.copy(template)
    markdown.markup = text
    markdown.parsed = parser.parse(text)
    return markdown


def last_item(text: str) -> int:
    """Where the last line that starts a list item begins, after the first line and outside code fences (0: none);
    not a line that more text could turn into a thematic break ("- - -")."""
    at = offset = 0
    in_fence = False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and at and (item := ITEM_START.match(line)):
            offset = at if not RULE_LIKE.fullmatch(line[item.start(2) :].rstrip("\n")) else offset
        at += len(line)
    return offset


def starts_item(text: str, line: int) -> bool:
    """Whether an item of a list that is not inside another block starts at `line` of `text`."""
    _, parser = markdown_parts("default")
    return any(
        token.type == "list_item_open" and token.level == 1 and token.map and token.map[0] == line
        for token in parser.parse(text)
    )


def same_drawing(lines: list[Strip], others: list[Strip]) -> bool:
    """Whether two renders draw the same (Rich may cut a run of same-styled text into segments differently)."""
    return len(lines) == len(others) and all(a.simplify() == b.simplify() for a, b in zip(lines, others, strict=True))


def without_blank_end(lines: list[list[Segment]]) -> list[list[Segment]]:
    """`lines` less the blank lines at their end (not a code block's padding, which has a background)."""
    while lines and all(not seg.text.strip() and not (seg.style and seg.style.bgcolor) for seg in lines[-1]):
        lines.pop()
    return lines
