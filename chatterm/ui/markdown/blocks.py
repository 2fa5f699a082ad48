"""How streamed Markdown is drawn: Rich's Markdown renderer with one shared parser, told what the text before a
piece leaves it (the link definitions of the whole text, and whether a blank line goes before its first block), and
the list items the view renders alone."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.segment import Segment
from textual.strip import Strip

from chatterm.ui.markdown.cuts import block_parser, ended, fenced_lines

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from rich.markdown import Markdown

References = dict[str, dict[str, Any]]
"""Link reference definitions as markdown-it keeps them: the normalised label, and its href and title."""

ITEM_START = re.compile(r" {0,3}([-*+]|\d{1,9}[.)])[ \t]+(\S)")
"""A line that starts a list item with some text, where the tail may be split (see `MarkdownView._render_tail`)."""
RULE_LIKE = re.compile(r"[-*_ \t]*")
"""A line that more text could still turn into a thematic break ("- - -"), not a list item."""


@functools.cache
def markdown_parts(code_theme: str) -> tuple[Markdown, MarkdownIt]:
    from markdown_it import MarkdownIt

    from chatterm.ui.markdown.elements import ChatMarkdown  # (Rich's Markdown: imported after the first frame)

    return ChatMarkdown("", code_theme=code_theme), MarkdownIt().enable("strikethrough").enable("table")


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


def markdown(text: str, code_theme: str, references: References | None = None) -> Markdown:
    """Rich's Markdown of `text` with one shared markdown-it parser, configured as Rich configures its own: Rich
    builds a parser per instance, two thirds of the cost of making one, and the block being written is drawn up to
    20 times a second.

    `text` may be a piece of a longer text, cut between top-level blocks: markdown-it resolves reference links only
    against the definitions of the text it parses, so it is given those of the whole text (`references`, the first
    definition of a label winning, as markdown-it keeps them)."""
    from chatterm.ui.markdown.elements import tasks_and_urls

    template, parser = markdown_parts(code_theme)
    markdown = copy.copy(template)
    markdown.markup = text
    markdown.parsed = parser.parse(ended(text), {"references": dict(references)} if references else {})
    tasks_and_urls(markdown.parsed)
    if "kbd>" in text:
        for token in markdown.parsed:
            if token.children:
                token.children = balanced_kbd(token.children)
    return markdown


def balanced_kbd(tokens: list[Token]) -> list[Token]:
    """Inline tokens with their `<kbd>` tags paired: Rich styles the text between them as a key, and an unpaired
    closing tag pops a style it never pushed (Rich fails), an unpaired opening one leaves its style on what follows.
    A closing tag with no opening one is dropped, and an opening one left open is closed at the end of its block."""
    from markdown_it.token import Token

    paired: list[Token] = []
    depth = 0
    for token in tokens:
        if token.type == "html_inline" and token.content in ("<kbd>", "</kbd>"):
            if token.content == "</kbd>" and not depth:
                continue
            depth += 1 if token.content == "<kbd>" else -1
        paired.append(token)
    paired.extend(Token("html_inline", "", 0, content="</kbd>") for _ in range(depth))
    return paired


def is_markdown(renderable: RenderableType) -> bool:
    """Whether `renderable` is Rich's Markdown (imported here: see `markdown_parts`)."""
    from rich.markdown import Markdown

    return isinstance(renderable, Markdown)


def follow_blocks(markdown: Markdown) -> None:
    """Draw `markdown` as it is drawn after blocks that ask for a blank line before the next (`after_blocks`): Rich
    puts that line before a block when the block before it asks, and an empty HTML block, which Rich draws as nothing
    but which asks for it, stands for them."""
    from markdown_it.token import Token

    markdown.parsed.insert(0, Token("html_block", "", 0))


def after_blocks(tokens: list[Token], after: bool) -> bool:
    """Whether Rich draws a blank line before the block after these (the piece's own tokens; `after`: what came
    before them): every top-level block asks for one but a thematic break, which draws its own."""
    last = next((token for token in reversed(tokens) if token.level == 0), None)
    return after if last is None else last.type != "hr"


def definitions(text: str) -> References:
    """The link reference definitions of `text`, by normalised label (the first of a label wins)."""
    if "]:" not in text:  # (a definition has its label's bracket right before a colon)
        return {}
    env: dict[str, Any] = {}
    block_parser().parse(ended(text), env)
    return dict(env.get("references", {}))


def changed_labels(old: References, new: References) -> set[str]:
    """The labels defined in one and not the other, or defined differently."""
    return {
        label
        for label in old.keys() | new.keys()
        if (old.get(label) or {}).get("href") != (new.get(label) or {}).get("href")
        or (old.get(label) or {}).get("title") != (new.get(label) or {}).get("title")
    }


def uses_labels(text: str, labels: set[str]) -> bool:
    """Whether `text` may refer to one of these labels: a label in brackets, as markdown-it normalises both."""
    if not labels or "[" not in text:
        return False
    from markdown_it.common.utils import normalizeReference

    plain = normalizeReference(text)
    return any(re.search(r"\[ ?" + re.escape(label) + r" ?\]", plain) for label in labels)


def last_item(text: str) -> int:
    """Where the last line that starts a list item begins, after the first line and outside code fences (0: none);
    not a line that more text could turn into a thematic break ("- - -")."""
    at = offset = 0
    for line, fenced in fenced_lines(text):
        if not fenced and at and (item := ITEM_START.match(line)):
            offset = at if not RULE_LIKE.fullmatch(line[item.start(2) :].rstrip("\r\n")) else offset
        at += len(line)
    return offset


def widens_numbers(item: str, later: int) -> bool:
    """Whether an ordered list's numbers get wider when `later` items follow `item`, its last so far: Rich pads
    every number to that of the item after the last, so 9 items starting at 1 are as wide as 10. One append may
    bring several items, and any of them may be the one that widens."""
    marker = ITEM_START.match(item)
    if marker is None or not marker.group(1)[0].isdigit():
        return False
    number = int(marker.group(1)[:-1])
    return len(str(number + 1)) != len(str(number + later + 1))


def item_starts(tokens: list[Token]) -> list[int]:
    """The lines where the items of lists that are not inside other blocks start, in the text of these tokens."""
    return [token.map[0] for token in tokens if token.type == "list_item_open" and token.level == 1 and token.map]


def same_drawing(lines: list[Strip], others: list[Strip]) -> bool:
    """Whether two renders draw the same (Rich may cut a run of same-styled text into segments differently)."""
    return len(lines) == len(others) and all(a.simplify() == b.simplify() for a, b in zip(lines, others, strict=True))


def is_blank(line: list[Segment]) -> bool:
    """Whether a rendered line is blank (not a code block's padding, which has a background)."""
    return all(not seg.text.strip() and not (seg.style and seg.style.bgcolor) for seg in line)


def without_blank_end(lines: list[list[Segment]]) -> list[list[Segment]]:
    """`lines` less the blank lines at their end."""
    while lines and is_blank(lines[-1]):
        lines.pop()
    return lines


class Drawn(list[Strip]):
    """The lines of a piece of Markdown as one render of the whole text draws them: with the blank lines Rich puts
    between blocks, and at the end of the piece (dropped only at the end of the whole text: `blank` says which lines
    are blank), and whether the piece asks for a blank line before the next block (`after`)."""

    def __init__(self, lines: Iterable[Strip], blank: list[bool], after: bool) -> None:
        super().__init__(lines)
        self.blank = blank
        self.after = after

    def blank_end(self) -> int:
        """How many lines at its end are blank."""
        count = 0
        while count < len(self.blank) and self.blank[-1 - count]:
            count += 1
        return count
