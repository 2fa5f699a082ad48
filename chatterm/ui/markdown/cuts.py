"""Where streamed Markdown can be cut: after the blocks that no text written after them can change.

The view draws the text before a cut once and the text after it on its own. That draws what one render of the
whole draws when the cut falls between top-level blocks (Rich draws each from its own tokens, the blocks before
telling it only their link definitions and whether a blank line comes first: `blocks.markdown`), and it stays so
whatever comes next when the block before the cut is closed for good: a heading, a closed fence or a thematic break
at the end of its line; anything after a blank line, but a list or indented code, which the next line may continue
(an indented line, or another item) and so are closed only once that line shows it does not.

Whether a block spans a line is markdown-it's answer, from its block rules alone (`block_parser`), so a
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
ENDS_ITS_BLOCK = re.compile(r" {0,3}(?:#{1,6}(?:[ \t]|\r|\n|$)|(?:`{3,}|~{3,}|[-*_=][-*_= \t]*)[ \t]*(?:\r\n?|\n|$))")
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


def line_offset(text: str, line: int) -> int:
    """Where line `line` of `text` (counted from 0) starts."""
    return sum(len(each) for each in lines(text)[:line])


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


def may_settle(text: str, start: int) -> bool:
    """Whether text appended at `start` of `text` may make a cut (`settled`): it completes a blank line or a line
    that may end its block, or completes the line after a blank one or writes a first character of it that shows
    a list or indented code does not go on. Other appends cannot, and are not worth parsing the text for."""
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    if line_start < start and "\n" not in text[start:] and "\r" not in text[start:]:
        return False  # (more of a line already started)
    before = text[: line_start - (2 if text.endswith("\r\n", 0, line_start) else 1)] if line_start else ""
    blank_before = not before[max(before.rfind("\n"), before.rfind("\r")) + 1 :].strip(" \t")
    at = line_start
    for line in lines(text[line_start:]):
        complete = line[-1] in "\r\n"
        if complete and at + len(line) > start and (BLANK.fullmatch(line) or ENDS_ITS_BLOCK.match(line)):
            return True
        decided = at >= start and line[0] not in UNDECIDED  # (the first character shows the line starts a block)
        if blank_before and line.strip(" \t\r\n") and (decided or (complete and at + len(line) > start)):
            return True
        blank_before, at = complete and not line.strip(" \t\r\n"), at + len(line)
    return False


def settled(text: str, floor: int = 0) -> tuple[int, int]:
    """How far from its start `text` is whole top-level blocks that nothing written after `text` can change (0:
    no such cut yet; a cut falls at the start of a line), and the line to look from next time.

    Only the text from `floor` on is looked at: a line no cut can ever come before. With no cut, the next such line
    is the start of the last top-level block, or of the last item of a list, once that line is complete: the blocks
    before it are not final (else they would be cut), and that does not change, since no later text undoes a block
    spanning a line, and whether the blocks before a block are final is decided by lines up to its first. The text
    from there parses as it does in the whole: a list's item is the first of a list of its kind."""
    found = lines(text[floor:])
    candidates = [
        index + 1
        for index, line in enumerate(found)
        if line[-1] in "\r\n" and (BLANK.fullmatch(line) or ENDS_ITS_BLOCK.match(line))
    ]
    if not candidates:
        return 0, floor
    blocks = top_blocks(text[floor:])
    for cut in reversed(candidates):
        if _closed_at(cut, blocks, found):
            return floor + sum(len(line) for line in found[:cut]), 0
    complete = [start for start, _, _ in blocks if start < len(found) and found[start][-1] in "\r\n"]
    return 0, floor + sum(len(line) for line in found[: max(complete, default=0)])


def top_blocks(text: str) -> list[tuple[int, int, str]]:
    """The top-level blocks of `text`, and the items of a top-level list (kind "item"): the lines they start and
    end at, and their kinds (markdown-it's opening token types)."""
    blocks = []
    for token in block_parser().parse(ended(text)):
        if token.map and token.nesting >= 0 and token.level == 0:
            blocks.append((token.map[0], token.map[1], token.type))
        elif token.map and token.type == "list_item_open" and token.level == 1:
            blocks.append((token.map[0], token.map[1], "item"))
    return blocks


def _closed_at(cut: int, blocks: list[tuple[int, int, str]], found: list[str]) -> bool:
    """Whether the blocks before line `cut` are all there will be before it, whatever is written next."""
    blocks = [block for block in blocks if block[2] != "item"]
    if any(start < cut < end for start, end, _ in blocks):
        return False
    before = [block for block in blocks if block[1] <= cut]
    if not before:  # (link definitions only, ended by a blank line)
        return bool(BLANK.fullmatch(found[cut - 1])) and any(line.strip(" \t\r\n") for line in found[:cut])
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
