"""Where streamed Markdown can be cut: after the blocks that no text written after them can change.

The view draws the text before a cut once and the text after it on its own. That draws what one render of the
whole draws when the cut falls between top-level blocks (Rich draws each from its own tokens, the blocks before
telling it only their link definitions and whether a blank line comes first: `blocks.markdown`), and it stays so
whatever comes next when the block before the cut is closed for good: a heading, a closed fence or a thematic break
at the end of its line; anything after a blank line, but a list or indented code, which the next line may continue
(an indented line, or another item) and so are closed only once that line shows it does not.

Whether a block spans a line is markdown-it's answer, from its block rules alone (`blocks.block_parser`), so a
fence that shows another fence, an HTML comment with blank lines in it or a list item's second paragraph keep
their blocks whole; lines end as CommonMark ends them (LF, CRLF or CR), and a blank line holds only spaces and tabs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")
"""A line of Markdown with its line end (CommonMark's: LF, CRLF or CR), or the unfinished last line."""
BLANK = re.compile(r"[ \t]*(?:\r\n?|\n)")
"""A complete blank line (spaces and tabs only: other white space is text to Markdown)."""
OPENER = re.compile(r" {0,3}(`{3,}(?=[^`\r\n]*(?:\r\n?|\n|$))|~{3,})")
"""A line that opens a code fence (a backtick fence's info string has no backtick)."""
CLOSER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*(?:\r\n?|\n|$)")
ENDS_ITS_BLOCK = re.compile(r" {0,3}(?:#{1,6}(?:[ \t]|\r|\n|$)|`{3,}|~{3,}|[-*_=])")
"""A line that may end its block by itself (an ATX heading, a fence's close, a thematic break, a setext
underline): only after such lines, or blank ones, is there a cut to look for."""
UNDECIDED = " \t-*+0123456789"
"""First characters of a line that may still continue a list or indented code (indented, or another item)."""
CONTINUABLE = {"bullet_list_open", "ordered_list_open", "code_block"}
SELF_CLOSED = {"heading_open", "fence", "hr"}


@functools.cache
def block_parser() -> MarkdownIt:
    """A parser configured as Rich's but without its inline rules: the blocks of a text and its link definitions,
    at a fraction of the cost."""
    from markdown_it import MarkdownIt  # (imported after the first frame, as Rich's Markdown is: see ui.app)

    parser = MarkdownIt().enable("strikethrough").enable("table")
    parser.disable("inline")
    return parser


def ended(text: str) -> str:
    """`text` with a line end at its end: the same document to CommonMark, and markdown-it (4.3) fails on some texts
    that end without one (a quote whose last line is ">" after an HTML block in a list item), which a stream
    passes through."""
    return text if not text or text[-1] in "\r\n" else text + "\n"


def lines(text: str) -> list[str]:
    """`text` cut into lines as Markdown cuts it, each with its line end (the last one may have none)."""
    return LINE.findall(text)


def lines_before(text: str, offset: int) -> int:
    """The number of the line `offset` falls in (counted from 0)."""
    return len(lines(text[:offset]))


def blank_cut(text: str) -> int:
    """Where the text after the last complete blank line of `text` starts (0: none): where plain text is cut."""
    at = cut = 0
    for line in lines(text):
        at += len(line)
        if line.endswith("\n") and not line.strip():
            cut = at
    return cut


def fenced_lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of `text`, and whether it belongs to a code fence at the top level (its opening and closing
    lines included): a fence closes only on a line of its own character, at least as long, with nothing after."""
    fence = ""
    for line in lines(text):
        if fence:
            close = CLOSER.match(line)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                fence = ""
            yield line, True
        elif opener := OPENER.match(line):
            fence = opener.group(1)
            yield line, True
        else:
            yield line, False


def settled(text: str) -> int:
    """How far from its start `text` is whole top-level blocks that nothing written after `text` can change (0:
    no such cut yet). The cut falls at the start of a line."""
    found = lines(text)
    candidates = [
        index + 1
        for index, line in enumerate(found)
        if line[-1] in "\r\n" and (BLANK.fullmatch(line) or ENDS_ITS_BLOCK.match(line))
    ]
    if not candidates:
        return 0
    blocks = [
        (token.map[0], token.map[1], token.type)
        for token in block_parser().parse(ended(text))
        if token.level == 0 and token.nesting >= 0 and token.map
    ]
    for cut in reversed(candidates):
        if _closed_at(cut, blocks, found):
            return sum(len(line) for line in found[:cut])
    return 0


def _closed_at(cut: int, blocks: list[tuple[int, int, str]], found: list[str]) -> bool:
    """Whether the blocks before line `cut` are all there will be before it, whatever is written next."""
    if any(start < cut < end for start, end, _ in blocks):
        return False
    before = [block for block in blocks if block[1] <= cut]
    if not before:
        return any(line.strip(" \t\r\n") for line in found[:cut])  # (link definitions only)
    start, end, kind = before[-1]
    if not BLANK.fullmatch(found[cut - 1]):  # the block ends on this line: only if it always does
        closes = kind != "fence" or _closes_fence(found[start], found[cut - 1], end - start)
        return end == cut and kind in SELF_CLOSED and closes
    if kind in CONTINUABLE:
        following = next((line for line in found[end:] if not BLANK.fullmatch(line)), "")
        return bool(following) and (following[-1] in "\r\n" or following[0] not in UNDECIDED)
    return end < cut  # (a block that holds the blank line before the cut is open: a fence, an HTML comment)


def _closes_fence(opener: str, line: str, length: int) -> bool:
    """Whether `line` closes the fence `opener` opens (`length`: the fence's lines so far)."""
    fence, close = OPENER.match(opener), CLOSER.match(line)
    return (
        length > 1
        and fence is not None
        and close is not None
        and close.group(1)[0] == fence.group(1)[0]
        and len(close.group(1)) >= len(fence.group(1))
    )
