"""Rich's Markdown with the elements an answer needs drawn otherwise.

- an ordered list keeps its delimiter (`1.` or `1)`, as written), numbered and padded as Rich numbers it;
- a task list item shows a box (☐, or ☑ checked) instead of its raw `[ ]` (`tasks_and_urls`);
- a link shows its URL after its text, dimmed, when the text is not the URL (`tasks_and_urls`): terminals that do
  not follow hyperlinks, and a copy of the text, keep where it points;
- a quote is a bar in the theme's primary colour before muted text;
- a table cell folds a word wider than its column onto the next lines, where Rich cuts it short with an ellipsis
  (code in a table at a narrow terminal lost its middle);
- a code block has the theme's surface as its background, and a line too long for the width is wrapped under its
  own indent, two columns in (a hanging indent), so the code's shape stays readable.

The changes to the tokens are made on the parsed text (`blocks.markdown`), so a piece of a text drawn alone draws as
it does in the whole text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from markdown_it.common.normalize_url import normalizeLinkText
from markdown_it.token import Token
from rich import markdown as rich_markdown
from rich.cells import cell_len
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

TASK = re.compile(r"\[([ xX])\](?= |$)")
"""A task list item's box, at the start of its text."""
TAB_SIZE = 4
HANG = 2
"""Columns a wrapped code line's continuation starts after the line's indent."""
CODE_TOP = Style.from_meta({"code": True})
"""Marks the blank line at the top of a code block, where the view shows the block's number (`codes`)."""


class OrderedList(rich_markdown.ListElement):
    """A list; an ordered one numbered with its delimiter."""

    @classmethod
    def create(cls, markdown: rich_markdown.Markdown, token: Token) -> OrderedList:
        made = cls(token.type, int(token.attrs.get("start", 1)))
        made.delimiter = token.markup if token.type == "ordered_list_open" else ""
        return made

    delimiter = "."

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.list_type == "bullet_list_open":
            for item in self.items:
                yield from item.render_bullet(console, options)
            return
        number = 1 if self.list_start is None else self.list_start
        last_number = number + len(self.items)
        for index, item in enumerate(self.items):
            yield from numbered(item, console, options, f"{number + index}{self.delimiter}", last_number)


def numbered(
    item: rich_markdown.ListItem, console: Console, options: ConsoleOptions, numeral: str, last_number: int
) -> RenderResult:
    """An item of an ordered list, its numeral right-aligned to the widest the list may have."""
    number_width = len(str(last_number)) + len(numeral) - len(numeral.rstrip(".)")) + 2
    lines = console.render_lines(
        item.elements, options.update(width=options.max_width - number_width), style=item.style
    )
    number_style = console.get_style("markdown.item.number", default="none")
    first, padding = Segment(numeral.rjust(number_width - 1) + " ", number_style), Segment(" " * number_width)
    for index, line in enumerate(lines):
        yield first if index == 0 else padding
        yield from line
        yield Segment.line()


class Quote(rich_markdown.BlockQuote):
    """A quote: a bar in its own colour (`markdown.block_quote.border`) before the quoted text."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.elements, options.update(width=options.max_width - 2), style=self.style)
        bar = Segment("▌ ", console.get_style("markdown.block_quote.border", default="none"))
        for line in lines:
            yield bar
            yield from line
            yield Segment.line()


class Code(rich_markdown.CodeBlock):
    """A code block on the theme's surface; long lines wrap under their indent (`wrapped`)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        background = console.get_style("markdown.code_block", default="none")
        colour = background.bgcolor.name if background.bgcolor is not None else None
        syntax = Syntax(code, self.lexer_name, theme=self.theme, background_color=colour)
        text = syntax.highlight(code=code)  # (Pygments tokens of the code: never read as markup)
        text.expand_tabs(TAB_SIZE)
        width = max(options.max_width - 2, 1)
        lines: list[Text] = []
        for line in text.split("\n", allow_blank=True):
            lines.extend(wrapped(line, width))
        body = Text("\n", end="", no_wrap=True).join(lines)
        body.no_wrap, body.overflow = True, "crop"
        yield Segment(" " * options.max_width, syntax.background_style + CODE_TOP)  # (where its number goes)
        yield Segment.line()
        yield Padding(body, (0, 1, 1, 1), style=syntax.background_style, expand=True)


def wrapped(line: Text, width: int) -> list[Text]:
    """`line` cut to fit `width`, preferably after a space; the lines after the first start under its indent, HANG
    columns in (at most half the width)."""
    if line.cell_len <= width:
        return [line]
    plain = line.plain
    hang = min(len(plain) - len(plain.lstrip(" ")) + HANG, width // 2)
    breaks, start, room = [], 0, width
    while cell_len(plain[start:]) > room:
        end, used = start, 0
        while end < len(plain) and used + cell_len(plain[end]) <= room:
            used += cell_len(plain[end])
            end += 1
        end = max(end, start + 1)
        space = plain.rfind(" ", start, end)
        if space > start and plain[start:space].strip():  # (after a word, not in the indent)
            end = space + 1
        while end < len(plain) and plain[end] == " ":  # (spaces at a break end the line, as in word wrap)
            end += 1
        breaks.append(end)
        start, room = end, width - hang
    pieces = line.divide(breaks)
    return [pieces[0], *(Text(" " * hang, end="") + piece for piece in pieces[1:])]


class Table(rich_markdown.TableElement):
    """Rich's table, its columns folding what does not fit rather than cutting it short."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for table in super().__rich_console__(console, options):
            for column in getattr(table, "columns", ()):
                column.overflow = "fold"
            yield table


class ChatMarkdown(rich_markdown.Markdown):
    """Rich's Markdown with the elements above, and `url` tokens drawn in `markdown.url` (`tasks_and_urls`)."""

    elements: ClassVar[dict[str, type[rich_markdown.MarkdownElement]]] = {
        **rich_markdown.Markdown.elements,
        "fence": Code,
        "code_block": Code,
        "blockquote_open": Quote,
        "bullet_list_open": OrderedList,
        "ordered_list_open": OrderedList,
        "table_open": Table,
    }
    inlines = {*rich_markdown.Markdown.inlines, "url"}


def tasks_and_urls(tokens: list[Token]) -> None:
    """Mark task boxes and link URLs in parsed Markdown, in place (see the module)."""
    item_text = False
    for token in tokens:
        if token.type == "list_item_open":
            item_text = True
            continue
        if token.type == "inline" and token.children:
            if item_text:
                _task_box(token.children)
            token.children = _with_urls(token.children)
        if token.type not in ("paragraph_open",):
            item_text = False


def _task_box(children: list[Token]) -> None:
    first = children[0]
    if first.type == "text" and (box := TASK.match(first.content)):
        first.content = ("☐" if box.group(1) == " " else "☑") + first.content[box.end() :]


def _with_urls(children: list[Token]) -> list[Token]:
    """Inline tokens with a `url` token after each link whose text is not its URL."""
    out: list[Token] = []
    href, text = "", ""
    for child in children:
        out.append(child)
        if child.type == "link_open":
            href, text = str(child.attrs.get("href", "")), ""
        elif child.type in ("text", "code_inline"):
            text += child.content
        elif child.type == "link_close" and child.markup != "autolink" and href:
            shown = normalizeLinkText(href)
            if text.strip() not in (href, shown, shown.removeprefix("mailto:")):
                out.append(Token("url", "url", 0, content=f" ({shown})"))
            href = ""
    return out
